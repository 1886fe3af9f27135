package launch_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// The launch settings: flag, then variable, then default, the program and
// its arguments as one choice; each argument as it is, spaces and all.
func TestLaunchSettings(t *testing.T) {
	dir := testdir.New(t)
	t.Chdir(dir)
	prog := `C:\Program Files\FreeCAD 1.0\bin\freecad.exe`
	if runtime.GOOS != "windows" {
		prog = "/opt/Free CAD/bin/freecad"
	}
	macro := "/home/me/My Macros/MCPBridgeBase.FCMacro"
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		command string
		launch  []string
		err     string
	}{
		{"flags", nil, []string{"--launch", prog, "--launch-arg", macro, "--launch-arg", "-u"}, prog, []string{macro, "-u"}, ""},
		{"variables", map[string]string{"CAD_MCP_LAUNCH": prog, "CAD_MCP_LAUNCH_ARG": `["` + macro + `", "two words"]`}, nil, prog, []string{macro, "two words"}, ""},
		{"flag over variable", map[string]string{"CAD_MCP_LAUNCH": "/other/cad", "CAD_MCP_LAUNCH_ARG": `["x"]`}, []string{"--launch", prog}, prog, nil, ""},
		// --launch-arg on the command line takes the choice there: the
		// variable's program is not paired with another's arguments.
		{"one choice", map[string]string{"CAD_MCP_LAUNCH": prog}, []string{"--launch-arg", macro}, "", nil, "--launch-arg needs --launch"},
		{"relative path made absolute", nil, []string{"--launch", "bin/cad"}, filepath.Join(dir, "bin", "cad"), nil, ""},
		{"bare name kept", nil, []string{"--launch", "freecad"}, "freecad", nil, ""},
		{"variable not an array", map[string]string{"CAD_MCP_LAUNCH": prog, "CAD_MCP_LAUNCH_ARG": macro}, nil, "", nil, `environment CAD_MCP_LAUNCH_ARG="` + macro + `": want a JSON array of strings`},
		{"wait", nil, []string{"--launch", prog, "--launch-wait", "0s"}, "", nil, "--launch-wait and --launch-backoff must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			launch.AddFlags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			c, err := launch.ConfigFrom(fs, func(k string) string { return tt.env[k] })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Program != tt.command || fmt.Sprint(c.Args) != fmt.Sprint(tt.launch) {
				t.Errorf("--launch %q %q, want %q %q", c.Program, c.Args, tt.command, tt.launch)
			}
			if got := fs.Lookup("launch").Value.String(); got != tt.command {
				t.Errorf("the flag holds %q, want %q: install and --print-config write it", got, tt.command)
			}
		})
	}
}
