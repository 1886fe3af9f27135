package clientconf

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

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
		notRead := ""
		if f.Client.notRead != nil {
			notRead = f.Client.notRead(f)
		}
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
		all, err := f.Client.format().servers(f, b)
		if err != nil {
			probs = append(probs, FileProblem{f.Client.Name, f.Path, err.Error()})
			continue
		}
		for _, at := range all {
			add(at.where, at.entries)
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

// amazonQLegacyOff: Amazon Q reads its legacy mcp.json only while
// "useLegacyMcpJson" in the default.json beside it is not false.
func amazonQLegacyOff(f File) string {
	if filepath.Base(f.Path) != "mcp.json" {
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
