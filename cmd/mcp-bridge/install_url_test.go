package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/mcp-bridge/mcp-bridge/configs/register"
)

// TestInstallURLForms: install --url writes the client's own URL form
// where it has one (the token named by the variable the client expands,
// never the token), connect's stdio entry where it has none, and
// connect's entry for every client when a certificate is to be pinned.
func TestInstallURLForms(t *testing.T) {
	home, tok, vars := urlHome(t)
	const url = "https://cad-pc:8931/mcp"
	entry := func(file, key string) map[string]any {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(home, file))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "s3cret-token") {
			t.Errorf("the token itself is in %s:\n%s", file, b)
		}
		var doc map[string]any
		if strings.HasSuffix(file, ".toml") {
			_, err = toml.Decode(string(b), &doc)
		} else {
			err = json.Unmarshal(b, &doc)
		}
		if err != nil {
			t.Fatalf("%s: %v\n%s", file, err, b)
		}
		e, _ := doc[key].(map[string]any)["cad-autocad"].(map[string]any)
		return e
	}
	for _, tt := range []struct {
		client, file, key string
		want              map[string]any
	}{
		{"claude-code", ".claude.json", "mcpServers", map[string]any{"type": "http", "url": url, "headers": map[string]any{"Authorization": "Bearer ${CAD_MCP_TOKEN}"}}},
		{"gemini", ".gemini/settings.json", "mcpServers", map[string]any{"httpUrl": url, "headers": map[string]any{"Authorization": "Bearer ${CAD_MCP_TOKEN}"}}},
		{"cursor", ".cursor/mcp.json", "mcpServers", map[string]any{"url": url, "headers": map[string]any{"Authorization": "Bearer ${env:CAD_MCP_TOKEN}"}}},
		{"vscode", ".config/Code/User/mcp.json", "servers", map[string]any{"type": "http", "url": url, "headers": map[string]any{"Authorization": "Bearer ${env:CAD_MCP_TOKEN}"}}},
		{"windsurf", ".codeium/windsurf/mcp_config.json", "mcpServers", map[string]any{"serverUrl": url, "headers": map[string]any{"Authorization": "Bearer ${env:CAD_MCP_TOKEN}"}}},
		{"codex", ".codex/config.toml", "mcp_servers", map[string]any{"url": url, "bearer_token_env_var": "CAD_MCP_TOKEN"}},
		{"copilot-cli", ".copilot/mcp-config.json", "mcpServers", map[string]any{"type": "http", "url": url, "headers": map[string]any{"Authorization": "Bearer ${CAD_MCP_TOKEN}"}, "tools": []any{"*"}}},
		{"opencode", ".config/opencode/opencode.json", "mcp", map[string]any{"type": "remote", "url": url, "headers": map[string]any{"Authorization": "Bearer {env:CAD_MCP_TOKEN}"}}},
	} {
		out, errs, code := runCLI(t, vars, "", "install", "--client", tt.client, "--url", url, "--token-file", tok)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", tt.client, code, out, errs)
		}
		if !strings.Contains(out, "CAD_MCP_TOKEN variable") || !strings.Contains(out, register.SetTokenVar(runtime.GOOS, tok)) {
			t.Errorf("%s: install does not say which variable to set:\n%s", tt.client, out)
		}
		if strings.Contains(errs, "warning:") {
			t.Errorf("%s: a warning about the binary, which a URL entry does not run:\n%s", tt.client, errs)
		}
		got := entry(tt.file, tt.key)
		if b, _ := json.Marshal(got); string(b) != mustJSON(t, tt.want) {
			t.Errorf("%s: entry %s, want %s", tt.client, b, mustJSON(t, tt.want))
		}
		// With a pinned certificate, connect's entry instead.
		if out, errs, code := runCLI(t, vars, "", "install", "--client", tt.client, "--url", url, "--token-file", tok, "--fingerprint", "sha256:"+strings.Repeat("ab", 32)); code != 0 {
			t.Fatalf("%s --fingerprint: exit %d\n%s%s", tt.client, code, out, errs)
		}
		got = entry(tt.file, tt.key)
		args, _ := got["args"].([]any)
		if cmd, _ := got["command"].([]any); len(cmd) > 0 { // OpenCode's one array
			args = cmd[1:]
		}
		if len(args) < 2 || args[0] != "connect" || got["url"] != nil || got["httpUrl"] != nil || got["serverUrl"] != nil || got["headers"] != nil || got["bearer_token_env_var"] != nil {
			t.Errorf("%s --fingerprint: entry %v, want connect's and nothing of the URL form", tt.client, got)
		}
	}
	// A client without a URL form gets connect's entry, and no word
	// about the variable.
	out, errs, code := runCLI(t, vars, "", "install", "--client", "claude-desktop", "--url", url, "--token-file", tok)
	if code != 0 {
		t.Fatalf("claude-desktop: exit %d\n%s%s", code, out, errs)
	}
	if got := entry(".config/Claude/claude_desktop_config.json", "mcpServers"); got["command"] == nil || got["url"] != nil || got["headers"] != nil {
		t.Errorf("claude-desktop: entry %v, want connect's", got)
	}
	if strings.Contains(out, "CAD_MCP_TOKEN") {
		t.Errorf("claude-desktop reads the token file through connect, yet install speaks of the variable:\n%s", out)
	}
	// Without a token: the URL alone, nothing to set.
	out, _, code = runCLI(t, vars, "", "install", "--client", "gemini", "--url", "http://127.0.0.1:8931/mcp")
	if got := entry(".gemini/settings.json", "mcpServers"); code != 0 || got["httpUrl"] != "http://127.0.0.1:8931/mcp" || got["headers"] != nil || strings.Contains(out, "CAD_MCP_TOKEN") {
		t.Errorf("gemini without a token: exit %d, entry %v\n%s", code, got, out)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInstallURLRefusesVariables: clients fill variables in where they
// read a URL (Claude Code ${VAR}, Cursor and VS Code ${env:VAR}, OpenCode
// {env:VAR} and {file:PATH}, in a URL entry and in a connect entry's args
// alike), so a URL holding one would send another variable, or a file,
// to its host, and would not be the URL install checked and doctor
// tries. install refuses it and writes nothing.
func TestInstallURLRefusesVariables(t *testing.T) {
	home, tok, vars := urlHome(t)
	for _, tt := range []struct{ client, url string }{
		{"claude-code", "https://cad-pc:8931/mcp?k=${GITHUB_TOKEN}"},
		{"cursor", "https://cad-pc:8931/${env:AWS_SECRET_ACCESS_KEY}/mcp"},
		{"opencode", "https://cad-pc:8931/mcp#{file:~/.ssh/id_ed25519}"},
		{"opencode", "https://cad-pc:8931/{env:HOME}"},
		{"claude-desktop", "https://cad-pc:8931/mcp?k=${GITHUB_TOKEN}"}, // connect's args
	} {
		out, errs, code := runCLI(t, vars, "", "install", "--client", tt.client, "--url", tt.url, "--token-file", tok)
		if code != 2 || !strings.Contains(errs, "%7B") {
			t.Errorf("%s --url %s: exit %d, want a usage error naming %%7B\n%s%s", tt.client, tt.url, code, out, errs)
		}
	}
	if entries, _ := os.ReadDir(home); len(entries) != 1 {
		t.Errorf("install wrote files: %v", entries)
	}
}

// TestInstallURLPinOverHTTP: --fingerprint or --ca with a plain http://
// URL is refused, as connect refuses it: nothing checks a certificate
// there, and the user would believe the server authenticated.
func TestInstallURLPinOverHTTP(t *testing.T) {
	home, tok, vars := urlHome(t)
	ca := filepath.Join(home, "ca.pem")
	os.WriteFile(ca, []byte("not read before the refusal"), 0o600)
	os.Remove(tok)
	fp := "sha256:" + strings.Repeat("ab", 32)
	for _, args := range [][]string{
		{"--client", "claude-desktop", "--url", "http://cad-pc:8931/mcp", "--fingerprint", fp},
		{"--client", "claude-code", "--url", "HTTP://cad-pc:8931/mcp", "--ca", ca},
	} {
		out, errs, code := runCLI(t, vars, "", append([]string{"install"}, args...)...)
		if code != 2 || !strings.Contains(errs, "no certificate is checked") {
			t.Errorf("install %v: exit %d, want a usage error saying no certificate is checked\n%s%s", args, code, out, errs)
		}
	}
	if entries, _ := os.ReadDir(home); len(entries) != 1 {
		t.Errorf("install wrote files: %v", entries)
	}
}

// TestInstallKeepsUsersServer: install --name naming a server of the
// user's own (another program, or another URL) refuses, says how to
// replace it, and leaves the file as it was; --force replaces it and keeps
// the previous file as the backup.
func TestInstallKeepsUsersServer(t *testing.T) {
	home, env, write := doctorHome(t)
	t.Chdir(home)
	orig := `{"mcpServers":{"github":{"url":"https://api.example/mcp","headers":{"Authorization":"Bearer ${env:GITHUB_PAT}"}}}}`
	write(".cursor/mcp.json", orig)
	// --force is an action of the command line only: CAD_MCP_FORCE in the
	// environment (a left-over export) replaces nobody's server.
	forced := maps.Clone(env)
	forced["CAD_MCP_FORCE"] = "true"
	for _, args := range [][]string{{}, {"--url", "https://cad-pc:8931/mcp"}} {
		out, errs, code := runCLI(t, forced, "", append([]string{"install", "--client", "cursor", "--name", "github"}, args...)...)
		if code != 1 || !strings.Contains(errs, `"github" is already in this file: it connects to https://api.example/mcp without CAD_MCP_TOKEN, and is not mcp-bridge's`) || !strings.Contains(errs, "--force") {
			t.Errorf("install %v over the user's server: exit %d\n%s%s", args, code, out, errs)
		}
		if b, _ := os.ReadFile(filepath.Join(home, ".cursor", "mcp.json")); string(b) != orig {
			t.Errorf("the file changed:\n%s", b)
		}
	}
	if out, errs, code := runCLI(t, env, "", "install", "--client", "cursor", "--name", "github", "--force"); code != 0 || !strings.Contains(out, "the previous file is kept as") {
		t.Errorf("install --force: exit %d\n%s%s", code, out, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".cursor", "mcp.json.mcp-bridge-backup")); string(b) != orig {
		t.Errorf("the backup is not the user's file:\n%s", b)
	}
}

// TestUninstallKeepsUsersServer: uninstall --name naming a server of the
// user's own refuses, says what it runs and how to remove it anyway, and
// leaves the file as it was; --force removes it and keeps the backup.
func TestUninstallKeepsUsersServer(t *testing.T) {
	home, env, write := doctorHome(t)
	t.Chdir(home)
	orig := `{"mcpServers":{"cad-autocad":{"command":"npx","args":["-y","@acme/autocad-mcp"]},"other":{"command":"x"}}}`
	write(".cursor/mcp.json", orig)
	out, errs, code := runCLI(t, env, "", "uninstall", "--client", "cursor")
	if code != 1 || !strings.Contains(errs, `"cad-autocad" in this file runs npx, and is not mcp-bridge's`) || !strings.Contains(errs, "--force") {
		t.Errorf("uninstall of the user's server: exit %d\n%s%s", code, out, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".cursor", "mcp.json")); string(b) != orig {
		t.Errorf("the file changed:\n%s", b)
	}
	if out, errs, code := runCLI(t, env, "", "uninstall", "--client", "cursor", "--force"); code != 0 || !strings.Contains(out, "the previous file is kept as") {
		t.Errorf("uninstall --force: exit %d\n%s%s", code, out, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".cursor", "mcp.json")); strings.Contains(string(b), "cad-autocad") || !strings.Contains(string(b), `"other"`) {
		t.Errorf("after uninstall --force:\n%s", b)
	}
}

// TestInstallURLWarnsClearText: a URL entry sending the token over plain
// http:// to another machine is written (a trusted network, or TLS ended
// by a proxy), with a warning that the token travels in clear text; not
// for loopback, nor without a token.
func TestInstallURLWarnsClearText(t *testing.T) {
	_, tok, vars := urlHome(t)
	for _, tt := range []struct {
		url   string
		token bool
		warn  bool
	}{
		{"http://cad-pc:8931/mcp", true, true},
		{"http://192.168.1.20:8931/mcp", true, true},
		{"http://127.0.0.1:8931/mcp", true, false},
		{"http://[::1]:8931/mcp", true, false},
		{"https://cad-pc:8931/mcp", true, false},
		{"http://cad-pc:8931/mcp", false, false},
	} {
		args := []string{"install", "--client", "claude-code", "--url", tt.url}
		if tt.token {
			args = append(args, "--token-file", tok)
		}
		out, errs, code := runCLI(t, vars, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
		if got := strings.Contains(errs, "warning: ") && strings.Contains(errs, "clear text"); got != tt.warn {
			t.Errorf("%s (token %v): warned %v, want %v\n%s", tt.url, tt.token, got, tt.warn, errs)
		}
	}
}

// urlHome is an empty home, the working folder, holding a token file;
// vars point HOME, XDG_CONFIG_HOME and APPDATA into it.
func urlHome(t *testing.T) (home, tok string, vars map[string]string) {
	t.Helper()
	home = tempDir(t)
	t.Chdir(home)
	tok = filepath.Join(home, "token")
	os.WriteFile(tok, []byte("s3cret-token\n"), 0o600)
	return home, tok, map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "APPDATA": filepath.Join(home, ".config")}
}

// TestInstallURLTokenFileBesideTheVariable: install --url takes the token
// from --token-file when the command line gives it, CAD_MCP_TOKEN set or
// not, and the entry names the file; CAD_MCP_TOKEN alone is refused (the
// token itself would have to go into the client's file). Before, the
// variable beside --token-file was taken for the token's source and the
// install refused.
func TestInstallURLTokenFileBesideTheVariable(t *testing.T) {
	home, tok, vars := urlHome(t)
	withVar := map[string]string{"CAD_MCP_TOKEN": "s3cret-token"}
	for k, v := range vars {
		withVar[k] = v
	}
	fp := "sha256:" + strings.Repeat("ab", 32)
	for _, tt := range []struct {
		name string
		vars map[string]string
		args []string
		code int
	}{
		{"--token-file, CAD_MCP_TOKEN set", withVar, []string{"--token-file", tok}, 0},
		{"--token-file alone", vars, []string{"--token-file", tok}, 0},
		{"CAD_MCP_TOKEN alone", withVar, nil, 2},
	} {
		out, errs, code := runCLI(t, tt.vars, "", append([]string{"install", "--client", "claude-desktop", "--url", "https://cad-pc:8931/mcp", "--fingerprint", fp}, tt.args...)...)
		if code != tt.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", tt.name, code, tt.code, out, errs)
			continue
		}
		if code != 0 {
			if !strings.Contains(errs, "--token-file FILE") {
				t.Errorf("%s: the refusal does not say to pass --token-file: %s", tt.name, errs)
			}
			continue
		}
		b, err := os.ReadFile(filepath.Join(home, ".config/Claude/claude_desktop_config.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"--token-file"`) || strings.Contains(string(b), "s3cret-token") {
			t.Errorf("%s: the entry does not name the token file, or holds the token:\n%s", tt.name, b)
		}
	}
}
