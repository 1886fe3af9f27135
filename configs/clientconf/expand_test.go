package clientconf

import (
	"os"
	"strings"
	"testing"
)

// TestInstallRefusesWhatTheClientFillsIn: install --client gemini --url
// 'https://h/mcp/$GITHUB_TOKEN' wrote a URL that Gemini CLI sends with
// the value of GITHUB_TOKEN in it. Install refuses it, says who fills
// what in and where it would go, and writes nothing.
func TestInstallRefusesWhatTheClientFillsIn(t *testing.T) {
	c := Lookup("gemini")
	f, ok := userFile(t, c)
	if !ok {
		t.Fatal("no gemini file")
	}
	_, err := Install(f, "cad", c.URLServer("https://h.example/mcp/$GITHUB_TOKEN", true), Options{})
	want := "Gemini CLI replaces $GITHUB_TOKEN with the value of the environment variable GITHUB_TOKEN, so the URL would carry it to h.example"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("install: %v, want %q", err, want)
	}
	if _, err := os.Stat(f.Path); !os.IsNotExist(err) {
		t.Errorf("the file was written: %v", err)
	}
}

// TestExpansionEdges: what each client fills in, one character either
// side of its syntax, in the URL of its URL entry or in connect's
// arguments; for each client, the header install writes is not refused.
func TestExpansionEdges(t *testing.T) {
	for _, tc := range []struct {
		client  string
		refused []string
		kept    []string
	}{
		// \w+ after $: a digit first too; ${…} needs one character.
		{"gemini", []string{"$A", "$1", "$_", "${A}", "${A:-x}", "${a.b}", "x$Ay"}, []string{"$", "$-", "$/", "${}", "${A", "{env:A}", "{file:x}", "%A%"}},
		{"copilot-cli", []string{"$A", "${A}", "${A:-}"}, []string{"$", "$.", "${}", "{env:A}", "%A%"}},
		{"claude-code", []string{"${A}", "${A:-x}", "${:}"}, []string{"$A", "$", "${}", "${A", "{env:A}", "%A%"}},
		// CodeBuddy: a name of capitals, digits and _, not a digit first.
		{"codebuddy", []string{"${A}", "${_}", "${A_1}", "${A:-x}", "${A:-}", "${A:-}}"}, []string{"${a}", "${Ab}", "${1A}", "${}", "${A-x}", "${A", "$A", "{env:A}", "%A%"}},
		{"vscode", []string{"${env:A}", "${workspaceFolder}", "${input:x}", "${}"}, []string{"$A", "${A", "$ {A}", "{env:A}", "%A%"}},
		{"vscode-insiders", []string{"${env:A}"}, []string{"$A"}},
		{"cursor", []string{"${env:A}", "${userHome}", "${/}"}, []string{"$A", "${A", "{env:A}", "%A%"}},
		{"windsurf", []string{"${env:A}", "${file:/x}", "${A}"}, []string{"$A", "${A", "{file:/x}", "%A%"}},
		// OpenCode: {env:…} and {file:…} with one character at least.
		{"opencode", []string{"{env:A}", "{file:x}", "{env:{env:A}"}, []string{"{env:}", "{file:}", "{env:A", "env:A}", "{ env:A}", "${A}", "$A", "%A%"}},
		{"codex", nil, []string{"$A", "${A}", "${env:A}", "{env:A}", "{file:x}", "%A%"}},
		// Nothing says what Cline fills in: every syntax, and %NAME%.
		{"cline", []string{"$A", "${A}", "{env:A}", "{file:x}", "%A%", "%_1%"}, []string{"$", "%A", "%%", "%1%", "% A%", "%A %"}},
	} {
		c := Lookup(tc.client)
		entry := func(u string) Server {
			if c.URLForm != nil {
				return c.URLServer(u, true)
			}
			return Server{Command: "/opt/mcp-bridge", Args: []string{"connect", u}}
		}
		if err := c.CheckExpansion(entry(remoteURL)); err != nil {
			t.Errorf("%s: the entry install writes: %v", c.ID, err)
		}
		for _, s := range tc.refused {
			u := remoteURL + "/" + s
			if err := c.CheckExpansion(entry(u)); err == nil || !strings.Contains(err.Error(), c.Name) || !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q: %v, want a refusal naming %s", c.ID, u, err, c.Name)
			}
		}
		for _, s := range tc.kept {
			u := remoteURL + "/" + s
			if err := c.CheckExpansion(entry(u)); err != nil {
				t.Errorf("%s: %q refused: %v", c.ID, u, err)
			}
		}
		// The command itself: a binary under a folder whose name the
		// client fills in ($HOME, ${env:X}) would not be the one started.
		for _, s := range tc.refused {
			cmd := "/home/u/" + s + "/mcp-bridge"
			if err := c.CheckExpansion(Server{Command: cmd}); err == nil || !strings.Contains(err.Error(), "the command") || !strings.Contains(err.Error(), s) {
				t.Errorf("%s: command %q: %v, want a refusal naming the command", c.ID, cmd, err)
			}
		}
		for _, s := range tc.kept {
			cmd := "/home/u/" + s + "/mcp-bridge"
			if err := c.CheckExpansion(Server{Command: cmd}); err != nil {
				t.Errorf("%s: command %q refused: %v", c.ID, cmd, err)
			}
		}
	}
	// A header of the user's, and the token header in another client's
	// syntax, are checked as the rest.
	gemini := Lookup("gemini")
	if err := gemini.CheckExpansion(Server{URL: remoteURL, Headers: map[string]string{"X-Team": "$TEAM"}}); err == nil || !strings.Contains(err.Error(), "X-Team header") {
		t.Errorf("a header naming $TEAM: %v", err)
	}
	if err := Lookup("claude-code").CheckExpansion(Server{URL: remoteURL, Headers: map[string]string{"Authorization": "Bearer ${env:" + TokenVar + "}"}}); err == nil {
		t.Error("Claude Code fills in ${env:CAD_MCP_TOKEN} too: not refused")
	}
	if err := Lookup("cline").CheckExpansion(Server{Command: "/opt/mcp-bridge", Env: map[string]string{"CAD_MCP_HOST": "%HOST%"}}); err == nil || !strings.Contains(err.Error(), "CAD_MCP_HOST") {
		t.Errorf("an environment value naming %%HOST%%: %v", err)
	}
}

// TestExpand: the URL a client sends, from doctor's environment: set
// variables filled in, unset ones as the client leaves them (as written,
// or "" for OpenCode and VS Code), defaults used; a file's content and
// the client's own values left as written and said to be unknown.
func TestExpand(t *testing.T) {
	env := map[string]string{"A": "1", "B": "2", "E": ""}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		client, in, want string
		unknown          int
	}{
		{"gemini", "https://h/$A/${B}/${U:-d}/$U/${U}/${A:-d}/$E", "https://h/1/2/d/$U/${U}/1/$E", 0},
		{"claude-code", "https://h/$A/${A}/${U}/${U:-}", "https://h/$A/1/${U}/", 0},
		{"codebuddy", "https://h/$A/${A}/${U}/${U:-d}/${a}/${A:-d}", "https://h/$A/1/${U}/d/${a}/1", 0},
		{"vscode", "https://h/${env:A}/${env:U}/${workspaceFolder}", "https://h/1//${workspaceFolder}", 1},
		{"windsurf", "https://h/${env:A}/${file:/t}", "https://h/1/${file:/t}", 1},
		{"opencode", "https://h/{env:A}/{env:U}/{file:t}/${A}", "https://h/1//{file:t}/${A}", 1},
		{"codex", "https://h/$A/${A}", "https://h/$A/${A}", 0},
	} {
		got, refs := Lookup(tc.client).Expand(tc.in, getenv)
		unknown := 0
		for _, r := range refs {
			if !r.Known {
				unknown++
			}
		}
		if got != tc.want || unknown != tc.unknown {
			t.Errorf("%s %q: %q with %d unknown, want %q with %d", tc.client, tc.in, got, unknown, tc.want, tc.unknown)
		}
	}
}

// FuzzExpansion: for every client, a URL install accepts is the URL the
// client sends whatever its environment holds (every variable set); one
// it refuses names a reference that is in the URL.
func FuzzExpansion(f *testing.F) {
	for _, s := range []string{"h/mcp", "h/$A", "h/${A:-b}", "h/{env:A}", "h/{file:x}", "h/%A%", "h/${", "h/$", "h/${}", "h/{env:{env:A}}", "h/%%A%%"} {
		f.Add(s)
	}
	all := func(string) string { return "VALUE" }
	f.Fuzz(func(t *testing.T, rest string) {
		u := "https://" + rest
		for _, c := range Clients {
			s := Server{Command: "/opt/mcp-bridge", Args: []string{"connect", u}}
			if c.URLForm != nil {
				s = c.URLServer(u, true)
			}
			err := c.CheckExpansion(s)
			got, refs := c.Expand(u, all)
			switch {
			case err == nil && (got != u || len(refs) > 0):
				t.Fatalf("%s: %q accepted, but the client sends %q", c.ID, u, got)
			case err != nil && (len(refs) == 0 || !strings.Contains(u, refs[0].Text)):
				t.Fatalf("%s: %q refused (%v) with no reference in it", c.ID, u, err)
			}
		}
	})
}
