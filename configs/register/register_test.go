package register

import "testing"

// TestSetTokenVar: the command install shows sets the variable from the
// token file in the user's shell: PowerShell on Windows, sh elsewhere.
func TestSetTokenVar(t *testing.T) {
	if got, want := SetTokenVar("linux", "/home/me/token"), `export CAD_MCP_TOKEN="$(cat /home/me/token)"`; got != want {
		t.Errorf("linux: %s, want %s", got, want)
	}
	if got, want := SetTokenVar("windows", `C:\Users\O'Neil\token`), `[Environment]::SetEnvironmentVariable('CAD_MCP_TOKEN', (Get-Content -Raw 'C:\Users\O''Neil\token').Trim(), 'User')`; got != want {
		t.Errorf("windows: %s, want %s", got, want)
	}
}
