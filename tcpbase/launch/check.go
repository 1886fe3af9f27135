package launch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// FreeCADMacro is the file name of this project's FreeCAD base macro; the
// macro imports the cadbase folder beside it (tcpbase/freecad).
const FreeCADMacro = "MCPBridgeBase.FCMacro"

// fileExts are the extensions of files a CAD program is given to open or
// run at start: an argument ending in one names a file even when it is
// not an absolute path (the program starts in the home folder and reads
// it from there).
var fileExts = []string{".fcmacro", ".py", ".fcstd", ".scr", ".lsp", ".fas", ".vlx", ".dwg", ".dxf", ".dwt"}

// Find is where the program is, as the launch finds it (a bare name in
// PATH), made absolute; "" when it is not there or is a folder.
func Find(program string) string {
	if program == "" {
		return ""
	}
	p, err := exec.LookPath(program)
	if err != nil {
		if st, serr := os.Stat(program); serr != nil || st.IsDir() || !filepath.IsAbs(program) {
			return ""
		}
		p = program // there, but not executable by this user: exec says so when it starts
	}
	if st, err := os.Stat(p); err != nil || st.IsDir() {
		return ""
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// Problems says, a sentence each, what the command needs and is not
// there: the program (Find), each argument that names a file the program
// opens or runs (one with the extension of a macro, script or drawing: an
// absolute path, or a name read from home, the folder the program starts
// in), and for this
// project's FreeCAD macro the cadbase folder beside it, without which
// FreeCAD opens with no base and every call waits the whole --launch-wait.
// nil when nothing is missing. launch-command, doctor and install all
// check a command with it.
func (c Command) Problems(home string) []string {
	var out []string
	if Find(c.Path) == "" {
		out = append(out, fmt.Sprintf("the program %s is not found", printable(c.Path)))
	}
	for _, a := range c.Args {
		path, ok := namedFile(a, home)
		if !ok {
			continue
		}
		st, err := os.Stat(path)
		switch {
		case err != nil:
			out = append(out, fmt.Sprintf("the file %s (a --launch-arg) is not there", printable(path)))
			continue
		case st.IsDir():
			continue
		}
		if strings.EqualFold(filepath.Base(path), FreeCADMacro) {
			if st, err := os.Stat(filepath.Join(filepath.Dir(path), "cadbase")); err != nil || !st.IsDir() {
				out = append(out, fmt.Sprintf("the cadbase folder is not beside %s: FreeCAD would open without its MCP base (copy the cadbase folder from the archive's freecad folder next to the macro)", printable(path)))
			}
		}
	}
	return out
}

// namedFile is the file an argument names: an argument with the
// extension of a macro, script or drawing (fileExts), as it is when it is
// an absolute path, else under home. ok is false for any other argument:
// a switch (-addr, AutoCAD's /b), a word, or a path the program may be
// meant to create (its log, say), which need not be there yet.
func namedFile(arg, home string) (string, bool) {
	if arg == "" || strings.HasPrefix(arg, "-") || isSlashSwitch(arg) {
		return "", false
	}
	ext := strings.ToLower(filepath.Ext(arg))
	if !slices.Contains(fileExts, ext) {
		return "", false
	}
	if filepath.IsAbs(arg) {
		return arg, true
	}
	if home == "" {
		return "", false
	}
	return filepath.Join(home, arg), true
}

// isSlashSwitch: "/b", "/nologo" (a Windows program's switch, never a file
// at the root of a Unix system that a CAD program is given).
func isSlashSwitch(arg string) bool {
	if len(arg) < 2 || arg[0] != '/' {
		return false
	}
	for _, r := range arg[1:] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
