package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// TestStoreBuildShadowsTheClassicFile: on Windows, an entry in
// %APPDATA%\Claude is never read once the Microsoft Store build of Claude
// Desktop is installed (its package folder exists). doctor says what that
// claim rests on (the package folder), and names as a file to remove only
// one that exists and whose removal would help: none, since the Store
// build reads its own copy whatever the classic file holds. Run with the
// Windows layout whatever OS runs the test.
func TestStoreBuildShadowsTheClassicFile(t *testing.T) {
	root := testdir.New(t)
	vars := map[string]string{"USERPROFILE": root, "APPDATA": filepath.Join(root, "Roaming"), "LOCALAPPDATA": filepath.Join(root, "Local")}
	classic := filepath.Join(vars["APPDATA"], "Claude", "claude_desktop_config.json")
	os.MkdirAll(filepath.Dir(classic), 0o700)
	os.WriteFile(classic, []byte(`{"mcpServers":{"cad":{"command":"C:\\mcp\\mcp-bridge.exe"}}}`), 0o600)
	pkg := filepath.Join(vars["LOCALAPPDATA"], "Packages", "Claude_pzs8sxrjxfjjc")
	stored := filepath.Join(pkg, "LocalCache", "Roaming", "Claude", "claude_desktop_config.json")
	o := Options{OS: "windows", Getenv: func(k string) string { return vars[k] }, Dir: root, Timeout: 10 * time.Second}
	problem := func() string {
		for _, c := range findConfigs(context.Background(), o, nil) {
			if c.File == classic {
				return c.Problem
			}
		}
		t.Fatalf("doctor did not report the entry in %s", classic)
		return ""
	}
	why := "its package folder " + pkg + " exists, so the Microsoft Store (MSIX) build is installed"

	// No package folder: the classic file is the one read.
	if p := problem(); strings.Contains(p, "never reads") {
		t.Errorf("no Store build, yet: %s", p)
	}

	// The package folder only: its file does not exist, and doctor must not
	// say it does, nor tell the user to remove it.
	os.MkdirAll(pkg, 0o700)
	p := problem()
	want := "Claude Desktop never reads this entry: it reads " + stored + " instead, which does not exist yet (" + why
	if !strings.HasPrefix(p, want) || strings.Contains(p, "the first of its files that exists") || strings.Contains(p, "remove") || !strings.HasSuffix(p, "(mcp-bridge install --client claude-desktop creates it)") {
		t.Errorf("package folder only:\n got %s\nwant %s…", p, want)
	}

	// The package's file exists: named, still with what the claim rests
	// on; removing it would not make the Store build read the classic file.
	os.MkdirAll(filepath.Dir(stored), 0o700)
	os.WriteFile(stored, []byte(`{"mcpServers":{}}`), 0o600)
	p = problem()
	want = "Claude Desktop never reads this entry: it reads " + stored + " instead (" + why
	if !strings.HasPrefix(p, want) || strings.Contains(p, "does not exist") || strings.Contains(p, "remove") {
		t.Errorf("package file present:\n got %s\nwant %s…", p, want)
	}
}
