package register

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// TestInstallAsksToQuitClaudeDesktop: Claude Desktop running (on Windows
// and macOS, told by its program's path) writes its file back when it
// quits, so install and uninstall say to quit it from its tray or menu bar
// icon, and leave the file as it was; --force writes it with a warning,
// --dry-run says so and goes on. Claude Code's claude.exe running is not
// Claude Desktop. Every install that changed a file says what to restart.
func TestInstallAsksToQuitClaudeDesktop(t *testing.T) {
	for goos, app := range map[string]string{
		"windows": `C:\Users\ana\AppData\Local\AnthropicClaude\app-0.14.10\claude.exe`,
		"darwin":  "/Applications/Claude.app/Contents/MacOS/Claude",
	} {
		home := testdir.New(t)
		vars := map[string]string{"HOME": home, "USERPROFILE": home, "APPDATA": filepath.Join(home, "AppData", "Roaming"), "LOCALAPPDATA": filepath.Join(home, "AppData", "Local")}
		running := []string{app}
		ce := clientconf.Env{OS: goos, Getenv: func(k string) string { return vars[k] }, Dir: home, Processes: func() ([]string, error) { return running, nil }}
		target, _ := ce.Target(clientconf.Lookup("claude-desktop"), "user")
		os.MkdirAll(filepath.Dir(target.Path), 0o755)
		os.WriteFile(target.Path, []byte("{}\n"), 0o600)
		req := Request{Client: "claude-desktop", Scope: "user", Name: "cad-autocad", Server: clientconf.Server{Command: "/bin/mcp-bridge"}}
		run := func(r Request) (string, string, error) {
			var out, errb strings.Builder
			err := Run(ce, r, &out, &errb)
			return out.String(), errb.String(), err
		}
		for _, uninstall := range []bool{false, true} {
			r := req
			r.Uninstall = uninstall
			_, errs, err := run(r)
			b, _ := os.ReadFile(target.Path)
			if err == nil || !strings.Contains(errs, "Claude Desktop is running: it writes its settings file back when it quits, which would undo this. Quit it (") ||
				!strings.Contains(errs, "--force writes the file now anyway") || string(b) != "{}\n" {
				t.Errorf("%s, uninstall %v, Claude Desktop running: %v\n%s\nfile %s", goos, uninstall, err, errs, b)
			}
		}
		dry := req
		dry.DryRun = true
		if out, errs, err := run(dry); err != nil || !strings.Contains(errs, "note: Claude Desktop is running") || !strings.Contains(out, "would add") {
			t.Errorf("%s --dry-run: %v\n%s%s", goos, err, out, errs)
		}
		force := req
		force.Force = true
		if out, errs, err := run(force); err != nil || !strings.Contains(errs, "warning: Claude Desktop is running") || !strings.Contains(out, "added") || !strings.Contains(out, "then: ") {
			t.Errorf("%s --force: %v\n%s%s", goos, err, out, errs)
		}
		running = []string{filepath.Join(home, ".local", "bin", "claude.exe"), "/opt/homebrew/bin/claude"}
		r := req
		r.Uninstall = true
		if out, errs, err := run(r); err != nil || !strings.Contains(out, "removed") || !strings.Contains(out, "then: quit Claude Desktop") {
			t.Errorf("%s, only Claude Code running: %v\n%s%s", goos, err, out, errs)
		}
	}
}
