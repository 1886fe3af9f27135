package clientconf

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// Registration is one server entry found in a client's file.
type Registration struct {
	Client   string `json:"client"`
	ClientID string `json:"client_id"` // the --client value
	File     string `json:"file"`
	Scope    string `json:"scope"`
	Where    string `json:"where"` // the key path, e.g. projects → /src/x → mcpServers
	Name     string `json:"name"`
	Server   Server `json:"server"`
	Note     string `json:"note,omitempty"`
	// ShadowedBy is the file the client reads instead of this one (it
	// reads the first of its user files that exists): this entry is
	// never used.
	ShadowedBy string `json:"shadowed_by,omitempty"`
	// ShadowReason says what the claim that the client reads ShadowedBy
	// rests on. ShadowMissing: ShadowedBy does not exist (yet), the layout
	// it belongs to does (the Store build's package folder).
	// ShadowRemovable: the client would read this entry's file once
	// ShadowedBy is removed (it reads the first of its files that exists).
	ShadowReason    string `json:"shadow_reason,omitempty"`
	ShadowMissing   bool   `json:"shadowed_by_missing,omitempty"`
	ShadowRemovable bool   `json:"shadow_removable,omitempty"`
	// NotRead says why the client never reads this entry, for a reason
	// other than a file that shadows it.
	NotRead string `json:"not_read,omitempty"`
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
// (its default "local" scope). A client with several user files (Claude
// Desktop, CodeBuddy, Cline) reads only the first that exists (or whose
// layout does): entries in the others are marked ShadowedBy.
func (e Env) Registrations() ([]Registration, []FileProblem) {
	var regs []Registration
	var probs []FileProblem
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
		shadow, shadowed := e.shadowedBy(f)
		notRead := legacyOff(f)
		add := func(where []string, servers map[string]Server) {
			names := make([]string, 0, len(servers))
			for n := range servers {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				if IsBridge(servers[n]) {
					r := Registration{Client: f.Client.Name, ClientID: f.Client.ID, File: f.Path, Scope: f.Scope, Where: strings.Join(where, " → "), Name: n, Server: servers[n], Note: note}
					if where[0] != "projects" { // a project's entries are its local scope, read from this file whatever else exists
						if shadowed {
							r.ShadowedBy, r.ShadowReason, r.ShadowMissing = shadow.Path, shadow.readReason(), !exists(shadow.Path)
							r.ShadowRemovable = !r.ShadowMissing && shadow.readsBecause == ""
						}
					}
					r.NotRead = notRead
					regs = append(regs, r)
				}
			}
		}
		if f.Client.YAML {
			servers, err := yamlServers(b, f.Client)
			if err != nil {
				probs = append(probs, FileProblem{f.Client.Name, f.Path, err.Error()})
				continue
			}
			add([]string{f.Client.ServersKey()}, servers)
			continue
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
		add(serversKey(f, d), jsonServers(d, d.lookup(serversKey(f, d))))
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

// shadowedBy is the user file the client reads instead of f; false when
// it reads f (or f is not one of its alternative user files).
func (e Env) shadowedBy(f File) (File, bool) {
	if f.Scope != "user" || f.Client.Merged {
		return File{}, false
	}
	cands := e.Candidates(f.Client, "user")
	if len(cands) < 2 {
		return File{}, false
	}
	target, ok := e.Target(f.Client, "user")
	if !ok || target.Path == f.Path {
		return File{}, false
	}
	for _, c := range cands {
		if c.Path == f.Path {
			return target, true
		}
	}
	return File{}, false // a VS Code profile, say: read as well
}

// readReason says why the client reads f rather than its other files:
// what the claim rests on, for doctor.
func (f File) readReason() string {
	switch {
	case f.readsBecause != "":
		return f.readsBecause
	case exists(f.Path):
		return "the first of its files that exists"
	default:
		return "the first of its files whose folder exists: " + f.marker
	}
}

// legacyOff: Amazon Q reads its legacy mcp.json only while
// "useLegacyMcpJson" in the default.json beside it is not false.
func legacyOff(f File) string {
	if f.Client.ID != "amazonq" || filepath.Base(f.Path) != "mcp.json" {
		return ""
	}
	agent := filepath.Join(filepath.Dir(f.Path), "default.json")
	b, err := readFile(agent)
	if err != nil || b == nil {
		return ""
	}
	d, err := parseJSONC(b)
	if err != nil {
		return ""
	}
	var cfg struct {
		UseLegacyMcpJson *bool `json:"useLegacyMcpJson"`
	}
	if d.decode(d.root, &cfg) != nil || cfg.UseLegacyMcpJson == nil || *cfg.UseLegacyMcpJson {
		return ""
	}
	return fmt.Sprintf(`"useLegacyMcpJson" is false in %s, so Amazon Q reads only that file's servers: set it to true, or move the entry there`, agent)
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
		// "command" is a string with "args" beside it, or (OpenCode) one
		// array holding both; the variables are in "env", or (OpenCode)
		// "environment".
		var raw struct {
			Command     any
			Args        []any
			Env         map[string]any
			Environment map[string]any
			URL         string
			HTTPURL     string // Gemini CLI's Streamable HTTP
			ServerURL   string // Windsurf's
			Headers     map[string]any
		}
		// Each member by its exact name, as the client's JSON.parse reads
		// it: encoding/json's struct fields would also take "URL" for
		// "url", or "Command" for "command", which the client ignores.
		var members map[string]json.RawMessage
		if d.decode(m.value, &members) != nil {
			continue
		}
		bad := false
		for k, v := range map[string]any{"command": &raw.Command, "args": &raw.Args, "env": &raw.Env, "environment": &raw.Environment,
			"url": &raw.URL, "httpUrl": &raw.HTTPURL, "serverUrl": &raw.ServerURL, "headers": &raw.Headers} {
			if b, ok := members[k]; ok && json.Unmarshal(b, v) != nil {
				bad = true
			}
		}
		if bad {
			continue
		}
		s := Server{Env: map[string]string{}, URL: raw.HTTPURL}
		for _, u := range []string{raw.URL, raw.ServerURL} {
			if s.URL == "" {
				s.URL = u
			}
		}
		for k, v := range raw.Headers {
			if str, ok := v.(string); ok {
				if s.Headers == nil {
					s.Headers = map[string]string{}
				}
				s.Headers[k] = str
			}
		}
		args := raw.Args
		switch cmd := raw.Command.(type) {
		case string:
			s.Command = cmd
		case []any:
			if len(cmd) > 0 {
				s.Command, _ = cmd[0].(string)
				args = cmd[1:]
			}
		}
		for _, a := range args {
			if str, ok := a.(string); ok {
				s.Args = append(s.Args, str)
			}
		}
		for _, env := range []map[string]any{raw.Environment, raw.Env} {
			for k, v := range env {
				if str, ok := v.(string); ok {
					s.Env[k] = str
				}
			}
		}
		out[m.key] = s
	}
	return out
}

// IsBridge: the command is mcp-bridge (any folder, .exe or not), or the
// entry passes CAD_MCP_HOST or CAD_MCP_PORT, or it is a URL entry that
// sends the token from TokenVar, in its Authorization header or by naming
// the variable (install --url writes that; a URL entry without a token
// cannot be told from another server's).
func IsBridge(s Server) bool {
	if s.URL != "" && s.Command == "" {
		return s.TokenFromVar()
	}
	base := strings.TrimSuffix(strings.ToLower(filepath.Base(strings.ReplaceAll(s.Command, `\`, "/"))), ".exe")
	if base == "mcp-bridge" {
		return true
	}
	_, host := s.Env["CAD_MCP_HOST"]
	_, port := s.Env["CAD_MCP_PORT"]
	return host || port
}
