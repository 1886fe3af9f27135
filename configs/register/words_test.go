package register

import (
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
)

// TestCopyHintRunsTheBinaryWhereItIs: the command that registers a copy
// that stays, shown when the binary is in Downloads, is one a new user can
// paste. On Windows the folder's program runs as .\mcp-bridge.exe (cmd and
// PowerShell both; PowerShell runs no program of the current folder by its
// bare name, and mcp-bridge is on no PATH yet), after a cd when the
// terminal is elsewhere; a name with spaces takes PowerShell's & '…'.
// Both layouts, whatever OS runs the test.
func TestCopyHintRunsTheBinaryWhereItIs(t *testing.T) {
	win := map[string]string{"USERPROFILE": `C:\Users\ana`, "TEMP": `C:\Users\ana\AppData\Local\Temp`, "LOCALAPPDATA": `C:\Users\ana\AppData\Local`}
	unix := map[string]string{"HOME": "/home/ana", "TMPDIR": "/tmp"}
	tests := []struct {
		goos, exe, dir string
		vars           map[string]string
		want           string
	}{
		{"windows", `C:\Users\ana\Downloads\mcp-bridge.exe`, `C:\Users\ana\Downloads`, win, "  .\\mcp-bridge.exe install --copy --client cursor\n"},
		{"windows", `C:\Users\ana\Downloads\mcp-bridge.exe`, `c:\users\ana\downloads\`, win, "  .\\mcp-bridge.exe install --copy --client cursor\n"},
		{"windows", `C:\Users\ana\Downloads\mcp-bridge.exe`, `C:\Users\ana`, win, "  cd \"C:\\Users\\ana\\Downloads\"\n  .\\mcp-bridge.exe install --copy --client cursor\n"},
		{"windows", `C:\Users\ana\Downloads\mcp-bridge (1).exe`, `C:\Users\ana\Downloads`, win, "  & '.\\mcp-bridge (1).exe' install --copy --client cursor\n"},
		{"windows", `C:\Users\ana\Downloads\mcp-bridge_windows_amd64.exe`, `C:\Users\ana\Downloads`, win, "  .\\mcp-bridge_windows_amd64.exe install --copy --client cursor\n"},
		{"linux", "/home/ana/Downloads/mcp-bridge", "/home/ana/Downloads", unix, "  ./mcp-bridge install --copy --client cursor\n"},
		{"linux", "/home/ana/Downloads/mcp-bridge", "/home/ana", unix, "  /home/ana/Downloads/mcp-bridge install --copy --client cursor\n"},
	}
	for _, tt := range tests {
		ce := clientconf.Env{OS: tt.goos, Dir: tt.dir, Getenv: func(k string) string { return tt.vars[k] }}
		got := TransientWarning(ce, tt.exe, "install --copy --client cursor")
		if !strings.Contains(got, "Register a copy that stays") || !strings.HasSuffix(got, ":\n"+tt.want) {
			t.Errorf("%s %s from %s:\n%s\nwant it to end with\n%s", tt.goos, tt.exe, tt.dir, got, tt.want)
		}
	}
}
