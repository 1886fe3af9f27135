package launch_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// Problems names what a command needs that is not there, at each edge:
// the program; an argument that is an absolute path, or a relative macro,
// script or drawing name read from home; the FreeCAD macro's cadbase
// folder, which must be a folder beside it. Switches and words are no
// files.
func TestCommandProblems(t *testing.T) {
	dir := testdir.New(t)
	home := filepath.Join(dir, "home")
	mk := func(rel string, folder bool) string {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if folder {
			_ = os.MkdirAll(p, 0o755)
		} else if err := os.WriteFile(p, []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	prog := mk("bin/cad.exe", false)
	good := mk("good/"+launch.FreeCADMacro, false)
	mk("good/cadbase", true)
	bare := mk("bare/"+launch.FreeCADMacro, false)
	fileNotFolder := mk("file/"+launch.FreeCADMacro, false)
	mk("file/cadbase", false)
	mk("home/start.scr", false)
	other := mk("other/Other.FCMacro", false)
	tests := []struct {
		name string
		cmd  launch.Command
		want []string // one substring per problem, in order
	}{
		{"all there", launch.Command{Path: prog, Args: []string{good, "/b", "-addr", "127.0.0.1:8080", "start.scr", "word"}}, nil},
		{"no program", launch.Command{Path: filepath.Join(dir, "bin", "cda.exe")}, []string{"the program " + filepath.Join(dir, "bin", "cda.exe") + " is not found"}},
		{"a folder is no program", launch.Command{Path: filepath.Join(dir, "bin")}, []string{"is not found"}},
		{"an absolute file that is not there", launch.Command{Path: prog, Args: []string{filepath.Join(dir, "nothing.FCMacro")}}, []string{"the file " + filepath.Join(dir, "nothing.FCMacro") + " (a --launch-arg) is not there"}},
		{"a script name, not in home", launch.Command{Path: prog, Args: []string{"stop.scr"}}, []string{"the file " + filepath.Join(home, "stop.scr") + " (a --launch-arg) is not there"}},
		{"the macro without cadbase", launch.Command{Path: prog, Args: []string{bare}}, []string{"the cadbase folder is not beside " + bare}},
		{"cadbase a file", launch.Command{Path: prog, Args: []string{fileNotFolder}}, []string{"the cadbase folder is not beside"}},
		{"another macro needs no cadbase", launch.Command{Path: prog, Args: []string{other}}, nil},
		{"both", launch.Command{Path: filepath.Join(dir, "none"), Args: []string{bare}}, []string{"is not found", "cadbase"}},
	}
	for _, tt := range tests {
		got := tt.cmd.Problems(home)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %q, want %d problems", tt.name, got, len(tt.want))
			continue
		}
		for i, w := range tt.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: problem %d %q lacks %q", tt.name, i, got[i], w)
			}
		}
	}
}
