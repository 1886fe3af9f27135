package clientconf

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/configs/userfile"
)

// Result says what Install or Uninstall did to one file.
type Result struct {
	Client *Client
	File   string
	Action string // "added", "updated", "unchanged", "removed", "absent"
	Backup string // the previous file, when one was replaced
	// Deleted: uninstall removed the file, which install had made and
	// which held nothing else (Action is "removed").
	Deleted bool
	DryRun  bool
	Before  []byte
	After   []byte
}

// ErrUnparseable wraps a file that was left untouched because it could not
// be read as its client's format.
var ErrUnparseable = errors.New("left untouched: cannot parse it")

// ErrNotOurs wraps install's refusal to replace, and uninstall's to
// remove, an entry of the name it writes that belongs to another program.
var ErrNotOurs = errors.New("not mcp-bridge's")

// Options are install's and uninstall's choices.
type Options struct {
	DryRun bool // say what would change, change nothing
	// Force writes a file that is read-only, and replaces (install) or
	// removes (uninstall) an entry of that name that is not mcp-bridge's.
	Force bool
	// Self is this executable: an entry that runs it is ours, whatever
	// its name (a renamed binary, a test's).
	Self string
	// LockDir is the folder of the locks that serialise installs of one
	// file across processes (Env.LockDir: the user's, never beside the
	// client's own files); "" locks beside the file, as a last resort.
	LockDir string
}

// Install adds or updates the entry name in f, keeping every other entry,
// field and comment. A second run with the same server changes nothing.
func Install(f File, name string, s Server, opt Options) (Result, error) {
	if s.URL != "" && f.Client.URLForm == nil {
		return Result{Client: f.Client, File: f.Path}, fmt.Errorf("%s takes no URL entry: register `mcp-bridge connect URL` for it", f.Client.Name)
	}
	if err := f.Client.CheckExpansion(s); err != nil {
		return Result{Client: f.Client, File: f.Path}, err
	}
	return install(f, name, s, opt)
}

// install is Install without the check of what the client fills in (the
// tests write a user's own entry with it).
func install(f File, name string, s Server, opt Options) (Result, error) {
	return change(f, opt, true, func(before []byte) ([]byte, string, error) {
		if old, ok := entryIn(f, before, name); ok && !opt.Force {
			if what := notOurs(old, s.URL, opt.Self); what != "" {
				return nil, "", fmt.Errorf("%q is already in this file: it %s, and is %w as far as install can tell: choose another --name, or replace it with --force (the file is kept as .mcp-bridge-backup)", name, what, ErrNotOurs)
			}
		}
		after, existed, err := setEntry(f, before, name, s)
		switch {
		case err != nil:
			return nil, "", err
		case before != nil && bytes.Equal(before, after):
			return after, "unchanged", nil
		case existed:
			return after, "updated", nil
		}
		return after, "added", nil
	})
}

// setEntry is src (nil: no file yet) with the entry name set to s, in
// the client's format; existed says whether it was there before.
func setEntry(f File, src []byte, name string, s Server) (after []byte, existed bool, err error) {
	return f.Client.format().set(f, src, name, s)
}

// removeEntry is src without the entry name; ok is false when it has
// none.
func removeEntry(f File, src []byte, name string) (after []byte, ok bool, err error) {
	return f.Client.format().remove(f, src, name)
}

// leftByInstall is what is left of a file install made (there was none)
// once its entry is taken out again: nothing of the user's. Uninstall
// removes a file that is exactly this, rather than leave it behind.
func leftByInstall(f File, name string) []byte {
	made, _, err := setEntry(f, nil, name, Server{Command: "mcp-bridge"})
	if err != nil {
		return nil
	}
	left, ok, err := removeEntry(f, made, name)
	if err != nil || !ok {
		return nil
	}
	return left
}

// notOurs says what old runs or connects to when it runs a program or
// names a URL and nothing tells it is mcp-bridge's (IsBridge, this
// executable, or for a URL entry without the token variable, url: the
// URL install writes); "" when it may be replaced or removed. Install
// keeps the members it does not own, but a server of the user's own would
// lose its command or its URL and credentials, and uninstall would lose
// it whole.
func notOurs(old Server, url, self string) string {
	switch {
	case old.Command == "" && old.URL == "", IsBridge(old),
		old.Command != "" && old.Command == self,
		old.Command == "" && url != "" && old.URL == url:
		return ""
	}
	if old.Command != "" {
		return "runs " + old.Command
	}
	what := "connects to " + old.URL
	if !old.TokenFromVar() {
		what += " without " + TokenVar
	}
	return what
}

// Uninstall removes the entry name from f and nothing else; an entry of
// that name that is not mcp-bridge's stays unless Force.
func Uninstall(f File, name string, opt Options) (Result, error) {
	return change(f, opt, false, func(before []byte) ([]byte, string, error) {
		if before == nil {
			return nil, "absent", nil
		}
		var after []byte
		var ok bool
		var err error
		if old, found := entryIn(f, before, name); found && !opt.Force {
			// A URL entry that sends no credentials at all is what
			// install --url without a token writes: it goes. One that
			// sends some (not CAD_MCP_TOKEN) is a server of the user's.
			url := ""
			if len(old.Headers) == 0 && old.TokenEnv == "" {
				url = old.URL
			}
			if what := notOurs(old, url, opt.Self); what != "" {
				return nil, "", fmt.Errorf("%q in this file %s, and is %w as far as uninstall can tell: remove it with --force if you mean to (the file is kept as .mcp-bridge-backup)", name, what, ErrNotOurs)
			}
		}
		after, ok, err = removeEntry(f, before, name)
		if err != nil || !ok {
			return nil, "absent", err
		}
		if left := leftByInstall(f, name); left != nil && bytes.Equal(bytes.ReplaceAll(after, []byte("\r\n"), []byte("\n")), left) {
			return nil, "deleted", nil // a file install made, and nothing else in it
		}
		return after, "removed", nil
	})
}

// change is one read-modify-write of a client's file: under a lock that
// other installs (other processes too) take for the same file, the file is
// read, edit computes the new content, and the new content replaces the
// file. A symbolic link (dotfiles) is followed: the file it points to is
// the one read, locked and written. A file that is not a regular file (a
// FIFO, a device) is refused at once, and a read-only one unless Force.
// Without create (uninstall), a file that does not exist is left so.
func change(f File, opt Options, create bool, edit func(before []byte) (after []byte, action string, err error)) (Result, error) {
	r := Result{Client: f.Client, File: f.Path, DryRun: opt.DryRun}
	path, err := resolve(f.Path)
	if err != nil {
		return r, err
	}
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) && !create {
		r.Action = "absent" // nothing to take out: no folder or lock file made
		return r, nil
	}
	if !opt.DryRun {
		if err := mkdirAll(filepath.Dir(path)); err != nil {
			return r, err
		}
		unlock, err := lockFor(path, opt.LockDir)
		if err != nil {
			return r, fmt.Errorf("%s: %w", f.Path, err)
		}
		defer unlock()
	}
	before, mode, err := readUserFile(path)
	if err != nil {
		return r, err
	}
	r.Before = before
	after, action, err := edit(before)
	if errors.Is(err, ErrNotOurs) {
		return r, fmt.Errorf("%s: %w", f.Path, err)
	}
	if err != nil {
		return r, fmt.Errorf("%s: %w: %v", f.Path, ErrUnparseable, err)
	}
	r.Action = action
	if action == "unchanged" || action == "absent" {
		return r, nil
	}
	if action == "deleted" {
		r.Action, r.Deleted = "removed", true
		if before != nil && mode&0o200 == 0 && !opt.Force {
			return r, fmt.Errorf("%s is read-only: left as it is (--force writes it anyway)", f.Path)
		}
		if opt.DryRun {
			return r, nil
		}
		return r, os.Remove(path)
	}
	r.After = keepLineEnds(before, after)
	if before != nil && mode&0o200 == 0 && !opt.Force {
		return r, fmt.Errorf("%s is read-only: left as it is (--force writes it anyway)", f.Path)
	}
	if opt.DryRun {
		return r, nil
	}
	r.Backup, err = writeAtomic(path, before, r.After, mode)
	return r, err
}

// lockFor takes the cross-process lock for the client file at path (a
// link already resolved): a file in dir named after path (its hash, the
// name kept for people), so that nothing is left beside the user's
// config. Every process that edits path takes the same lock, since they
// resolve it to the same name.
func lockFor(path, dir string) (release func(), err error) {
	if dir == "" {
		return userfile.LockPath(path + ".mcp-bridge-lock")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	key := abs
	if filepath.Separator == '\\' || runtime.GOOS == "darwin" {
		key = strings.ToLower(key) // file names that differ only in case are one file there
	}
	sum := sha256.Sum256([]byte(key))
	if err := mkdirAll(dir); err != nil {
		return nil, err
	}
	return userfile.LockPath(filepath.Join(dir, filepath.Base(abs)+"-"+hex.EncodeToString(sum[:8])+".lock"))
}

// mkdirAll makes dir and the folders above it that are missing, each
// owned like the nearest folder that exists (userfile.SameOwner).
func mkdirAll(dir string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			for _, m := range missing {
				userfile.SameOwner(m, d)
			}
			return nil
		}
		missing = append(missing, d)
	}
}

// resolve follows a symbolic link at path to the file it names, which may
// not exist yet; other paths are returned as they are.
func resolve(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return path, nil
	}
	for range 40 {
		target, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
		if fi, err = os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return path, nil
		}
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// keepLineEnds writes the file's own line ends: when every line of before
// ends in CRLF, the lines the edit added do too.
func keepLineEnds(before, after []byte) []byte {
	crlf := bytes.Count(before, []byte("\r\n"))
	if crlf == 0 || crlf != bytes.Count(before, []byte("\n")) {
		return after
	}
	out := make([]byte, 0, len(after)+bytes.Count(after, []byte("\n")))
	for i, c := range after {
		if c == '\n' && (i == 0 || after[i-1] != '\r') {
			out = append(out, '\r')
		}
		out = append(out, c)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Document is a whole file holding just this entry, for --print-config.
func Document(c *Client, name string, s Server) (string, error) {
	return c.format().document(c, name, s)
}

// readFile reads a client's file for doctor: nil when it does not exist;
// a link is followed, and anything but a regular file at its end refused.
func readFile(path string) ([]byte, error) {
	path, err := resolve(path)
	if err != nil {
		return nil, err
	}
	b, _, err := readUserFile(path)
	return b, err
}

// readUserFile reads the regular file at path (a link is not followed: it
// was resolved before) and its mode; nil when it does not exist.
func readUserFile(path string) ([]byte, os.FileMode, error) {
	fh, err := userfile.Open(path, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0o600, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, 0, err
	}
	b, err := io.ReadAll(fh)
	return b, st.Mode().Perm(), err
}

// writeAtomic replaces path with data: a temporary file in the same folder,
// synced, then renamed over the old one, so a crash leaves the old file or
// the new one, never half of one. The new file keeps the old one's mode.
// The previous content, when there was one, is kept beside it as
// <file>.mcp-bridge-backup, written the same way. No link is followed: the
// temporary files are created new (O_EXCL), and a rename replaces a link
// planted at the backup's name instead of writing through it.
func writeAtomic(path string, before, data []byte, mode os.FileMode) (backup string, err error) {
	if before != nil {
		backup = path + ".mcp-bridge-backup"
		if err := replace(backup, before, mode); err != nil {
			return "", fmt.Errorf("keeping a backup: %w", err)
		}
	}
	return backup, replace(path, data, mode)
}

// writeTemp writes data with mode to a new file in dir (created with
// O_EXCL by os.CreateTemp, so never through a planted link), synced and
// closed, and returns its name ("" when it could not be created) for the
// caller to rename into place or remove.
func writeTemp(dir, pattern string, data []byte, mode os.FileMode) (string, error) {
	tmp, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(data)
	if err == nil {
		if err = tmp.Chmod(mode); isWindowsChmod(err) {
			err = nil
		}
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	return tmp.Name(), err
}

// replace puts data at path through a new temporary file and a rename.
func replace(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := writeTemp(dir, "."+filepath.Base(path)+".tmp*", data, mode)
	defer os.Remove(tmp)
	if err != nil {
		return err
	}
	// The file's owner stays the owner (or, for a new file, its folder's):
	// root writing a user's config must not take it from them.
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
		userfile.SameOwner(tmp, path)
	} else {
		userfile.SameOwner(tmp, dir)
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o200 == 0 && filepath.Separator == '\\' {
		_ = os.Chmod(path, 0o600) // Windows renames over no read-only file; --force asked for it
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // best effort: makes the rename durable on Unix
		d.Close()
	}
	return nil
}

// isWindowsChmod: Chmod on Windows only knows read-only; never fatal.
func isWindowsChmod(err error) bool { return err != nil && filepath.Separator == '\\' }

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
	tmp, err := writeTemp(filepath.Dir(dest), ".mcp-bridge.tmp*", data, 0o755)
	defer os.Remove(tmp)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, dest); err != nil {
		return fmt.Errorf("replacing %s (is a client running it? quit it first): %w", dest, err)
	}
	return nil
}
