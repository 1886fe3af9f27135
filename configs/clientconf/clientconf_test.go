package clientconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"

	"github.com/goccy/go-yaml"
	"github.com/google/go-cmp/cmp"
)

// fixture is a machine with empty per-user folders: every variable a
// client's location depends on points into one temporary directory.
type fixture struct {
	root string
	vars map[string]string
	env  Env
}

func newFixture(t *testing.T, goos string) *fixture {
	t.Helper()
	root := testdir.New(t)
	fx := &fixture{root: root, vars: map[string]string{
		"HOME":            filepath.Join(root, "home"),
		"USERPROFILE":     filepath.Join(root, "profile"),
		"APPDATA":         filepath.Join(root, "profile", "AppData", "Roaming"),
		"LOCALAPPDATA":    filepath.Join(root, "profile", "AppData", "Local"),
		"XDG_CONFIG_HOME": filepath.Join(root, "xdg"),
	}}
	fx.env = Env{OS: goos, Getenv: func(k string) string { return fx.vars[k] }, Dir: filepath.Join(root, "project")}
	return fx
}

// rel is p relative to the fixture root, with forward slashes.
// put writes content at rel (slash-separated, under the fixture's root),
// making its folders.
func (fx *fixture) put(rel, content string) {
	p := filepath.Join(fx.root, filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(content), 0o600)
}

func (fx *fixture) rel(p string) string {
	r, err := filepath.Rel(fx.root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// The user-scope file per client and OS layout. Windows: USERPROFILE is
// the home (HOME is a stray MSYS2 one); Linux: XDG_CONFIG_HOME is honoured.
var wantUserFile = map[string]map[string]string{
	"claude-desktop":  {"windows": "profile/AppData/Roaming/Claude/claude_desktop_config.json", "darwin": "home/Library/Application Support/Claude/claude_desktop_config.json", "linux": "xdg/Claude/claude_desktop_config.json"},
	"claude-code":     {"windows": "profile/.claude.json", "darwin": "home/.claude.json", "linux": "home/.claude.json"},
	"codebuddy":       {"windows": "profile/.codebuddy/.mcp.json", "darwin": "home/.codebuddy/.mcp.json", "linux": "home/.codebuddy/.mcp.json"},
	"cursor":          {"windows": "profile/.cursor/mcp.json", "darwin": "home/.cursor/mcp.json", "linux": "home/.cursor/mcp.json"},
	"vscode":          {"windows": "profile/AppData/Roaming/Code/User/mcp.json", "darwin": "home/Library/Application Support/Code/User/mcp.json", "linux": "xdg/Code/User/mcp.json"},
	"vscode-insiders": {"windows": "profile/AppData/Roaming/Code - Insiders/User/mcp.json", "darwin": "home/Library/Application Support/Code - Insiders/User/mcp.json", "linux": "xdg/Code - Insiders/User/mcp.json"},
	"windsurf":        {"windows": "profile/.codeium/windsurf/mcp_config.json", "darwin": "home/.codeium/windsurf/mcp_config.json", "linux": "home/.codeium/windsurf/mcp_config.json"},
	"cline":           {"windows": "profile/AppData/Roaming/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "darwin": "home/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "linux": "xdg/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"},
	"gemini":          {"windows": "profile/.gemini/settings.json", "darwin": "home/.gemini/settings.json", "linux": "home/.gemini/settings.json"},
	"codex":           {"windows": "profile/.codex/config.toml", "darwin": "home/.codex/config.toml", "linux": "home/.codex/config.toml"},
	"zed":             {"windows": "profile/AppData/Roaming/Zed/settings.json", "darwin": "home/.config/zed/settings.json", "linux": "xdg/zed/settings.json"},
	"visualstudio":    {"windows": "profile/.mcp.json"}, // Visual Studio runs on Windows only
	"junie":           {"windows": "profile/.junie/mcp/mcp.json", "darwin": "home/.junie/mcp/mcp.json", "linux": "home/.junie/mcp/mcp.json"},
	"jetbrains":       {}, // AI Assistant takes pasted JSON: no file
	"copilot-cli":     {"windows": "profile/.copilot/mcp-config.json", "darwin": "home/.copilot/mcp-config.json", "linux": "home/.copilot/mcp-config.json"},
	"roo-code":        {"windows": "profile/AppData/Roaming/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json", "darwin": "home/Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json", "linux": "xdg/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json"},
	"cline-cursor":    {"windows": "profile/AppData/Roaming/Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "darwin": "home/Library/Application Support/Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "linux": "xdg/Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"},
	"cline-windsurf":  {"windows": "profile/AppData/Roaming/Windsurf/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "darwin": "home/Library/Application Support/Windsurf/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "linux": "xdg/Windsurf/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"},
	"kiro":            {"windows": "profile/.kiro/settings/mcp.json", "darwin": "home/.kiro/settings/mcp.json", "linux": "home/.kiro/settings/mcp.json"},
	"amazonq":         {"windows": "profile/.aws/amazonq/mcp.json", "darwin": "home/.aws/amazonq/mcp.json", "linux": "home/.aws/amazonq/mcp.json"},
	"trae":            {"windows": "profile/AppData/Roaming/Trae/User/mcp.json", "darwin": "home/Library/Application Support/Trae/User/mcp.json", "linux": "xdg/Trae/User/mcp.json"},
	"lmstudio":        {"windows": "profile/.lmstudio/mcp.json", "darwin": "home/.lmstudio/mcp.json", "linux": "home/.lmstudio/mcp.json"},
	"warp":            {"windows": "profile/.warp/.mcp.json", "darwin": "home/.warp/.mcp.json", "linux": "home/.warp/.mcp.json"},
	"antigravity":     {"windows": "profile/.gemini/config/mcp_config.json", "darwin": "home/.gemini/config/mcp_config.json", "linux": "home/.gemini/config/mcp_config.json"},
	"opencode":        {"windows": "xdg/opencode/opencode.json", "darwin": "xdg/opencode/opencode.json", "linux": "xdg/opencode/opencode.json"},
	"continue":        {"windows": "profile/.continue/config.yaml", "darwin": "home/.continue/config.yaml", "linux": "home/.continue/config.yaml"},
	"goose":           {"windows": "profile/AppData/Roaming/Block/goose/config/config.yaml", "darwin": "home/.config/goose/config.yaml", "linux": "xdg/goose/config.yaml"},
}

var bridge = Server{Command: filepath.Join("opt", "mcp-bridge", "mcp-bridge"), Args: []string{"--log-file", "/var/log/b & c.log"}, Env: map[string]string{"CAD_MCP_HOST": "127.0.0.1", "CAD_MCP_PORT": "8080"}}

// existing is a user's file: another server, comments, a trailing comma
// and a field nobody here knows.
func existing(c *Client) string {
	if c.Format == tomlFile {
		return `# my codex settings
model = "o3"

[mcp_servers.other]
command = "npx"
args = ["-y", "other-server"] # keep me

[profiles.fast]
model = "o4-mini"
`
	}
	switch c.ID {
	case "goose":
		return `# my goose settings
GOOSE_PROVIDER: openai   # keep me

extensions:
  # the developer tools
  developer:
    enabled: true
    name: developer
    type: builtin

  other:
    args: ["-y", 'other-server']
    cmd: npx
    enabled: true
    envs: {}
    name: other
    type: stdio
GOOSE_MODEL:  "gpt-4o"
`
	case "continue":
		return `# my continue config
name: Local Config   # keep me
version: 1.0.0
schema: v1

models:
  - name: m
    provider: ollama
mcpServers:
  # the other server
  - name: other
    command: npx
    args: ["-y", 'other-server']
rules: []
`
	}
	key := c.ServersKey()
	if c.Format != jsoncFile {
		return `{
    "theme": "dark",
    "` + key + `": {
        "other": {
            "command": "npx",
            "args": ["-y", "other-server"],
            "unknownField": {"x": [1, 2]}
        }
    },
    "zzz": true
}
`
	}
	return withComments(key)
}

// withComments is a user's JSONC file.
func withComments(key string) string {
	return `{
    // my settings
    "theme": "dark", /* block comment */
    "` + key + `": {
        "other": {
            "command": "npx",
            "args": ["-y", "other-server"], // keep me
            "unknownField": {"x": [1, 2]}
        },
    },
    "zzz": true
}
`
}

// entryOf reads back the server install wrote.
func entryOf(t *testing.T, f File, name string) (Server, bool) {
	t.Helper()
	b, err := os.ReadFile(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Client.Format == yamlFile {
		s, err := yamlServers(b, f.Client)
		if err != nil {
			t.Fatalf("reading back %s: %v\n%s", f.Path, err, b)
		}
		got, ok := s[name]
		return got, ok
	}
	if f.Client.Format == tomlFile {
		s, err := tomlServers(b)
		if err != nil {
			t.Fatalf("reading back %s: %v\n%s", f.Path, err, b)
		}
		got, ok := s[name]
		return got, ok
	}
	d, err := parseJSONC(b)
	if err != nil {
		t.Fatalf("reading back %s: %v\n%s", f.Path, err, b)
	}
	got, ok := jsonServers(d, d.lookup(f.Key))[name]
	return got, ok
}

// wantEntryShape is each member of a new entry and its JSON type, as the
// client's documentation has them.
func wantEntryShape(c *Client) map[string]string {
	shape := map[string]string{"command": "string", "args": "array", "env": "object"}
	switch c.ID {
	case "opencode": // "type": "local", the command and its arguments in one array
		return map[string]string{"type": "local", "command": "array", "environment": "object"}
	case "copilot-cli": // "type": "local", and the tools it may call
		shape["type"], shape["tools"] = "local", "array"
	case "claude-code", "codebuddy", "cursor", "vscode", "vscode-insiders", "visualstudio":
		shape["type"] = "stdio"
	case "continue": // a list item, named
		shape["name"] = "string"
	case "goose": // an extension: type stdio, cmd, args, envs, enabled, a timeout
		return map[string]string{"name": "string", "type": "stdio", "cmd": "string", "args": "array", "envs": "object", "enabled": "bool", "timeout": "number"}
	}
	return shape
}

// entryShape reads the entry name under key in a JSON file: each member
// with its JSON type ("type" with its value).
func entryShape(t *testing.T, b []byte, key []string, name string) map[string]string {
	t.Helper()
	d, err := parseJSONC(b)
	if err != nil {
		t.Fatal(err)
	}
	var entry map[string]any
	if n := d.lookup(append(append([]string(nil), key...), name)); n == nil || d.decode(n, &entry) != nil {
		t.Fatalf("no entry %s in\n%s", name, b)
	}
	return shapeOf(entry)
}

// shapeOf is each member of an entry with its type: "string" ("type"
// with its value), "array", "object", "bool" or "number".
func shapeOf(entry map[string]any) map[string]string {
	out := map[string]string{}
	for k, v := range entry {
		switch v := v.(type) {
		case string:
			out[k] = "string"
			if k == "type" {
				out[k] = v
			}
		case []any:
			out[k] = "array"
		case map[string]any, yaml.MapSlice:
			out[k] = "object"
		case bool:
			out[k] = "bool"
		case uint64, int64, int, float64:
			out[k] = "number"
		default:
			out[k] = fmt.Sprintf("%T", v)
		}
	}
	return out
}

// yamlEntryShape is entryShape for a YAML client's file.
func yamlEntryShape(t *testing.T, c *Client, b []byte, name string) map[string]string {
	t.Helper()
	d, err := parseYAML(b)
	if err != nil {
		t.Fatal(err)
	}
	entry, _, err := yamlEntry(c, d, name)
	if err != nil || entry == nil {
		t.Fatalf("no entry %s (%v) in\n%s", name, err, b)
	}
	members := map[string]any{}
	for _, it := range entry {
		members[fmt.Sprint(it.Key)] = it.Value
	}
	return shapeOf(members)
}

func TestInstallUninstallEveryClientEveryLayout(t *testing.T) {
	for _, c := range Clients {
		for _, goos := range []string{"windows", "darwin", "linux"} {
			t.Run(c.ID+"/"+goos, func(t *testing.T) {
				fx := newFixture(t, goos)
				f, ok := fx.env.Target(c, "user")
				if want := wantUserFile[c.ID][goos]; want == "" {
					if ok {
						t.Fatalf("%s has no user file on %s, and install would write %s", c.Name, goos, f.Path)
					}
					return
				}
				if !ok {
					t.Fatal("no target")
				}
				if got := fx.rel(f.Path); got != wantUserFile[c.ID][goos] {
					t.Fatalf("file %q, want %q", got, wantUserFile[c.ID][goos])
				}

				// A new file.
				r, err := Install(f, "cad-autocad", bridge, Options{})
				if err != nil || r.Action != "added" || r.Backup != "" {
					t.Fatalf("new file: %+v, %v", r, err)
				}
				if got, _ := entryOf(t, f, "cad-autocad"); !cmp.Equal(got, bridge) {
					t.Fatalf("new file holds %+v", got)
				}
				if c.Format == yamlFile {
					b, _ := os.ReadFile(f.Path)
					if diff := cmp.Diff(wantEntryShape(c), yamlEntryShape(t, c, b, "cad-autocad")); diff != "" {
						t.Errorf("the entry is not in %s's shape (-want +got):\n%s", c.Name, diff)
					}
				} else if c.Format != tomlFile {
					b, _ := os.ReadFile(f.Path)
					if bytes.Contains(b, []byte(`\u0026`)) {
						t.Errorf("HTML-escaped JSON:\n%s", b)
					}
					if diff := cmp.Diff(wantEntryShape(c), entryShape(t, b, f.Key, "cad-autocad")); diff != "" {
						t.Errorf("the entry is not in %s's shape (-want +got):\n%s", c.Name, diff)
					}
				}
				r, _ = Install(f, "cad-autocad", bridge, Options{})
				if r.Action != "unchanged" {
					t.Fatalf("second install into the new file: %s", r.Action)
				}
				// The file install made, holding nothing else, goes with
				// the entry: nothing is left beside the client's files.
				r, _ = Uninstall(f, "cad-autocad", Options{})
				if _, err := os.Lstat(f.Path); !errors.Is(err, os.ErrNotExist) || r.Action != "removed" || !r.Deleted || r.Backup != "" {
					t.Fatalf("uninstall from the new file: %+v, the file: %v", r, err)
				}

				// A file with other servers, comments and unknown fields.
				orig := existing(c)
				if err := os.WriteFile(f.Path, []byte(orig), 0o600); err != nil {
					t.Fatal(err)
				}
				r, err = Install(f, "cad-autocad", bridge, Options{})
				if err != nil || r.Action != "added" {
					t.Fatalf("install into an existing file: %+v %v", r, err)
				}
				after, _ := os.ReadFile(f.Path)
				for _, keep := range []string{"# the other server", "# the developer tools", "GOOSE_PROVIDER: openai   # keep me", `GOOSE_MODEL:  "gpt-4o"`, "# my codex settings", "// my settings", "/* block comment */", "// keep me", "# keep me", `"unknownField": {"x": [1, 2]}`, `[profiles.fast]`} {
					if strings.Contains(orig, keep) && !strings.Contains(string(after), keep) {
						t.Errorf("lost %q:\n%s", keep, after)
					}
				}
				if other, ok := entryOf(t, f, "other"); !ok || other.Command != "npx" {
					t.Errorf("the other server is gone or changed: %+v", other)
				}
				if got, _ := entryOf(t, f, "cad-autocad"); !cmp.Equal(got, bridge) {
					t.Errorf("entry %+v", got)
				}
				if b, err := os.ReadFile(r.Backup); err != nil || string(b) != orig {
					t.Errorf("backup %s: %v\n%s", r.Backup, err, b)
				}

				// The second run changes nothing.
				st1, _ := os.Stat(f.Path)
				r, _ = Install(f, "cad-autocad", bridge, Options{})
				if again, _ := os.ReadFile(f.Path); r.Action != "unchanged" || !bytes.Equal(again, after) {
					t.Fatalf("second run: %s\n%s", r.Action, again)
				}
				if st2, _ := os.Stat(f.Path); !st2.ModTime().Equal(st1.ModTime()) {
					t.Errorf("an unchanged file was rewritten")
				}

				// An update: a new port, the rest as it was.
				moved := bridge
				moved.Env = map[string]string{"CAD_MCP_HOST": "127.0.0.1", "CAD_MCP_PORT": "9000"}
				r, err = Install(f, "cad-autocad", moved, Options{})
				if err != nil || r.Action != "updated" {
					t.Fatalf("update: %+v %v", r, err)
				}
				if got, _ := entryOf(t, f, "cad-autocad"); got.Env["CAD_MCP_PORT"] != "9000" {
					t.Errorf("updated entry %+v", got)
				}

				// Uninstall gives back the user's file byte for byte.
				r, err = Uninstall(f, "cad-autocad", Options{})
				if err != nil || r.Action != "removed" {
					t.Fatalf("uninstall: %+v %v", r, err)
				}
				if back, _ := os.ReadFile(f.Path); string(back) != orig {
					t.Errorf("uninstall did not restore the file (-want +got):\n%s", cmp.Diff(orig, string(back)))
				}
				r, _ = Uninstall(f, "cad-autocad", Options{})
				if r.Action != "absent" {
					t.Errorf("second uninstall: %s", r.Action)
				}

				// A file that cannot be parsed is left exactly as it is; so
				// is a file with comments for a client that reads strict JSON.
				broken := []string{"{ \"mcpServers\": { oops\n"}
				if c.Format == tomlFile {
					broken = []string{"[mcp_servers.x\ncommand = \"a\"\n"}
				} else if c.Format == yamlFile {
					broken = []string{"a: [1, 2\nb: }\n", c.ServersKey() + ": 3\n", "--- \na: 1\n--- \nb: 2\n"}
				} else if c.Format != jsoncFile {
					broken = append(broken, withComments("mcpServers"))
				}
				for _, broken := range broken {
					os.WriteFile(f.Path, []byte(broken), 0o600)
					os.Remove(f.Path + ".mcp-bridge-backup")
					_, err = Install(f, "cad-autocad", bridge, Options{})
					if !errors.Is(err, ErrUnparseable) || !strings.Contains(err.Error(), f.Path) {
						t.Errorf("broken file: error %v", err)
					}
					if b, _ := os.ReadFile(f.Path); string(b) != broken {
						t.Errorf("broken file changed:\n%s", b)
					}
					if _, err := os.Stat(f.Path + ".mcp-bridge-backup"); err == nil {
						t.Errorf("a backup was written for a file left untouched")
					}
				}
			})
		}
	}
}

func TestClaudeDesktopMSIXWins(t *testing.T) {
	fx := newFixture(t, "windows")
	// A stale classic file exists, and the Store build is installed.
	classic := filepath.Join(fx.vars["APPDATA"], "Claude", "claude_desktop_config.json")
	os.MkdirAll(filepath.Dir(classic), 0o755)
	os.WriteFile(classic, []byte(`{"mcpServers":{}}`), 0o600)
	pkg := filepath.Join(fx.vars["LOCALAPPDATA"], "Packages", "Claude_pzs8sxrjxfjjc")
	os.MkdirAll(pkg, 0o755)
	f, _ := fx.env.Target(Lookup("claude-desktop"), "user")
	want := "profile/AppData/Local/Packages/Claude_pzs8sxrjxfjjc/LocalCache/Roaming/Claude/claude_desktop_config.json"
	if got := fx.rel(f.Path); got != want {
		t.Fatalf("target %s, want %s", got, want)
	}
	if _, err := Install(f, "cad-autocad", bridge, Options{}); err != nil {
		t.Fatal(err)
	}
	if regs, _ := fx.env.Registrations(); len(regs) != 1 || regs[0].File != f.Path || regs[0].Note == "" || regs[0].ShadowedBy != "" {
		t.Errorf("doctor sees %+v", regs)
	}
	// An entry in the classic file is never read while the Store build is
	// installed: doctor must say so.
	os.WriteFile(classic, []byte(`{"mcpServers":{"old":{"command":"C:/x/mcp-bridge.exe"}}}`), 0o600)
	regs, probs := fx.env.Registrations()
	if len(regs) != 2 || regs[1].File != classic || regs[1].ShadowedBy != f.Path {
		t.Errorf("the classic file's entry: %+v %+v", regs, probs)
	}
}

// CodeBuddy reads the first existing of .mcp.json and mcp.json in its
// folder, then ~/.codebuddy.json; $CODEBUDDY_CONFIG_DIR replaces the
// folder ~/.codebuddy, which it then does not read (PathUtils of CodeBuddy
// Code 2.117.0: resolveMcpFilePath, getHomeDir).
func TestCodeBuddyFiles(t *testing.T) {
	c := Lookup("codebuddy")
	for _, tc := range []struct {
		name, dir string
		files     []string
		want      string
	}{
		{"none", "", nil, "home/.codebuddy/.mcp.json"},
		{"mcp.json", "", []string{"home/.codebuddy/mcp.json", "home/.codebuddy.json"}, "home/.codebuddy/mcp.json"},
		{".mcp.json first", "", []string{"home/.codebuddy/.mcp.json", "home/.codebuddy/mcp.json"}, "home/.codebuddy/.mcp.json"},
		{".codebuddy.json", "", []string{"home/.codebuddy.json"}, "home/.codebuddy.json"},
		{"config dir, none", "cb", []string{"home/.codebuddy/.mcp.json"}, "cb/.mcp.json"},
		{"config dir's mcp.json", "cb", []string{"home/.codebuddy/.mcp.json", "cb/mcp.json"}, "cb/mcp.json"},
		{"config dir empty", "cb", []string{"home/.codebuddy.json"}, "home/.codebuddy.json"},
		{"config dir blank", " ", []string{"home/.codebuddy/mcp.json"}, "home/.codebuddy/mcp.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, "linux")
			switch tc.dir {
			case "":
			case " ":
				fx.vars["CODEBUDDY_CONFIG_DIR"] = " "
			default:
				fx.vars["CODEBUDDY_CONFIG_DIR"] = filepath.Join(fx.root, tc.dir)
				os.MkdirAll(fx.vars["CODEBUDDY_CONFIG_DIR"], 0o755)
			}
			for _, f := range tc.files {
				fx.put(f, `{"mcpServers": {}}`)
			}
			f, _ := fx.env.Target(c, "user")
			if got := fx.rel(f.Path); got != tc.want {
				t.Errorf("target %s, want %s", got, tc.want)
			}
			if tc.dir != "" && tc.dir != " " {
				for _, f := range fx.env.Candidates(c, "user") {
					if strings.HasPrefix(fx.rel(f.Path), "home/.codebuddy/") {
						t.Errorf("with CODEBUDDY_CONFIG_DIR, %s is a candidate: CodeBuddy does not read it", fx.rel(f.Path))
					}
				}
			}
		})
	}
}

// GitHub Copilot CLI reads ~/.copilot/mcp-config.json, or the one in
// $COPILOT_HOME; $XDG_CONFIG_HOME/.copilot is not read (checked with
// `copilot mcp list` 1.0.102, which said "No MCP servers configured" for
// an entry there; github/docs#40682), so install must not write there.
func TestCopilotCLIHome(t *testing.T) {
	for _, goos := range []string{"windows", "darwin", "linux"} {
		fx := newFixture(t, goos)
		c := Lookup("copilot-cli")
		fx.vars["COPILOT_HOME"] = filepath.Join(fx.root, "copilot-home")
		f, _ := fx.env.Target(c, "user")
		if got, want := fx.rel(f.Path), "copilot-home/mcp-config.json"; got != want {
			t.Errorf("%s with COPILOT_HOME: target %s, want %s", goos, got, want)
		}
		delete(fx.vars, "COPILOT_HOME")
		f, _ = fx.env.Target(c, "user")
		if strings.HasPrefix(fx.rel(f.Path), "xdg/") {
			t.Errorf("%s with XDG_CONFIG_HOME: target %s, a file Copilot CLI does not read", goos, fx.rel(f.Path))
		}
	}
}

func TestWindowsPrefersUserprofileOverHome(t *testing.T) {
	fx := newFixture(t, "windows")
	if got := fx.env.Home(); got != fx.vars["USERPROFILE"] {
		t.Errorf("windows home %s", got)
	}
	fx.env.OS = "linux"
	if got := fx.env.Home(); got != fx.vars["HOME"] {
		t.Errorf("linux home %s", got)
	}
	delete(fx.vars, "HOME")
	if got := fx.env.Home(); got != fx.vars["USERPROFILE"] {
		t.Errorf("linux without HOME: %s", got)
	}
}

func TestScopes(t *testing.T) {
	fx := newFixture(t, "linux")
	cc := Lookup("claude-code")
	for scope, want := range map[string]string{"project": "project/.mcp.json", "local": "home/.claude.json"} {
		f, ok := fx.env.Target(cc, scope)
		if !ok || fx.rel(f.Path) != want {
			t.Errorf("claude-code %s: %s", scope, fx.rel(f.Path))
		}
	}
	if _, ok := fx.env.Target(Lookup("claude-desktop"), "project"); ok {
		t.Errorf("Claude Desktop has no project scope")
	}
	// Local scope lands under projects[dir] and keeps the rest of the file.
	f, _ := fx.env.Target(cc, "local")
	os.MkdirAll(filepath.Dir(f.Path), 0o755)
	os.WriteFile(f.Path, []byte(`{"numStartups": 3, "projects": {"/other": {"allowedTools": []}}}`), 0o600)
	if _, err := Install(f, "cad-autocad", bridge, Options{}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	b, _ := os.ReadFile(f.Path)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	proj := doc["projects"].(map[string]any)
	if _, ok := proj[fx.env.Dir].(map[string]any)["mcpServers"].(map[string]any)["cad-autocad"]; !ok || proj["/other"] == nil || doc["numStartups"] != 3.0 {
		t.Errorf("local scope wrote:\n%s", b)
	}
}

func TestRegistrationsEverywhere(t *testing.T) {
	fx := newFixture(t, "linux")
	put := fx.put
	// Claude Code's local scope (what `claude mcp add` writes by default).
	put("home/.claude.json", `{"mcpServers": {}, "projects": {"/src/a": {"mcpServers": {"cad": {"command": "/x/mcp-bridge"}}}}}`)
	// VS Code with comments, and a non-default profile, and Insiders.
	put("xdg/Code/User/mcp.json", "{\n // comment\n \"servers\": {\"cad\": {\"command\": \"mcp-bridge\",},},\n}")
	put("xdg/Code/User/profiles/1a2b/mcp.json", `{"servers": {"cad2": {"command": "C:\\b\\mcp-bridge.exe"}}}`)
	put("xdg/Code - Insiders/User/mcp.json", `{"servers": {"cad3": {"command": "x", "env": {"CAD_MCP_PORT": "1"}}}}`)
	// CodeBuddy: the file in its folder shadows ~/.codebuddy.json's
	// servers, not its projects' (the local scope).
	put("home/.codebuddy/mcp.json", `{"mcpServers": {"cad": {"command": "mcp-bridge"}}}`)
	put("home/.codebuddy.json", `{"mcpServers": {"old": {"command": "mcp-bridge"}}, "projects": {"/src/b": {"mcpServers": {"loc": {"command": "mcp-bridge"}}}}}`)
	// Codex and Zed.
	put("home/.codex/config.toml", "[mcp_servers.cad]\ncommand = '/x/mcp-bridge'\n[mcp_servers.cad.env]\nCAD_MCP_PORT = \"1\"\n")
	put("xdg/zed/settings.json", `{"context_servers": {"cad": {"command": "/x/mcp-bridge", "args": []}}}`)
	put("home/.cursor/mcp.json", `{"mcpServers": `)

	regs, probs := fx.env.Registrations()
	var got []string
	for _, r := range regs {
		line := r.Client + " " + fx.rel(r.File) + " " + r.Where + " " + r.Name + " " + r.Note
		if r.ShadowedBy != "" {
			line += "shadowed by " + fx.rel(r.ShadowedBy)
		}
		got = append(got, line)
	}
	want := []string{
		"Claude Code home/.claude.json projects → /src/a → mcpServers cad ",
		"CodeBuddy home/.codebuddy/mcp.json mcpServers cad ",
		"CodeBuddy home/.codebuddy.json mcpServers old shadowed by home/.codebuddy/mcp.json",
		"CodeBuddy home/.codebuddy.json projects → /src/b → mcpServers loc ",
		"VS Code xdg/Code/User/mcp.json servers cad ",
		"VS Code xdg/Code/User/profiles/1a2b/mcp.json servers cad2 profile 1a2b",
		"VS Code Insiders xdg/Code - Insiders/User/mcp.json servers cad3 ",
		"Codex CLI home/.codex/config.toml mcp_servers cad ",
		"Zed xdg/zed/settings.json context_servers cad ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("registrations (-want +got):\n%s", diff)
	}
	if len(probs) != 1 || probs[0].Client != "Cursor" {
		t.Errorf("problems %+v", probs)
	}
}

func TestInstalledDetection(t *testing.T) {
	fx := newFixture(t, "darwin")
	os.MkdirAll(filepath.Join(fx.vars["HOME"], ".cursor"), 0o755)
	var found []string
	for _, c := range Clients {
		if fx.env.Installed(c) {
			found = append(found, c.ID)
		}
	}
	if diff := cmp.Diff([]string{"cursor"}, found); diff != "" {
		t.Errorf("installed (-want +got):\n%s", diff)
	}
}

// TestInstalledByItsFolders: a client counts as installed (install
// --client all) when the folder its row names exists, though it has no
// file yet: each folder alone, and a name one letter off that counts for
// nobody. CLAUDE_CONFIG_DIR is Claude Code's folder when set.
func TestInstalledByItsFolders(t *testing.T) {
	for _, tc := range []struct {
		folder string
		want   []string
	}{
		{"home/.claude", []string{"claude-code"}},
		{"cc", []string{"claude-code"}}, // $CLAUDE_CONFIG_DIR
		{"home/.claudes", nil},
		{"home/.cline", []string{"cline"}},
		{"home/.junie", []string{"junie"}},
		{"home/.kiro", []string{"kiro"}},
		{"home/.aws/amazonq", []string{"amazonq"}},
		{"home/.aws/amazon", nil},
		{"home/.gemini/config", []string{"gemini", "antigravity"}}, // ~/.gemini is Gemini CLI's folder
		{"home/.gemini/antigravity", []string{"gemini", "antigravity"}},
		{"home/.continue/config.json", []string{"continue"}},
		{"home/Library/Application Support/Cursor/User/globalStorage/saoudrizwan.claude-dev", []string{"cline-cursor"}},
	} {
		fx := newFixture(t, "darwin")
		fx.vars["CLAUDE_CONFIG_DIR"] = filepath.Join(fx.root, "cc")
		os.MkdirAll(filepath.Join(fx.root, filepath.FromSlash(tc.folder)), 0o755)
		var found []string
		for _, c := range Clients {
			if fx.env.Installed(c) {
				found = append(found, c.ID)
			}
		}
		if diff := cmp.Diff(tc.want, found); diff != "" {
			t.Errorf("with %s, installed (-want +got):\n%s", tc.folder, diff)
		}
	}
}

func TestCodexOtherFormsAreNotRewritten(t *testing.T) {
	for _, src := range []string{
		"mcp_servers.cad-autocad.command = \"x\"\n",
		"[mcp_servers]\ncad-autocad = { command = \"x\" }\n",
	} {
		if _, err := tomlSet([]byte(src), "cad-autocad", bridge); err == nil {
			t.Errorf("%q: rewritten without a word", src)
		}
	}
	// Sub-tables go with their table; a multi-line array elsewhere is kept.
	src := "[mcp_servers.cad-autocad]\ncommand = \"old\"\n\n[mcp_servers.cad-autocad.env]\nCAD_MCP_PORT = \"1\"\n\n[other]\nlist = [\n  \"a\",\n]\n"
	out, err := tomlSet([]byte(src), "cad-autocad", bridge)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := tomlServers(out)
	if !cmp.Equal(s["cad-autocad"], bridge) || !strings.Contains(string(out), "list = [\n  \"a\",\n]") || strings.Count(string(out), "[mcp_servers.cad-autocad]") != 1 {
		t.Errorf("got:\n%s", out)
	}
}

// wantProjectFile is the project-scope file per client (relative to the
// project folder).
var wantProjectFile = map[string]string{
	"claude-code": ".mcp.json", "codebuddy": ".mcp.json", "cursor": ".cursor/mcp.json",
	"vscode": ".vscode/mcp.json", "vscode-insiders": ".vscode/mcp.json", "gemini": ".gemini/settings.json",
	"codex": ".codex/config.toml", "zed": ".zed/settings.json",
	"visualstudio": ".mcp.json", "junie": ".junie/mcp/mcp.json", "roo-code": ".roo/mcp.json",
	"kiro": ".kiro/settings/mcp.json", "amazonq": ".amazonq/mcp.json", "trae": ".trae/mcp.json",
	"warp": ".warp/.mcp.json", "opencode": "opencode.json", "continue": ".continue/mcpServers/mcp-bridge.yaml",
}

// TestProjectScopeEveryClient: each client's project file, installed
// into next to the user's own content and uninstalled byte for byte.
func TestProjectScopeEveryClient(t *testing.T) {
	for _, c := range Clients {
		t.Run(c.ID, func(t *testing.T) {
			fx := newFixture(t, "linux")
			f, ok := fx.env.Target(c, "project")
			want := wantProjectFile[c.ID]
			if want == "" {
				if ok || len(c.ProjectFiles) > 0 {
					t.Fatalf("%s: project file %s, none expected", c.ID, f.Path)
				}
				return
			}
			if !ok || fx.rel(f.Path) != "project/"+want {
				t.Fatalf("project file %q, want %q", fx.rel(f.Path), "project/"+want)
			}
			orig := existing(c)
			os.MkdirAll(filepath.Dir(f.Path), 0o755)
			os.WriteFile(f.Path, []byte(orig), 0o600)
			if r, err := Install(f, "cad-autocad", bridge, Options{}); err != nil || r.Action != "added" {
				t.Fatalf("%+v %v", r, err)
			}
			if got, _ := entryOf(t, f, "cad-autocad"); !cmp.Equal(got, bridge) {
				t.Errorf("entry %+v", got)
			}
			if _, err := Uninstall(f, "cad-autocad", Options{}); err != nil {
				t.Fatal(err)
			}
			if back, _ := os.ReadFile(f.Path); string(back) != orig {
				t.Errorf("uninstall did not restore the file (-want +got):\n%s", cmp.Diff(orig, string(back)))
			}
		})
	}
}

// TestVisualStudioAndClaudeCodeShareDotMCPJSON: <solution>\.mcp.json is
// Visual Studio's (key servers) and Claude Code's (key mcpServers): each
// install keeps the other's entry, and doctor sees both.
func TestVisualStudioAndClaudeCodeShareDotMCPJSON(t *testing.T) {
	fx := newFixture(t, "windows")
	vs, _ := fx.env.Target(Lookup("visualstudio"), "project")
	cc, _ := fx.env.Target(Lookup("claude-code"), "project")
	if vs.Path != cc.Path {
		t.Fatalf("%s and %s", vs.Path, cc.Path)
	}
	for _, f := range []File{cc, vs} {
		if _, err := Install(f, "cad", bridge, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []File{cc, vs} {
		if got, ok := entryOf(t, f, "cad"); !ok || !cmp.Equal(got, bridge) {
			t.Errorf("%s's entry: %+v", f.Client.Name, got)
		}
	}
	regs, _ := fx.env.Registrations()
	var got []string
	for _, r := range regs {
		got = append(got, r.ClientID+" "+r.Where)
	}
	if diff := cmp.Diff([]string{"claude-code mcpServers", "visualstudio servers"}, got); diff != "" {
		t.Errorf("doctor sees (-want +got):\n%s", diff)
	}
}

// TestAntigravityEarlierFolderShadowed: Antigravity reads
// ~/.gemini/config/mcp_config.json when that folder exists (current
// builds), else ~/.gemini/antigravity/mcp_config.json (earlier builds);
// doctor flags an entry in the file it does not read.
func TestAntigravityEarlierFolderShadowed(t *testing.T) {
	fx := newFixture(t, "darwin")
	ag := Lookup("antigravity")
	earlier := filepath.Join(fx.vars["HOME"], ".gemini", "antigravity", "mcp_config.json")
	os.MkdirAll(filepath.Dir(earlier), 0o755)
	if f, _ := fx.env.Target(ag, "user"); f.Path != earlier {
		t.Fatalf("with only the earlier folder, install writes %s", f.Path)
	}
	os.WriteFile(earlier, []byte(`{"mcpServers": {"cad": {"command": "/x/mcp-bridge"}}}`), 0o600)
	current := filepath.Join(fx.vars["HOME"], ".gemini", "config", "mcp_config.json")
	os.MkdirAll(filepath.Dir(current), 0o755)
	if f, _ := fx.env.Target(ag, "user"); f.Path != current {
		t.Fatalf("with both folders, install writes %s", f.Path)
	}
	regs, _ := fx.env.Registrations()
	if len(regs) != 1 || regs[0].File != earlier || regs[0].ShadowedBy != current {
		t.Errorf("doctor sees %+v", regs)
	}
}

// TestOpenCodeReadsBothFiles: OpenCode merges opencode.json and
// opencode.jsonc: install writes the one that exists, and an entry in
// either is read (neither shadows the other).
func TestOpenCodeReadsBothFiles(t *testing.T) {
	fx := newFixture(t, "linux")
	oc := Lookup("opencode")
	jsonc := filepath.Join(fx.vars["XDG_CONFIG_HOME"], "opencode", "opencode.jsonc")
	os.MkdirAll(filepath.Dir(jsonc), 0o755)
	os.WriteFile(jsonc, []byte("{\n  // mine\n  \"theme\": \"x\",\n}\n"), 0o600)
	f, _ := fx.env.Target(oc, "user")
	if f.Path != jsonc {
		t.Fatalf("install writes %s, want the existing %s", f.Path, jsonc)
	}
	if _, err := Install(f, "cad", bridge, Options{}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(filepath.Dir(jsonc), "opencode.json"), []byte(`{"mcp": {"old": {"type": "local", "command": ["/y/mcp-bridge"]}}}`), 0o600)
	regs, _ := fx.env.Registrations()
	if len(regs) != 2 || regs[0].ShadowedBy != "" || regs[1].ShadowedBy != "" {
		t.Errorf("doctor sees %+v", regs)
	}
}

// TestContinueLegacyJSONGetsABlockFile: with only the deprecated
// ~/.continue/config.json, a new config.yaml would take its place (and
// the user's models with it): install writes a block file in
// ~/.continue/mcpServers instead, which Continue reads as well; with a
// config.yaml, it edits that. Doctor reads both, neither shadowed.
func TestContinueLegacyJSONGetsABlockFile(t *testing.T) {
	fx := newFixture(t, "linux")
	c := Lookup("continue")
	dir := filepath.Join(fx.vars["HOME"], ".continue")
	os.MkdirAll(dir, 0o755)
	if f, _ := fx.env.Target(c, "user"); fx.rel(f.Path) != "home/.continue/config.yaml" {
		t.Errorf("a new install writes %s", fx.rel(f.Path))
	}
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"models": []}`), 0o600)
	f, _ := fx.env.Target(c, "user")
	if fx.rel(f.Path) != "home/.continue/mcpServers/mcp-bridge.yaml" {
		t.Fatalf("with config.json, install writes %s", fx.rel(f.Path))
	}
	if _, err := Install(f, "cad", bridge, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "config.yaml")); err == nil {
		t.Errorf("a config.yaml was made beside config.json")
	}
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("name: x\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: old\n    command: /z/mcp-bridge\n"), 0o600)
	if f, _ := fx.env.Target(c, "user"); fx.rel(f.Path) != "home/.continue/config.yaml" {
		t.Errorf("with config.yaml, install writes %s", fx.rel(f.Path))
	}
	regs, _ := fx.env.Registrations()
	if len(regs) != 2 || regs[0].ShadowedBy != "" || regs[1].ShadowedBy != "" {
		t.Errorf("doctor sees %+v", regs)
	}
}

// TestRegistrationsOtherFormats: doctor reads the YAML clients' entries,
// OpenCode's command array and "environment", and the new JSON clients.
func TestRegistrationsOtherFormats(t *testing.T) {
	fx := newFixture(t, "linux")
	put := fx.put
	put("xdg/goose/config.yaml", "extensions:\n  cad:\n    type: stdio\n    cmd: /x/mcp-bridge\n    args: [--port, '9']\n    envs: {CAD_MCP_PORT: '9'}\n")
	put("home/.continue/config.yaml", "mcpServers:\n  - name: cad\n    command: /x/mcp-bridge\n")
	put("xdg/opencode/opencode.json", `{"mcp": {"cad": {"type": "local", "command": ["/x/mcp-bridge", "--port", "9"], "environment": {"CAD_MCP_PORT": "9"}}}}`)
	put("home/.kiro/settings/mcp.json", `{"mcpServers": {"cad": {"command": "/x/mcp-bridge"}}}`)
	put("home/.gemini/antigravity/mcp_config.json", `{"mcpServers": {"cad": {"command": "/x/mcp-bridge"}}}`)
	regs, probs := fx.env.Registrations()
	got := map[string]Server{}
	for _, r := range regs {
		got[r.ClientID] = r.Server
	}
	nine := Server{Command: "/x/mcp-bridge", Args: []string{"--port", "9"}, Env: map[string]string{"CAD_MCP_PORT": "9"}}
	plain := Server{Command: "/x/mcp-bridge", Env: map[string]string{}}
	want := map[string]Server{"goose": nine, "opencode": nine, "continue": plain, "kiro": plain, "antigravity": plain}
	if diff := cmp.Diff(want, got); diff != "" || len(probs) != 0 {
		t.Errorf("registrations (-want +got):\n%s\nproblems %v", diff, probs)
	}
}

// TestAmazonQLegacyFile: Amazon Q reads ~/.aws/amazonq/mcp.json (where
// install writes) while "useLegacyMcpJson" in default.json beside it is
// not false; doctor reads the servers of default.json too, and reports an
// entry in mcp.json as not read once that setting is false.
func TestAmazonQLegacyFile(t *testing.T) {
	fx := newFixture(t, "linux")
	dir := filepath.Join(fx.vars["HOME"], ".aws", "amazonq")
	os.MkdirAll(dir, 0o755)
	f, _ := fx.env.Target(Lookup("amazonq"), "user")
	if _, err := Install(f, "cad", bridge, Options{}); err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(dir, "default.json")
	os.WriteFile(agent, []byte(`{"useLegacyMcpJson": true, "mcpServers": {"gui": {"command": "/x/mcp-bridge"}}}`), 0o600)
	regs, _ := fx.env.Registrations()
	if len(regs) != 2 || regs[0].NotRead != "" || regs[1].File != agent {
		t.Fatalf("with useLegacyMcpJson true: %+v", regs)
	}
	os.WriteFile(agent, []byte(`{"useLegacyMcpJson": false, "mcpServers": {}}`), 0o600)
	regs, _ = fx.env.Registrations()
	if len(regs) != 1 || regs[0].File != f.Path || !strings.Contains(regs[0].NotRead, `"useLegacyMcpJson" is false in `+agent) {
		t.Errorf("with useLegacyMcpJson false: %+v", regs)
	}
}

// TestOpenCode2Layout: OpenCode 2 keeps its servers under "mcp" →
// "servers"; a file already in that layout gets the entry there (an
// entry right under "mcp" would be read as a setting), and doctor reads
// it there.
func TestOpenCode2Layout(t *testing.T) {
	fx := newFixture(t, "linux")
	f, _ := fx.env.Target(Lookup("opencode"), "user")
	os.MkdirAll(filepath.Dir(f.Path), 0o755)
	orig := "{\n  \"mcp\": {\n    \"servers\": {\n      \"other\": {\"type\": \"local\", \"command\": [\"npx\"]},\n    },\n  },\n}\n"
	os.WriteFile(f.Path, []byte(orig), 0o600)
	if _, err := Install(f, "cad", bridge, Options{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(f.Path)
	if diff := cmp.Diff(wantEntryShape(f.Client), entryShape(t, b, []string{"mcp", "servers"}, "cad")); diff != "" {
		t.Errorf("(-want +got):\n%s\n%s", diff, b)
	}
	if regs, _ := fx.env.Registrations(); len(regs) != 1 || regs[0].Where != "mcp → servers" || !cmp.Equal(regs[0].Server, bridge) {
		t.Errorf("doctor sees %+v", regs)
	}
	if _, err := Uninstall(f, "cad", Options{}); err != nil {
		t.Fatal(err)
	}
	if back, _ := os.ReadFile(f.Path); string(back) != orig {
		t.Errorf("uninstall (-want +got):\n%s", cmp.Diff(orig, string(back)))
	}
}
