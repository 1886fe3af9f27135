package main

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestDryRunSaysWhatItWouldDo: --dry-run reports, in the conditional,
// what install and uninstall would do ("would add", "would update",
// "would remove", "would copy"), and leaves every file as it was; the run
// without it reports what it did.
func TestDryRunSaysWhatItWouldDo(t *testing.T) {
	root := tempDir(t)
	t.Chdir(root)
	home := filepath.Join(root, "home")
	local := filepath.Join(home, "Local")
	vars := map[string]string{"HOME": home, "USERPROFILE": home, "APPDATA": filepath.Join(home, "AppData"), "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "LOCALAPPDATA": local}
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(cursor), 0o755)
	os.WriteFile(cursor, []byte("{}\n"), 0o600)
	exe, _ := os.Executable()
	copyTo := filepath.Join(home, ".local", "bin", "mcp-bridge")
	if runtime.GOOS == "windows" {
		copyTo = filepath.Join(local, "Programs", "mcp-bridge", "mcp-bridge.exe")
	}
	steps := []struct {
		args []string
		want string // a whole line of stdout
	}{
		{[]string{"install", "--client", "cursor", "--dry-run"}, `Cursor: would add "cad-autocad" to ` + cursor},
		{[]string{"install", "--client", "all", "--dry-run"}, `would add ("cad-autocad")`},
		{[]string{"install", "--client", "cursor", "--copy", "--dry-run"}, "would copy " + exe + " to " + copyTo},
		{[]string{"install", "--client", "cursor"}, `Cursor: added "cad-autocad" to ` + cursor},
		{[]string{"install", "--client", "cursor", "--port", "9000", "--dry-run"}, `Cursor: would update "cad-autocad" in ` + cursor},
		{[]string{"uninstall", "--client", "cursor", "--dry-run"}, `Cursor: would remove "cad-autocad" from ` + cursor},
		{[]string{"uninstall", "--client", "all", "--dry-run"}, `would remove ("cad-autocad")`},
		{[]string{"uninstall", "--client", "cursor"}, `Cursor: removed "cad-autocad" from ` + cursor},
	}
	for _, s := range steps {
		before, _ := os.ReadFile(cursor)
		out, errs, code := runCLI(t, vars, "", s.args...)
		line := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(s.want) + `$`)
		if strings.HasSuffix(s.want, ")") { // a cell of --client all's table
			line = regexp.MustCompile(`(?m)^Cursor +` + regexp.QuoteMeta(cursor) + ` +` + regexp.QuoteMeta(s.want) + `$`)
		}
		if code != 0 || !line.MatchString(out) || strings.Contains(out, "would be") {
			t.Errorf("%s: exit %d, want the line %q\n%s%s", strings.Join(s.args, " "), code, s.want, out, errs)
		}
		after, _ := os.ReadFile(cursor)
		if dry := strings.Contains(strings.Join(s.args, " "), "--dry-run"); dry && string(before) != string(after) {
			t.Errorf("%s changed %s:\n%s", strings.Join(s.args, " "), cursor, after)
		}
	}
	if _, err := os.Stat(copyTo); err == nil {
		t.Errorf("install --copy --dry-run copied the binary to %s", copyTo)
	}
}
