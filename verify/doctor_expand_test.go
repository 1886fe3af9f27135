package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// TestDoctorExpandsURLEntry: doctor checks a URL entry at the URL, and
// with the Authorization header, that its client sends, filled in as that
// client fills them in, from doctor's environment: Gemini CLI's
// $CAD_TEST_PATH is filled in from the environment: doctor says the URL
// sent is not the one written and, as the value may be a secret, neither
// contacts it nor prints the value; Claude Code leaves $NAME as written, so it
// fails there as it does for the client; a ${CAD_MCP_TOKEN} header in
// OpenCode's file, which OpenCode sends as written, fails with the
// reason (doctor sent the token and said ok); a URL VS Code fills in with
// ${workspaceFolder} is not contacted.
func TestDoctorExpandsURLEntry(t *testing.T) {
	home := testdir.New(t)
	tok := filepath.Join(home, "token")
	if err := os.WriteFile(tok, []byte("s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url, _ := startHTTPBridge(t, goSDKSimPort(t), "--token-file", tok)
	base := strings.TrimSuffix(url, "/mcp")
	if base == url {
		t.Fatalf("url %q: want …/mcp", url)
	}
	write := func(rel, text string) {
		p := filepath.Join(home, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	remove := func(rel string) { os.Remove(filepath.Join(home, filepath.FromSlash(rel))) }
	env := []string{"CAD_MCP_TOKEN=s3cret-token", "CAD_TEST_PATH=s3cret-path"}
	for _, tt := range []struct {
		name, file, text string
		ok               bool
		want             string
	}{
		{"Gemini CLI", ".gemini/settings.json", `{"mcpServers": {"cad-autocad": {"httpUrl": "` + base + `/$CAD_TEST_PATH", "headers": {"Authorization": "Bearer ${CAD_MCP_TOKEN}"}}}}`,
			false, "Gemini CLI sends another URL than the one written: it fills in $CAD_TEST_PATH from its environment, so the URL carries those values to the host. Not contacted"},
		{"Claude Code", ".claude.json", `{"mcpServers": {"cad-autocad": {"type": "http", "url": "` + base + `/${CAD_TEST_PATH}", "headers": {"Authorization": "Bearer ${CAD_MCP_TOKEN}"}}}}`,
			false, "it fills in ${CAD_TEST_PATH} from its environment"},
		{"Claude Code", ".claude.json", `{"mcpServers": {"cad-autocad": {"type": "http", "url": "` + base + `/$CAD_TEST_PATH", "headers": {"Authorization": "Bearer ${CAD_MCP_TOKEN}"}}}}`,
			false, "/$CAD_TEST_PATH"},
		{"OpenCode", ".config/opencode/opencode.json", `{"mcp": {"cad-autocad": {"type": "remote", "url": "` + url + `", "headers": {"Authorization": "Bearer ${CAD_MCP_TOKEN}"}}}}`,
			false, `OpenCode sends the Authorization header as written, "Bearer ${CAD_MCP_TOKEN}": it does not fill in that reference (its own is "Bearer {env:CAD_MCP_TOKEN}")`},
		{"OpenCode", ".config/opencode/opencode.json", `{"mcp": {"cad-autocad": {"type": "remote", "url": "` + base + `/{env:CAD_TEST_PATH}", "headers": {"Authorization": "Bearer {env:CAD_MCP_TOKEN}"}}}}`,
			false, "it fills in {env:CAD_TEST_PATH} from its environment"},
		{"VS Code", ".config/Code/User/mcp.json", `{"servers": {"cad-autocad": {"type": "http", "url": "` + base + `/${workspaceFolder}", "headers": {"Authorization": "Bearer ${env:CAD_MCP_TOKEN}"}}}}`,
			false, "VS Code fills ${workspaceFolder} in in this URL from a file or a value of its own, so doctor cannot tell the URL it sends: not contacted"},
	} {
		write(tt.file, tt.text)
		out, code := runInHome(home, env, "doctor", "--timeout", "20s")
		remove(tt.file)
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, tt.name+` registers "cad-autocad"`) {
				line = l
			}
		}
		if tt.ok && (code != 0 || !strings.HasPrefix(line, "ok ")) || !tt.ok && (code != 1 || !strings.HasPrefix(line, "FAIL ")) || !strings.Contains(line, tt.want) {
			t.Errorf("%s %s: exit %d, want ok %v and %q in its line\n%s", tt.name, tt.text, code, tt.ok, tt.want, out)
		}
		if strings.Contains(out, "s3cret-token") || strings.Contains(out, "s3cret-path") {
			t.Errorf("%s: doctor printed the token or a value it filled in:\n%s", tt.name, out)
		}
	}
}
