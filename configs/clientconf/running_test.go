package clientconf

import (
	"os"
	"slices"
	"testing"
)

// Claude Desktop is told by its program's path on each system, not by a
// name other programs share (Claude Code's claude.exe and claude).
func TestClaudeDesktopByItsPath(t *testing.T) {
	is := Lookup("claude-desktop").quitFirst
	for _, tt := range []struct {
		goos, path string
		want       bool
	}{
		{"windows", `C:\Users\ana\AppData\Local\AnthropicClaude\app-0.14.10\claude.exe`, true},
		{"windows", `C:\Users\ana\AppData\Local\AnthropicClaude\claude.exe`, true},
		{"windows", `C:\Program Files\WindowsApps\Claude_0.14.10.0_x64__pzs8sxrjxfjjc\app\Claude.exe`, true},
		{"windows", `C:\Users\ana\.local\bin\claude.exe`, false}, // Claude Code
		{"windows", `C:\Users\ana\AppData\Local\AnthropicClaude\Update.exe`, false},
		{"windows", `claude.exe`, false}, // a name only: not known to be it
		{"darwin", "/Applications/Claude.app/Contents/MacOS/Claude", true},
		{"darwin", "/Users/ana/Applications/Claude.app/Contents/MacOS/Claude", true},
		{"darwin", "/Applications/Claude.app/Contents/Frameworks/Claude Helper.app/Contents/MacOS/Claude Helper", false},
		{"darwin", "/opt/homebrew/bin/claude", false},
		{"linux", "/usr/lib/claude-desktop/claude-desktop", false},
	} {
		if got := is(tt.goos, tt.path); got != tt.want {
			t.Errorf("%s %s: %v, want %v", tt.goos, tt.path, got, tt.want)
		}
	}
	for _, c := range Clients {
		want := c.ID == "claude-desktop"
		if got := (Env{OS: "windows", Processes: func() ([]string, error) {
			return []string{`C:\Users\ana\AppData\Local\AnthropicClaude\app-1\claude.exe`}, nil
		}}).Running(c); got != want {
			t.Errorf("%s: running %v, want %v", c.ID, got, want)
		}
	}
}

// ProcessPaths lists this very program among the running ones, by its
// path (on Windows under Wine too).
func TestProcessPathsHasThisProgram(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	paths, err := ProcessPaths()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(paths, func(p string) bool { return sameFile(p, exe) }) {
		t.Errorf("%s is not in the %d processes listed", exe, len(paths))
	}
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
