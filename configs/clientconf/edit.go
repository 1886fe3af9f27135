package clientconf

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Result says what Install or Uninstall did to one file.
type Result struct {
	Client *Client
	File   string
	Action string // "added", "updated", "unchanged", "removed", "absent"
	Backup string // the previous file, when one was replaced
	DryRun bool
	Before []byte
	After  []byte
}

// ErrUnparseable wraps a file that was left untouched because it could not
// be read as its client's format.
var ErrUnparseable = errors.New("left untouched: cannot parse it")

// Install adds or updates the entry name in f, keeping every other entry,
// field and comment. A second run with the same server changes nothing.
func Install(f File, name string, s Server, dryRun bool) (Result, error) {
	r := Result{Client: f.Client, File: f.Path, DryRun: dryRun}
	before, err := readFile(f.Path)
	if err != nil {
		return r, err
	}
	r.Before = before
	var after []byte
	existed := false
	if f.Client.TOML {
		if servers, err := tomlServers(before); err == nil {
			_, existed = servers[name]
		}
		after, err = tomlSet(before, name, s)
	} else {
		after, existed, err = jsonSet(before, append(append([]string(nil), f.Key...), name), f.Client.Type, s)
	}
	if err != nil {
		return r, fmt.Errorf("%s: %w: %v", f.Path, ErrUnparseable, err)
	}
	r.After = after
	switch {
	case before != nil && bytes.Equal(before, after):
		r.Action = "unchanged"
		return r, nil
	case existed:
		r.Action = "updated"
	default:
		r.Action = "added"
	}
	if dryRun {
		return r, nil
	}
	r.Backup, err = writeAtomic(f.Path, before, after)
	return r, err
}

// Uninstall removes the entry name from f and nothing else.
func Uninstall(f File, name string, dryRun bool) (Result, error) {
	r := Result{Client: f.Client, File: f.Path, DryRun: dryRun, Action: "absent"}
	before, err := readFile(f.Path)
	if err != nil || before == nil {
		return r, err
	}
	r.Before = before
	var after []byte
	var ok bool
	if f.Client.TOML {
		after, ok, err = tomlRemove(before, name)
	} else {
		var d *jsoncDoc
		if d, err = parseJSONC(before); err == nil {
			after, ok = d.remove(append(append([]string(nil), f.Key...), name))
		}
	}
	if err != nil {
		return r, fmt.Errorf("%s: %w: %v", f.Path, ErrUnparseable, err)
	}
	if !ok {
		return r, nil
	}
	r.Action, r.After = "removed", after
	if dryRun {
		return r, nil
	}
	r.Backup, err = writeAtomic(f.Path, before, after)
	return r, err
}

// jsonSet writes the server at path. An existing entry keeps the fields
// install does not own (a client's own "disabled", "alwaysAllow", …) and
// environment variables other than CAD_MCP_*.
func jsonSet(src []byte, path []string, typed bool, s Server) ([]byte, bool, error) {
	d, err := parseJSONC(src)
	if err != nil {
		return nil, false, err
	}
	entry := d.lookup(path)
	if entry == nil || !entry.object {
		out, err := d.set(path, jsonEntry(typed, s))
		return out, false, err
	}
	var old struct {
		Env map[string]any `json:"env"`
	}
	_ = d.decode(entry, &old)
	type step struct {
		path  []string
		value any
		del   bool
	}
	sub := func(k ...string) []string { return append(append([]string(nil), path...), k...) }
	var steps []step
	if typed {
		steps = append(steps, step{path: sub("type"), value: "stdio"})
	}
	args := s.Args
	if args == nil {
		args = []string{}
	}
	steps = append(steps, step{path: sub("command"), value: s.Command}, step{path: sub("args"), value: args})
	if old.Env == nil {
		steps = append(steps, step{path: sub("env"), value: envObject(s.Env)})
	} else {
		for _, k := range sortedKeys(s.Env) {
			steps = append(steps, step{path: sub("env", k), value: s.Env[k]})
		}
		for k := range old.Env {
			if _, keep := s.Env[k]; !keep && strings.HasPrefix(k, "CAD_MCP_") {
				steps = append(steps, step{path: sub("env", k), del: true})
			}
		}
	}
	out := src
	for _, st := range steps {
		d, err := parseJSONC(out)
		if err != nil {
			return nil, true, err
		}
		if st.del {
			out, _ = d.remove(st.path)
			continue
		}
		if n := d.lookup(st.path); n != nil && jsonEqual(d.std[n.start:n.end], st.value) {
			continue
		}
		if out, err = d.set(st.path, st.value); err != nil {
			return nil, true, err
		}
	}
	return out, true, nil
}

func jsonEqual(raw []byte, v any) bool {
	want, err := marshal(v, "", "")
	if err != nil {
		return false
	}
	var a, b any
	if parseErr := jsonUnmarshal(raw, &a); parseErr != nil {
		return false
	}
	_ = jsonUnmarshal([]byte(want), &b)
	x, _ := marshal(a, "", "")
	y, _ := marshal(b, "", "")
	return x == y
}

// jsonEntry is the entry in the order people expect to read it.
func jsonEntry(typed bool, s Server) orderedObject {
	var o orderedObject
	if typed {
		o = append(o, kv{"type", "stdio"})
	}
	args := s.Args
	if args == nil {
		args = []string{}
	}
	return append(o, kv{"command", s.Command}, kv{"args", args}, kv{"env", envObject(s.Env)})
}

func envObject(env map[string]string) orderedObject {
	o := orderedObject{}
	for _, k := range sortedKeys(env) {
		o = append(o, kv{k, env[k]})
	}
	return o
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// EntryJSON is the entry as install writes it, for --print-config.
func EntryJSON(c *Client, s Server) orderedObject { return jsonEntry(c != nil && c.Type, s) }

// Document is a whole file holding just this entry, for --print-config.
func Document(c *Client, name string, s Server) (string, error) {
	if c.TOML {
		return tomlServer(name, s), nil
	}
	key := "mcpServers"
	switch c.ID {
	case "vscode", "vscode-insiders":
		key = "servers"
	case "zed":
		key = "context_servers"
	}
	return marshal(orderedObject{{key, orderedObject{{name, jsonEntry(c.Type, s)}}}}, "", "  ")
}

// Marshal is JSON without HTML escaping (& < > stay as they are).
func Marshal(v any, indent string) (string, error) { return marshal(v, "", indent) }

// readFile returns nil for a file that does not exist.
func readFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// writeAtomic replaces path with data: a temporary file in the same folder,
// synced, then renamed over the old one, so a crash leaves the old file or
// the new one, never half of one. The previous content, when there was
// one, is kept beside it as <file>.mcp-bridge-backup. A symlinked file is
// written where the link points.
func writeAtomic(path string, before, data []byte) (backup string, err error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	mode := os.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if before != nil {
		backup = path + ".mcp-bridge-backup"
		if err := writeSynced(backup, before, mode); err != nil {
			return "", fmt.Errorf("keeping a backup: %w", err)
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return backup, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return backup, err
	}
	if err := tmp.Chmod(mode); err != nil && !isWindowsChmod(err) {
		tmp.Close()
		return backup, err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return backup, err
	}
	if err := tmp.Close(); err != nil {
		return backup, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return backup, err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // best effort: makes the rename durable on Unix
		d.Close()
	}
	return backup, nil
}

func writeSynced(path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// isWindowsChmod: Chmod on Windows only knows read-only; never fatal.
func isWindowsChmod(err error) bool { return err != nil && filepath.Separator == '\\' }

// Named is the "name" member VS Code's --add-mcp wants first.
func Named(name string) orderedObject { return orderedObject{{"name", name}} }

// CopyTarget is where install --copy puts the binary: the conventional
// per-user place, %LOCALAPPDATA%\Programs\mcp-bridge\ on Windows and
// ~/.local/bin elsewhere.
func (e Env) CopyTarget() string {
	if e.OS == "windows" {
		return join(e.Getenv("LOCALAPPDATA"), "Programs", "mcp-bridge", "mcp-bridge.exe")
	}
	return join(e.Home(), ".local", "bin", "mcp-bridge")
}

// CopyExecutable copies exe to dest (atomically, mode 0755) unless it is
// already there, and returns dest. Only the file's content is copied, so
// a downloaded file's Mark-of-the-Web (its Zone.Identifier stream on
// Windows) does not follow it.
func CopyExecutable(exe, dest string) error {
	if dest == "" {
		return errors.New("no place to copy the binary to (is LOCALAPPDATA or HOME set?)")
	}
	if a, err := filepath.Abs(exe); err == nil {
		if b, err := filepath.Abs(dest); err == nil && a == b {
			return nil
		}
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		return err
	}
	if old, err := os.ReadFile(dest); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".mcp-bridge.tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o755)
		if isWindowsChmod(err) {
			err = nil
		}
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), dest); err != nil {
		return fmt.Errorf("replacing %s (is a client running it? quit it first): %w", dest, err)
	}
	return nil
}
