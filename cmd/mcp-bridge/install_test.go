package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/configs/register"
)

// runCLIAs is runCLI with argv[0] set, as the shell would.
func runCLIAs(t *testing.T, argv0 string, vars map[string]string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb syncBuffer
	e := &env{argv0: argv0, args: args, getenv: func(k string) string { return vars[k] }, stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	code := exitCode(run(context.Background(), e), &errb)
	return out.String(), errb.String(), code
}

func server(t *testing.T, out string) map[string]any {
	t.Helper()
	var doc map[string]map[string]map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, servers := range doc {
		for _, s := range servers {
			return s
		}
	}
	t.Fatalf("no server in %s", out)
	return nil
}

// Defects of --print-config found by trying it as a new user.
func TestPrintConfigDefects(t *testing.T) {
	dir := tempDir(t)
	t.Chdir(dir)

	// A relative --log-file becomes absolute (GUI clients start the bridge
	// in / on macOS), and `&` stays `&` (no \u0026).
	out, _, code := runCLI(t, nil, "", "--print-config", "--log-file", "logs/a&b.log")
	if code != 0 || strings.Contains(out, `\u0026`) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	args := server(t, out)["args"].([]any)
	if len(args) != 2 || args[1] != filepath.Join(dir, "logs", "a&b.log") {
		t.Errorf("--log-file not made absolute: %v", args)
	}

	// An explicit --cache-dir is kept (absolute); the default is not pinned.
	out, _, _ = runCLI(t, nil, "", "--print-config", "--cache-dir", "cache")
	if args := server(t, out)["args"].([]any); len(args) != 2 || args[0] != "--cache-dir" || args[1] != filepath.Join(dir, "cache") {
		t.Errorf("--cache-dir dropped: %v", args)
	}
	out, _, _ = runCLI(t, nil, "", "--print-config")
	if args := server(t, out)["args"].([]any); len(args) != 0 {
		t.Errorf("default settings passed on: %v", args)
	}

	// The command is the path the user ran, not the symlink's target.
	if runtime.GOOS != "windows" {
		exe, _ := os.Executable()
		link := filepath.Join(dir, "bin", "mcp-bridge")
		os.MkdirAll(filepath.Dir(link), 0o755)
		if err := os.Symlink(exe, link); err != nil {
			t.Fatal(err)
		}
		out, _, _ = runCLIAs(t, "bin/mcp-bridge", nil, "--print-config")
		if got := server(t, out)["command"]; got != link {
			t.Errorf("command %v, want the link %s", got, link)
		}
		out, _, _ = runCLIAs(t, "mcp-bridge", map[string]string{}, "--print-config")
		if got := server(t, out)["command"]; got == "mcp-bridge" {
			t.Errorf("command not made absolute: %v", got)
		}
	}

	// --name is checked.
	for _, name := range []string{"", strings.Repeat("x", 70), "my cad"} {
		_, errs, code := runCLI(t, nil, "", "--print-config", "--name", name)
		if code != 2 || !strings.Contains(errs, "--name") {
			t.Errorf("--name %q: exit %d %s", name, code, errs)
		}
	}

	// The ready commands: claude mcp add-json wants the bare server, code
	// --add-mcp wants a name in it.
	out, errs, _ := runCLI(t, nil, "", "--print-config", "--client", "claude-code")
	// quoted is how the start of s looks quoted for this OS's shell.
	quoted := func(s string) string { q := register.ShellQuote(s); return q[:len(q)-1] }
	if !strings.Contains(errs, "claude mcp add-json --scope user cad-autocad "+quoted(`{"type":"stdio","command":`)) {
		t.Errorf("claude-code: no ready command on stderr:\n%s", errs)
	}
	if json.Valid([]byte(out)) == false {
		t.Errorf("stdout is not only JSON:\n%s", out)
	}
	_, errs, _ = runCLI(t, nil, "", "--print-config", "--client", "vscode")
	if !strings.Contains(errs, "code --add-mcp "+quoted(`{"name":"cad-autocad","type":"stdio",`)) {
		t.Errorf("vscode: no ready command on stderr:\n%s", errs)
	}

	// JetBrains AI Assistant takes pasted mcpServers JSON: stdout is that
	// JSON, stderr says where it goes; install refuses and says the same.
	out, errs, code = runCLI(t, nil, "", "--print-config", "--client", "jetbrains")
	if s := server(t, out); code != 0 || !strings.HasPrefix(out, "{\n  \"mcpServers\": {\n    \"cad-autocad\": {") || s["command"] == nil || !strings.Contains(errs, "Settings | Tools | AI Assistant | Model Context Protocol (MCP)") {
		t.Errorf("jetbrains: exit %d\n%s\n%s", code, out, errs)
	}
	_, errs, code = runCLI(t, nil, "", "install", "--client", "jetbrains")
	if code != 2 || !strings.Contains(errs, "--print-config --client jetbrains") {
		t.Errorf("install --client jetbrains: exit %d %s", code, errs)
	}
	if runtime.GOOS != "windows" {
		_, errs, code = runCLI(t, nil, "", "install", "--client", "visualstudio")
		if code != 2 || !strings.Contains(errs, "Visual Studio runs only on Windows") {
			t.Errorf("install --client visualstudio off Windows: exit %d %s", code, errs)
		}
	}

	// OpenCode: "type": "local", the command and its arguments in one
	// array, "environment"; Goose and Continue: YAML.
	out, _, _ = runCLI(t, nil, "", "--print-config", "--client", "opencode", "--call-timeout", "5m")
	oc := server(t, out)
	if cmd, _ := oc["command"].([]any); !strings.HasPrefix(out, "{\n  \"mcp\": {") || oc["type"] != "local" || len(cmd) != 3 || cmd[1] != "--call-timeout" || oc["environment"] == nil || oc["args"] != nil {
		t.Errorf("opencode:\n%s", out)
	}
	out, _, _ = runCLI(t, nil, "", "--print-config", "--client", "goose")
	if !strings.HasPrefix(out, "extensions:\n  cad-autocad:\n    name: cad-autocad\n    type: stdio\n    cmd: ") || !strings.Contains(out, "\n    envs:\n      CAD_MCP_HOST: 127.0.0.1\n") {
		t.Errorf("goose:\n%s", out)
	}
	out, _, _ = runCLI(t, nil, "", "--print-config", "--client", "continue")
	if !strings.Contains(out, "\nmcpServers:\n- name: cad-autocad\n  command: ") {
		t.Errorf("continue:\n%s", out)
	}

	// Codex gets TOML, Zed context_servers.
	out, _, _ = runCLI(t, nil, "", "--print-config", "--client", "codex")
	if !strings.HasPrefix(out, "[mcp_servers.cad-autocad]\ncommand = ") {
		t.Errorf("codex:\n%s", out)
	}
	out, _, _ = runCLI(t, nil, "", "--print-config", "--client", "zed")
	if !strings.Contains(out, `"context_servers"`) {
		t.Errorf("zed:\n%s", out)
	}
}

// Claude Desktop passes "${user_config.port}" literally for a bundle
// setting without a value: the bridge treats it as unset.
func TestUnsubstitutedPlaceholderIsUnset(t *testing.T) {
	out, errs, code := runCLI(t, map[string]string{"CAD_MCP_PORT": "${user_config.port}", "CAD_MCP_HOST": "${user_config.host}"}, "", "--print-config")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	env := server(t, out)["env"].(map[string]any)
	if env["CAD_MCP_PORT"] != "8080" || env["CAD_MCP_HOST"] != "127.0.0.1" {
		t.Errorf("placeholders not treated as unset: %v", env)
	}
}

func TestInstallThroughTheCLI(t *testing.T) {
	root := tempDir(t)
	t.Chdir(root)
	home := filepath.Join(root, "home")
	vars := map[string]string{"HOME": home, "USERPROFILE": home, "APPDATA": filepath.Join(home, "AppData"), "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "LOCALAPPDATA": filepath.Join(home, "Local")}
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(cursor), 0o755)
	orig := "{\n  \"mine\": 1,\n  \"mcpServers\": {\n    \"other\": {\"command\": \"npx\"}\n  }\n}\n"
	os.WriteFile(cursor, []byte(orig), 0o600)

	// --client all finds Cursor (the only client here) and registers the
	// non-default settings; its report is one table.
	out, errs, code := runCLI(t, vars, "", "install", "--client", "all", "--port", "9000", "--call-timeout", "5m")
	if code != 0 || !regexp.MustCompile(`(?m)^CLIENT +FILE +INSTALL\n^Cursor +`+regexp.QuoteMeta(cursor)+` +added \("cad-autocad"\); previous file kept as mcp.json.mcp-bridge-backup; then Cursor picks`).MatchString(out) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	b, _ := os.ReadFile(cursor)
	if !strings.Contains(string(b), `"mine": 1`) || !strings.Contains(string(b), `"CAD_MCP_PORT": "9000"`) || !strings.Contains(string(b), `"5m0s"`) {
		t.Errorf("cursor file:\n%s", b)
	}
	out, _, _ = runCLI(t, vars, "", "install", "--client", "cursor", "--port", "9000", "--call-timeout", "5m")
	if !strings.Contains(out, "already up to date") {
		t.Errorf("second install:\n%s", out)
	}
	// --dry-run changes nothing.
	before, _ := os.ReadFile(cursor)
	out, _, _ = runCLI(t, vars, "", "install", "--client", "cursor", "--dry-run")
	// (the settings differ from the installed ones: --port and --call-timeout not given)
	if after, _ := os.ReadFile(cursor); !bytes.Equal(before, after) || !strings.Contains(out, "would update") {
		t.Errorf("dry run:\n%s", out)
	}
	// A client with a file it cannot parse fails clearly, the file kept.
	gemini := filepath.Join(home, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(gemini), 0o755)
	os.WriteFile(gemini, []byte("{oops"), 0o600)
	_, errs, code = runCLI(t, vars, "", "install", "--client", "gemini")
	if b, _ := os.ReadFile(gemini); code != 1 || string(b) != "{oops" || !strings.Contains(errs, "left untouched") {
		t.Errorf("gemini: exit %d %s %s", code, errs, b)
	}
	_, errs, code = runCLI(t, vars, "", "install", "--client", "claude-desktop", "--scope", "project")
	if code != 2 || !strings.Contains(errs, "no project scope") {
		t.Errorf("project scope for Claude Desktop: %d %s", code, errs)
	}
	// --copy registers a copy in the per-user place.
	out, errs, code = runCLI(t, vars, "", "install", "--client", "cursor", "--copy")
	copied := filepath.Join(home, ".local", "bin", "mcp-bridge")
	if runtime.GOOS == "windows" {
		copied = filepath.Join(vars["LOCALAPPDATA"], "Programs", "mcp-bridge", "mcp-bridge.exe")
	}
	b, _ = os.ReadFile(cursor)
	want, _ := json.Marshal(copied)
	if st, err := os.Stat(copied); code != 0 || err != nil || !strings.Contains(string(b), `"command": `+string(want)) || runtime.GOOS != "windows" && st.Mode().Perm()&0o100 == 0 {
		t.Errorf("--copy: exit %d %s %s\n%s", code, out, errs, b)
	}
	out, _, code = runCLI(t, vars, "", "uninstall", "--client", "cursor")
	if b, _ := os.ReadFile(cursor); code != 0 || string(b) != orig {
		t.Errorf("uninstall: %s\n%s", out, b)
	}
}

// TestParallelInstallsKeepEveryEntry: twelve installs at once into one
// file, each with its own --name, leave twelve entries (the file is locked
// around each read-modify-write, and read again under the lock).
func TestParallelInstallsKeepEveryEntry(t *testing.T) {
	root := tempDir(t)
	home := filepath.Join(root, "home")
	vars := map[string]string{"HOME": home, "USERPROFILE": home, "APPDATA": filepath.Join(home, "AppData"), "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "LOCALAPPDATA": filepath.Join(home, "Local")}
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(cursor), 0o755)
	const n = 12
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, errs, code := runCLIAs(t, "", vars, "install", "--client", "cursor", "--name", fmt.Sprintf("srv%d", i)); code != 0 {
				t.Errorf("install srv%d: exit %d %s", i, code, errs)
			}
		})
	}
	wg.Wait()
	b, _ := os.ReadFile(cursor)
	var doc struct {
		MCPServers map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.MCPServers) != n {
		t.Errorf("%d entries after %d parallel installs (%v):\n%s", len(doc.MCPServers), n, err, b)
	}
}

// TestInstallReadOnlyNeedsForce: a read-only client file is refused, named,
// and left as it is; --force writes it.
func TestInstallReadOnlyNeedsForce(t *testing.T) {
	root := tempDir(t)
	home := filepath.Join(root, "home")
	vars := map[string]string{"HOME": home, "USERPROFILE": home, "APPDATA": filepath.Join(home, "AppData"), "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "LOCALAPPDATA": filepath.Join(home, "Local")}
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(cursor), 0o755)
	orig := "{\"mcpServers\": {}}\n"
	os.WriteFile(cursor, []byte(orig), 0o600)
	if err := os.Chmod(cursor, 0o444); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(cursor, 0o600); os.Chmod(cursor+".mcp-bridge-backup", 0o600) }) // Windows removes no read-only file
	_, errs, code := runCLIAs(t, "", vars, "install", "--client", "cursor")
	if b, _ := os.ReadFile(cursor); code != 1 || string(b) != orig || !strings.Contains(errs, cursor) || !strings.Contains(errs, "--force") {
		t.Errorf("read-only file: exit %d, %s\n%s", code, errs, b)
	}
	out, errs, code := runCLIAs(t, "", vars, "install", "--client", "cursor", "--force")
	if b, _ := os.ReadFile(cursor); code != 0 || !strings.Contains(string(b), "cad-autocad") {
		t.Errorf("--force: exit %d, %s %s\n%s", code, out, errs, b)
	}
}

// TestInstallAllReportsEveryClientInOneTable: --client all lists every
// client found, its file and what was done there, a failure included
// (the others are still installed), in one table; uninstall likewise.
func TestInstallAllReportsEveryClientInOneTable(t *testing.T) {
	root := tempDir(t)
	t.Chdir(root)
	home := filepath.Join(root, "home")
	vars := map[string]string{"HOME": home, "USERPROFILE": home, "APPDATA": filepath.Join(home, "AppData"), "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "LOCALAPPDATA": filepath.Join(home, "Local")}
	for _, dir := range []string{".cursor", ".kiro", ".config/opencode", ".gemini"} {
		os.MkdirAll(filepath.Join(home, dir), 0o755)
	}
	gemini := filepath.Join(home, ".gemini", "settings.json")
	os.WriteFile(gemini, []byte("{oops"), 0o600)
	files := map[string]string{
		"Cursor":     filepath.Join(home, ".cursor", "mcp.json"),
		"Kiro":       filepath.Join(home, ".kiro", "settings", "mcp.json"),
		"OpenCode":   filepath.Join(home, ".config", "opencode", "opencode.json"),
		"Gemini CLI": gemini,
	}
	row := func(out, client, what string) bool {
		return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(client) + ` +` + regexp.QuoteMeta(files[client]) + ` +` + what).MatchString(out)
	}
	out, errs, code := runCLI(t, vars, "", "install", "--client", "all")
	if code != 1 || strings.Count(out, "CLIENT") != 1 || !row(out, "Cursor", `added \("cad-autocad"\); then`) || !row(out, "Kiro", `added`) ||
		!row(out, "OpenCode", `added`) || !row(out, "Gemini CLI", `FAILED: .*left untouched`) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if b, _ := os.ReadFile(gemini); string(b) != "{oops" {
		t.Errorf("the file it could not parse changed: %s", b)
	}
	out, _, _ = runCLI(t, vars, "", "install", "--client", "all")
	if !row(out, "Cursor", `already up to date`) || !row(out, "OpenCode", `already up to date`) {
		t.Errorf("second run:\n%s", out)
	}
	os.WriteFile(gemini, []byte("{}"), 0o600)
	out, errs, code = runCLI(t, vars, "", "uninstall", "--client", "all")
	if code != 0 || !strings.Contains(out, "UNINSTALL") || !row(out, "Kiro", `removed`) || !row(out, "Gemini CLI", `not registered`) {
		t.Errorf("uninstall: exit %d\n%s\n%s", code, out, errs)
	}
}
