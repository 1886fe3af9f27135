package clientconf

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// Registration is one server entry found in a client's file.
type Registration struct {
	Client string `json:"client"`
	File   string `json:"file"`
	Scope  string `json:"scope"`
	Where  string `json:"where"` // the key path, e.g. projects → /src/x → mcpServers
	Name   string `json:"name"`
	Server Server `json:"server"`
	Note   string `json:"note,omitempty"`
}

// FileProblem is a file that exists but could not be read.
type FileProblem struct {
	Client string `json:"client"`
	File   string `json:"file"`
	Error  string `json:"error"`
}

// Registrations reads every file every client may use and returns the
// entries that start mcp-bridge, and the files it could not read. Claude
// Code's ~/.claude.json is read at the top level and under every project
// (its default "local" scope); for CodeBuddy, files shadowed by an earlier
// one are reported with a note.
func (e Env) Registrations() ([]Registration, []FileProblem) {
	var regs []Registration
	var probs []FileProblem
	codebuddyInEffect := ""
	read := e.Read
	if read == nil {
		read = func(path string) ([]byte, string, bool) {
			b, err := readFile(path)
			if err != nil {
				return nil, err.Error(), true
			}
			return b, "", b != nil
		}
	}
	for _, f := range e.AllFiles() {
		b, problem, found := read(f.Path)
		if !found {
			continue
		}
		if problem != "" {
			probs = append(probs, FileProblem{f.Client.Name, f.Path, problem})
			continue
		}
		note := f.Note
		if f.Client.ID == "codebuddy" && f.Scope == "user" {
			if codebuddyInEffect != "" {
				note = strings.TrimPrefix(note+"; ", "; ") + "not read: CodeBuddy uses " + codebuddyInEffect
			} else {
				codebuddyInEffect = f.Path
			}
		}
		add := func(where []string, servers map[string]Server) {
			names := make([]string, 0, len(servers))
			for n := range servers {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				if IsBridge(servers[n]) {
					regs = append(regs, Registration{Client: f.Client.Name, File: f.Path, Scope: f.Scope, Where: strings.Join(where, " → "), Name: n, Server: servers[n], Note: note})
				}
			}
		}
		if f.Client.TOML {
			servers, err := tomlServers(b)
			if err != nil {
				probs = append(probs, FileProblem{f.Client.Name, f.Path, "not valid TOML: " + err.Error()})
				continue
			}
			add([]string{"mcp_servers"}, servers)
			continue
		}
		d, err := parseJSONC(b)
		if err != nil {
			probs = append(probs, FileProblem{f.Client.Name, f.Path, err.Error()})
			continue
		}
		add(f.Key, jsonServers(d, d.lookup(f.Key)))
		if (f.Client.ID == "claude-code" || f.Client.ID == "codebuddy") && filepath.Base(f.Path) != ".mcp.json" {
			if projects := d.lookup([]string{"projects"}); projects != nil && projects.object {
				for _, p := range projects.members {
					add([]string{"projects", p.key, "mcpServers"}, jsonServers(d, p.value.member("mcpServers").valueOrNil()))
				}
			}
		}
	}
	return regs, probs
}

func (m *jmember) valueOrNil() *jnode {
	if m == nil {
		return nil
	}
	return m.value
}

func jsonServers(d *jsoncDoc, n *jnode) map[string]Server {
	out := map[string]Server{}
	if n == nil || !n.object {
		return out
	}
	for _, m := range n.members {
		var raw struct {
			Command string         `json:"command"`
			Args    []any          `json:"args"`
			Env     map[string]any `json:"env"`
		}
		if d.decode(m.value, &raw) != nil {
			continue
		}
		s := Server{Command: raw.Command, Env: map[string]string{}}
		for _, a := range raw.Args {
			if str, ok := a.(string); ok {
				s.Args = append(s.Args, str)
			}
		}
		for k, v := range raw.Env {
			if str, ok := v.(string); ok {
				s.Env[k] = str
			}
		}
		out[m.key] = s
	}
	return out
}

// IsBridge: the command is mcp-bridge (any folder, .exe or not), or the
// entry passes CAD_MCP_HOST or CAD_MCP_PORT.
func IsBridge(s Server) bool {
	base := strings.TrimSuffix(strings.ToLower(filepath.Base(strings.ReplaceAll(s.Command, `\`, "/"))), ".exe")
	if base == "mcp-bridge" {
		return true
	}
	_, host := s.Env["CAD_MCP_HOST"]
	_, port := s.Env["CAD_MCP_PORT"]
	return host || port
}
