package clientconf

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// wantURLEntry is, per client with a URL form, the entry for a remote
// bridge with a token as the client's documentation has it
// (configs/README.md): its members' JSON types ("type" with its value)
// and the Authorization header with the client's own variable syntax.
var wantURLEntry = map[string]struct {
	shape map[string]string
	auth  string // the Authorization header, or for Codex the variable it names
}{
	"claude-code":     {map[string]string{"type": "http", "url": "string", "headers": "object"}, "Bearer ${CAD_MCP_TOKEN}"},
	"codebuddy":       {map[string]string{"type": "http", "url": "string", "headers": "object"}, "Bearer ${CAD_MCP_TOKEN}"},
	"gemini":          {map[string]string{"httpUrl": "string", "headers": "object"}, "Bearer ${CAD_MCP_TOKEN}"},
	"cursor":          {map[string]string{"url": "string", "headers": "object"}, "Bearer ${env:CAD_MCP_TOKEN}"},
	"vscode":          {map[string]string{"type": "http", "url": "string", "headers": "object"}, "Bearer ${env:CAD_MCP_TOKEN}"},
	"vscode-insiders": {map[string]string{"type": "http", "url": "string", "headers": "object"}, "Bearer ${env:CAD_MCP_TOKEN}"},
	"windsurf":        {map[string]string{"serverUrl": "string", "headers": "object"}, "Bearer ${env:CAD_MCP_TOKEN}"},
	"codex":           {map[string]string{"url": "string", "bearer_token_env_var": "string"}, "CAD_MCP_TOKEN"},
	"copilot-cli":     {map[string]string{"type": "http", "url": "string", "headers": "object", "tools": "array"}, "Bearer ${CAD_MCP_TOKEN}"},
	"opencode":        {map[string]string{"type": "remote", "url": "string", "headers": "object"}, "Bearer {env:CAD_MCP_TOKEN}"},
}

// fileEntryShape is entryShape for a JSON or (Codex) TOML file.
func fileEntryShape(t *testing.T, c *Client, b []byte, key []string, name string) map[string]string {
	t.Helper()
	if c.Format != tomlFile {
		return entryShape(t, b, key, name)
	}
	doc, err := oracle(b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	servers, _ := doc["mcp_servers"].(map[string]any)
	entry, ok := servers[name].(map[string]any)
	if !ok {
		t.Fatalf("no entry %s in\n%s", name, b)
	}
	j, _ := json.Marshal(map[string]any{name: entry})
	return entryShape(t, j, nil, name)
}

const remoteURL = "https://cad.example:8443/mcp"

func TestURLFormEveryClient(t *testing.T) {
	for _, c := range Clients {
		t.Run(c.ID, func(t *testing.T) {
			fx := newFixture(t, "linux")
			if c.OnlyOS != "" {
				fx = newFixture(t, c.OnlyOS)
			}
			f, ok := fx.env.Target(c, "user")
			if !ok {
				return // a client with no file (JetBrains)
			}
			want, hasForm := wantURLEntry[c.ID]
			if !hasForm {
				// No URL form: install refuses a URL entry, the file as it was.
				if c.URLForm != nil {
					t.Fatalf("%s has a URL form nobody documented here", c.Name)
				}
				os.MkdirAll(filepath.Dir(f.Path), 0o755)
				orig := existing(c)
				os.WriteFile(f.Path, []byte(orig), 0o600)
				if _, err := Install(f, "cad-autocad", Server{URL: remoteURL}, Options{}); err == nil || !strings.Contains(err.Error(), "connect") {
					t.Errorf("a URL entry for %s: %v", c.Name, err)
				}
				if b, _ := os.ReadFile(f.Path); string(b) != orig {
					t.Errorf("the file changed:\n%s", b)
				}
				return
			}
			if c.URLForm == nil {
				t.Fatalf("%s has no URL form", c.Name)
			}
			remote := c.URLServer(remoteURL, true)
			os.MkdirAll(filepath.Dir(f.Path), 0o755)
			orig := existing(c)
			os.WriteFile(f.Path, []byte(orig), 0o600)
			r, err := Install(f, "cad-autocad", remote, Options{})
			if err != nil || r.Action != "added" {
				t.Fatalf("install: %+v %v", r, err)
			}
			b, _ := os.ReadFile(f.Path)
			if diff := cmp.Diff(want.shape, fileEntryShape(t, c, b, f.Key, "cad-autocad")); diff != "" {
				t.Errorf("the URL entry is not in %s's shape (-want +got):\n%s\n%s", c.Name, diff, b)
			}
			got, _ := entryOf(t, f, "cad-autocad")
			if auth := got.Headers["Authorization"] + got.TokenEnv; got.URL != remoteURL || auth != want.auth || len(got.Headers) > 0 && got.TokenEnv != "" {
				t.Errorf("entry %+v, want the URL and Authorization %q", got, want.auth)
			}
			for _, keep := range []string{"// my settings", "/* block comment */", "// keep me", `"unknownField": {"x": [1, 2]}`} {
				if strings.Contains(orig, keep) && !strings.Contains(string(b), keep) {
					t.Errorf("lost %q:\n%s", keep, b)
				}
			}
			if other, ok := entryOf(t, f, "other"); !ok || other.Command != "npx" {
				t.Errorf("the other server is gone or changed: %+v", other)
			}
			if r, _ := Install(f, "cad-autocad", remote, Options{}); r.Action != "unchanged" {
				t.Errorf("second install: %s", r.Action)
			}
			// doctor finds it.
			regs, _ := fx.env.Registrations()
			found := false
			for _, reg := range regs {
				found = found || reg.File == f.Path && reg.Name == "cad-autocad" && reg.Server.URL == remoteURL
			}
			if !found {
				t.Errorf("doctor does not see the URL entry: %+v", regs)
			}

			// The same name turned into a stdio entry: no URL member or
			// header left behind, the stdio shape exactly.
			if r, err := Install(f, "cad-autocad", bridge, Options{}); err != nil || r.Action != "updated" {
				t.Fatalf("to stdio: %+v %v", r, err)
			}
			b, _ = os.ReadFile(f.Path)
			if diff := cmp.Diff(wantEntryShape(c), fileEntryShape(t, c, b, f.Key, "cad-autocad")); diff != "" {
				t.Errorf("URL entry turned stdio (-want +got):\n%s\n%s", diff, b)
			}
			// And back, without a token: no command, args, env or header left.
			if r, err := Install(f, "cad-autocad", c.URLServer(remoteURL, false), Options{}); err != nil || r.Action != "updated" {
				t.Fatalf("back to the URL form: %+v %v", r, err)
			}
			b, _ = os.ReadFile(f.Path)
			noToken := map[string]string{}
			for k, v := range want.shape {
				if k != "headers" && k != "bearer_token_env_var" {
					noToken[k] = v
				}
			}
			if diff := cmp.Diff(noToken, fileEntryShape(t, c, b, f.Key, "cad-autocad")); diff != "" {
				t.Errorf("stdio entry turned URL (-want +got):\n%s\n%s", diff, b)
			}

			// Uninstall gives back the user's file byte for byte.
			if r, err := Uninstall(f, "cad-autocad", Options{}); err != nil || r.Action != "removed" {
				t.Fatalf("uninstall: %+v %v", r, err)
			}
			if back, _ := os.ReadFile(f.Path); string(back) != orig {
				t.Errorf("uninstall did not restore the file (-want +got):\n%s", cmp.Diff(orig, string(back)))
			}
		})
	}
}

// A header of the user's own in an existing URL entry stays when install
// updates the entry; only Authorization is install's. (An entry with
// another URL and no CAD_MCP_TOKEN cannot be told ours: replaced with
// Force.)
func TestURLFormKeepsUsersHeaders(t *testing.T) {
	fx := newFixture(t, "linux")
	c := Lookup("claude-code")
	f, _ := fx.env.Target(c, "user")
	orig := `{"mcpServers": {"cad-autocad": {"type": "http", "url": "http://old/mcp", "headers": {"X-Trace": "1", "Authorization": "Bearer old"}}}}`
	os.MkdirAll(filepath.Dir(f.Path), 0o755)
	os.WriteFile(f.Path, []byte(orig), 0o600)
	if _, err := Install(f, "cad-autocad", c.URLServer(remoteURL, true), Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	got, _ := entryOf(t, f, "cad-autocad")
	want := Server{Env: map[string]string{}, URL: remoteURL, Headers: map[string]string{"X-Trace": "1", "Authorization": "Bearer ${CAD_MCP_TOKEN}"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := Install(f, "cad-autocad", c.URLServer(remoteURL, false), Options{}); err != nil {
		t.Fatal(err)
	}
	got, _ = entryOf(t, f, "cad-autocad")
	if diff := cmp.Diff(map[string]string{"X-Trace": "1"}, got.Headers); diff != "" {
		t.Errorf("without a token (-want +got):\n%s", diff)
	}
	if IsBridge(got) {
		t.Errorf("a URL entry without the token variable counted as ours")
	}
}

// An entry holds one URL member, its client's: Windsurf reads "serverUrl"
// or "url", so an entry of ours with the other one loses it when install
// writes the URL form, and loses both when it writes the stdio entry
// (Force: without the token variable, the entry cannot be told ours).
func TestURLFormOneURLMember(t *testing.T) {
	fx := newFixture(t, "linux")
	c := Lookup("windsurf")
	f, _ := fx.env.Target(c, "user")
	os.MkdirAll(filepath.Dir(f.Path), 0o755)
	os.WriteFile(f.Path, []byte(`{"mcpServers": {"cad-autocad": {"url": "http://old/mcp", "disabled": false}}}`), 0o600)
	if _, err := Install(f, "cad-autocad", c.URLServer(remoteURL, true), Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(f.Path)
	if diff := cmp.Diff(map[string]string{"serverUrl": "string", "headers": "object", "disabled": "bool"}, entryShape(t, b, f.Key, "cad-autocad")); diff != "" {
		t.Errorf("(-want +got):\n%s\n%s", diff, b)
	}
	os.WriteFile(f.Path, []byte(`{"mcpServers": {"cad-autocad": {"url": "http://old/mcp", "serverUrl": "http://old/mcp", "disabled": false}}}`), 0o600)
	if _, err := Install(f, "cad-autocad", bridge, Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(f.Path)
	if diff := cmp.Diff(map[string]string{"command": "string", "args": "array", "env": "object", "disabled": "bool"}, entryShape(t, b, f.Key, "cad-autocad")); diff != "" {
		t.Errorf("turned stdio (-want +got):\n%s\n%s", diff, b)
	}
}

// A URL entry is ours only when it sends exactly our token variable: a
// user's own remote server whose header names another variable that
// starts alike (CAD_MCP_TOKEN_LAPTOP) is not, or doctor would send it
// CAD_MCP_TOKEN's value.
func TestURLFormOursByExactVariable(t *testing.T) {
	for _, tt := range []struct {
		s    Server
		ours bool
	}{
		{Server{URL: remoteURL, Headers: map[string]string{"Authorization": "Bearer ${CAD_MCP_TOKEN}"}}, true},
		{Server{URL: remoteURL, Headers: map[string]string{"Authorization": "Bearer ${env:CAD_MCP_TOKEN}"}}, true},
		{Server{URL: remoteURL, Headers: map[string]string{"Authorization": "Bearer {env:CAD_MCP_TOKEN}"}}, true},
		{Server{URL: remoteURL, TokenEnv: "CAD_MCP_TOKEN"}, true},
		{Server{URL: remoteURL, Headers: map[string]string{"Authorization": "Bearer ${CAD_MCP_TOKEN_LAPTOP}"}}, false},
		{Server{URL: remoteURL, Headers: map[string]string{"Authorization": "Bearer ${env:MY_CAD_MCP_TOKEN}"}}, false},
		{Server{URL: remoteURL, Headers: map[string]string{"Authorization": "Basic ${CAD_MCP_TOKEN}:x"}}, false},
		{Server{URL: remoteURL, TokenEnv: "CAD_MCP_TOKEN_2"}, false},
	} {
		if got := IsBridge(tt.s); got != tt.ours {
			t.Errorf("IsBridge(%+v) = %v, want %v", tt.s, got, tt.ours)
		}
	}
}

// An entry of the name install writes that is another program's (the
// user's own server, a command or a URL of their own) is not replaced:
// install refuses and leaves the file as it was, unless Force. Entries of
// ours in any form (stdio, connect by this executable, the URL form with
// the token variable, the same URL without it) are updated as before.
func TestInstallKeepsSomeoneElsesEntry(t *testing.T) {
	theirs := []Server{
		{Command: "npx", Args: []string{"-y", "@github/mcp"}, Env: map[string]string{"GITHUB_TOKEN": "x"}},
		{URL: "https://api.example/mcp", Headers: map[string]string{"Authorization": "Bearer ${GITHUB_PAT}"}},
		{URL: "https://api.example/mcp"},
	}
	self := "/opt/tools/cad-relay" // this executable, renamed: an entry running it is ours
	for _, c := range Clients {
		f, ok := userFile(t, c)
		if !ok {
			continue
		}
		ours := []Server{bridge, {Command: self, Args: []string{"connect", remoteURL}}, {Command: self, Args: []string{"--port", "9000"}}}
		if c.URLForm != nil {
			ours = append(ours, c.URLServer(remoteURL, true))
		}
		for _, old := range theirs {
			if old.URL != "" && c.URLForm == nil {
				continue
			}
			for _, s := range ours {
				os.MkdirAll(filepath.Dir(f.Path), 0o755)
				os.Remove(f.Path)
				if _, err := install(f, "github", old, Options{}); err != nil {
					t.Fatalf("%s: writing the user's entry: %v", c.ID, err)
				}
				orig, _ := os.ReadFile(f.Path)
				_, err := Install(f, "github", s, Options{Self: self})
				if err == nil || !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), "--force") || errors.Is(err, ErrUnparseable) {
					t.Errorf("%s: %+v over the user's %+v: %v, want a refusal naming --force", c.ID, s, old, err)
				}
				if b, _ := os.ReadFile(f.Path); string(b) != string(orig) {
					t.Errorf("%s: the file changed:\n%s", c.ID, b)
				}
				if r, err := Install(f, "github", s, Options{Self: self, Force: true}); err != nil || r.Action != "updated" {
					t.Errorf("%s: with Force: %+v %v", c.ID, r, err)
				}
			}
		}
		// Ours, in every form, one over the other.
		os.Remove(f.Path)
		all := append(ours, bridge)
		if c.URLForm != nil {
			// A URL entry without the token variable is told ours by its
			// URL alone: the same URL again, with the token or without.
			all = append(all, c.URLServer(remoteURL, false), c.URLServer(remoteURL, true), c.URLServer(remoteURL, false), c.URLServer(remoteURL, true), bridge)
		}
		for _, s := range all {
			if _, err := Install(f, "cad-autocad", s, Options{Self: self}); err != nil {
				t.Errorf("%s: %+v over an entry of ours: %v", c.ID, s, err)
			}
		}
	}
}

// OpenCode's schema is strict (McpLocal: type, command, environment,
// enabled, timeout, cwd; McpRemote: type, url, enabled, headers, oauth,
// timeout; packages/opencode/src/config/config.ts): an entry holding a
// member of the other form makes it refuse the whole file. An entry of
// ours switched between the forms keeps the user's members both take and
// loses those only the other form takes ("oauth": false, which users add
// to a remote entry to stop OpenCode's OAuth detection, and "cwd").
func TestOpenCodeSwitchKeepsItsSchema(t *testing.T) {
	allowed := map[string]map[string]bool{
		"local":  {"type": true, "command": true, "environment": true, "enabled": true, "timeout": true, "cwd": true},
		"remote": {"type": true, "url": true, "enabled": true, "headers": true, "oauth": true, "timeout": true},
	}
	c := Lookup("opencode")
	fx := newFixture(t, "linux")
	f, _ := fx.env.Target(c, "user")
	os.MkdirAll(filepath.Dir(f.Path), 0o755)
	check := func(step string, wantKeys ...string) {
		t.Helper()
		b, _ := os.ReadFile(f.Path)
		var doc map[string]map[string]map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v\n%s", step, err, b)
		}
		entry := doc["mcp"]["cad-autocad"]
		typ, _ := entry["type"].(string)
		var got []string
		for k := range entry {
			got = append(got, k)
			if !allowed[typ][k] {
				t.Errorf("%s: OpenCode refuses a %q entry with %q:\n%s", step, typ, k, b)
			}
		}
		if diff := cmp.Diff(wantKeys, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
			t.Errorf("%s: members (-want +got):\n%s", step, diff)
		}
	}
	os.WriteFile(f.Path, []byte(`{"mcp": {"cad-autocad": {"type": "remote", "url": "`+remoteURL+`", "headers": {"Authorization": "Bearer {env:CAD_MCP_TOKEN}"}, "oauth": false, "enabled": true, "timeout": 9000}}}`), 0o600)
	if _, err := Install(f, "cad-autocad", bridge, Options{}); err != nil {
		t.Fatal(err)
	}
	check("URL turned stdio", "type", "command", "environment", "enabled", "timeout")
	os.WriteFile(f.Path, []byte(`{"mcp": {"cad-autocad": {"type": "local", "command": ["/x/mcp-bridge"], "cwd": "/tmp", "enabled": true}}}`), 0o600)
	if _, err := Install(f, "cad-autocad", c.URLServer(remoteURL, true), Options{}); err != nil {
		t.Fatal(err)
	}
	check("stdio turned URL", "type", "url", "headers", "enabled")
}

// doctor and install read an entry's members as its client does, by
// exact name (JavaScript's JSON.parse): Go's case-insensitive matching
// would take "URL" for "url" (a second URL, the last one read, which the
// client never uses) or "Command" for "command".
func TestEntryMembersCaseSensitive(t *testing.T) {
	src := `{"mcpServers": {
		"remote": {"url": "https://mine/mcp", "URL": "https://elsewhere/mcp", "headers": {"Authorization": "Bearer ${CAD_MCP_TOKEN}"}},
		"stdio": {"command": "npx", "Command": "/opt/mcp-bridge", "ENV": {"CAD_MCP_PORT": "1"}}
	}}`
	d, err := parseJSONC([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	servers := jsonServers(d, d.lookup([]string{"mcpServers"}))
	if got := servers["remote"].URL; got != "https://mine/mcp" {
		t.Errorf("the URL entry's URL read as %q", got)
	}
	if s := servers["stdio"]; s.Command != "npx" || IsBridge(s) {
		t.Errorf("the stdio entry read as %+v (ours: %v)", s, IsBridge(s))
	}
}

// TestUninstallKeepsSomeoneElsesEntry: uninstall --name NAME (or
// uninstall --client all with the default name) where NAME is a server of
// the user's own, running another program or naming another URL, refuses
// and leaves the file as it was, unless Force; entries of ours, in every
// form, go.
func TestUninstallKeepsSomeoneElsesEntry(t *testing.T) {
	self := "/opt/tools/cad-relay"
	for _, c := range Clients {
		f, ok := userFile(t, c)
		if !ok {
			continue
		}
		theirs := []Server{{Command: "npx", Args: []string{"-y", "@acme/cad-mcp"}}}
		ours := []Server{bridge, {Command: self, Args: []string{"--port", "9000"}}}
		if c.URLForm != nil {
			theirs = append(theirs, Server{URL: "https://api.example/mcp", Headers: map[string]string{"Authorization": "Bearer ${ACME}"}, TokenEnv: "ACME"})
			// With the token, or with no credentials at all (install --url
			// without --token-file).
			ours = append(ours, c.URLServer(remoteURL, true), c.URLServer(remoteURL, false))
		}
		os.MkdirAll(filepath.Dir(f.Path), 0o755)
		for _, old := range theirs {
			os.Remove(f.Path)
			if _, err := install(f, "cad-autocad", old, Options{}); err != nil {
				t.Fatalf("%s: writing the user's entry: %v", c.ID, err)
			}
			orig, _ := os.ReadFile(f.Path)
			_, err := Uninstall(f, "cad-autocad", Options{Self: self})
			if !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), "--force") {
				t.Errorf("%s: uninstall of the user's %+v: %v, want a refusal naming --force", c.ID, old, err)
			}
			if b, _ := os.ReadFile(f.Path); string(b) != string(orig) {
				t.Errorf("%s: the file changed:\n%s", c.ID, b)
			}
			if r, err := Uninstall(f, "cad-autocad", Options{Self: self, Force: true}); err != nil || r.Action != "removed" {
				t.Errorf("%s: with Force: %+v %v", c.ID, r, err)
			}
		}
		for _, s := range ours {
			os.Remove(f.Path)
			if _, err := Install(f, "cad-autocad", s, Options{Self: self}); err != nil {
				t.Fatalf("%s: %v", c.ID, err)
			}
			if r, err := Uninstall(f, "cad-autocad", Options{Self: self}); err != nil || r.Action != "removed" {
				t.Errorf("%s: uninstall of ours %+v: %+v %v", c.ID, s, r, err)
			}
		}
	}
}

// userFile is c's user-scope file in a fixture of its own, on the OS c
// runs on (Linux for the clients that run everywhere); false for a client
// with no file.
func userFile(t *testing.T, c *Client) (File, bool) {
	t.Helper()
	goos := "linux"
	if c.OnlyOS != "" {
		goos = c.OnlyOS
	}
	return newFixture(t, goos).env.Target(c, "user")
}

// TestYAMLKeepsUsersRemoteServer: a remote server of the user's own in
// Continue's (url) or Goose's (uri) file, under the name install writes,
// is not taken for an empty entry and replaced: install refuses it, as
// for a JSON client's URL entry, and leaves the file as it was.
func TestYAMLKeepsUsersRemoteServer(t *testing.T) {
	for id, src := range map[string]string{
		"continue": "name: Local Config\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: github\n    type: streamable-http\n    url: https://api.example/mcp\n",
		"goose":    "extensions:\n  github:\n    enabled: true\n    name: github\n    type: streamable_http\n    uri: https://api.example/mcp\n    timeout: 300\n",
	} {
		fx := newFixture(t, "linux")
		f, _ := fx.env.Target(Lookup(id), "user")
		os.MkdirAll(filepath.Dir(f.Path), 0o755)
		if err := os.WriteFile(f.Path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Install(f, "github", bridge, Options{})
		if !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), "https://api.example/mcp") {
			t.Errorf("%s: the bridge over the user's remote server: %v, want a refusal naming its URL", id, err)
		}
		if b, _ := os.ReadFile(f.Path); string(b) != src {
			t.Errorf("%s: the file changed:\n%s", id, b)
		}
	}
}
