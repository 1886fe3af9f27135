package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
)

const launchCommandUsage = `Usage: mcp-bridge launch-command --cad freecad|autocad [flags]

Prints the --launch and --launch-arg flags that start your CAD program
with its MCP base, for the programs whose install locations mcp-bridge
knows: FreeCAD with this project's base macro (MCPBridgeBase.FCMacro and
its cadbase folder: in FreeCAD's macro folder, or in the freecad folder
beside mcp-bridge, as the release archive has it) on Linux, Windows and
macOS, and AutoCAD (acad.exe under Program Files) with /b and a startup
script that starts your base. It says so when it does not know, and exits
1 when the command is not complete or names a file that is not there.

Examples:
  mcp-bridge launch-command --cad freecad
  mcp-bridge launch-command --cad autocad --script 'C:\cad\start-mcp-base.scr'

Flags:
`

// runLaunchCommand is the launch-command subcommand.
func runLaunchCommand(e *env, args []string) error {
	fs := pflag.NewFlagSet("launch-command", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	cad := fs.String("cad", "", "freecad or autocad")
	macro := fs.String("macro", "", "FreeCAD: the base macro to run (default: MCPBridgeBase.FCMacro in FreeCAD's macro folder; the cadbase folder must be beside it)")
	script := fs.String("script", "", "AutoCAD: the startup script (.scr) that starts your MCP base")
	goos := fs.String("os", runtime.GOOS, "whose install locations: linux, windows or darwin")
	root := fs.String("root", "", "the folder the system's own folders (/usr/bin, /Applications) are in")
	_ = fs.MarkHidden("os") // for tests
	_ = fs.MarkHidden("root")
	fs.Usage = func() { fmt.Fprint(e.stdout, launchCommandUsage+usages(fs, all, nil)) }
	if done, err := parseFlags(fs, args); done {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("launch-command takes no arguments, got %q", fs.Arg(0))}
	}
	k := knownPlaces{os: *goos, getenv: e.getenv, root: *root}
	if exe, err := clientconf.Executable(e.argv0, exec.LookPath, os.Executable); err == nil {
		k.beside = filepath.Dir(exe)
	}
	var s suggestion
	switch strings.ToLower(*cad) {
	case "freecad":
		s = k.freecad(*macro)
	case "autocad":
		s = k.autocad(*script)
	case "":
		return usageError{errors.New("--cad is required: freecad or autocad")}
	default:
		return usageError{fmt.Errorf("--cad %q: mcp-bridge knows freecad and autocad; for another CAD program, give --launch PROGRAM and a --launch-arg per argument yourself", *cad)}
	}
	if s.program == "" {
		return exitError{code: 1, msg: s.why}
	}
	if s.missing == "" && *goos == runtime.GOOS {
		// What the command names must be there: a macro without its
		// cadbase folder opens FreeCAD with no base, and every call then
		// waits the whole --launch-wait.
		if p := (launch.Command{Path: s.program, Args: s.args}).Problems(k.home()); len(p) > 0 {
			s.missing = strings.Join(p, "; ")
		}
	}
	fmt.Fprintf(e.stdout, "%s: %s\n", s.name, s.program)
	for _, n := range s.notes {
		fmt.Fprintf(e.stdout, "%s\n", n)
	}
	flags := []string{"--launch", quoteFor(*goos, s.program)}
	for _, a := range s.args {
		flags = append(flags, "--launch-arg", quoteFor(*goos, a))
	}
	fmt.Fprintf(e.stdout, "\nthe flags:\n  %s\nregister the bridge with them (your client's id instead of CLIENT):\n  mcp-bridge install --client CLIENT %s\n",
		strings.Join(flags, " "), strings.Join(flags, " "))
	if s.missing != "" {
		return exitError{code: 1, msg: s.missing}
	}
	return nil
}

// suggestion is a launch command for a CAD program found on this machine.
type suggestion struct {
	name    string   // "FreeCAD"
	program string   // "" when not found
	args    []string // its arguments
	notes   []string // what else the user should know
	why     string   // program == "": where it looked
	missing string   // the command is not complete: what is missing
}

// knownPlaces finds CAD programs where their installers put them, on the
// system os, with the environment getenv (HOME, APPDATA, ProgramFiles, …).
type knownPlaces struct {
	os     string
	getenv func(string) string
	root   string // "" for the system's own root
	beside string // the folder of this mcp-bridge, whose freecad folder the release archive fills
}

// sys is a system folder's path (under root, for tests).
func (k knownPlaces) sys(path string) string {
	if k.root == "" {
		return path
	}
	return filepath.Join(k.root, filepath.FromSlash(path))
}

func (k knownPlaces) home() string {
	if k.os == "windows" {
		return k.getenv("USERPROFILE")
	}
	return k.getenv("HOME")
}

// under joins a root from the environment with a path below it; "" when
// the variable is not set.
func under(root string, parts ...string) string {
	if root == "" {
		return ""
	}
	return filepath.Join(append([]string{root}, parts...)...)
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return path != "" && err == nil && !st.IsDir()
}

// newest are the paths matching pattern, the highest version first
// ("FreeCAD 1.0" before "FreeCAD 0.21", "AutoCAD 2025" before 2024).
func newest(pattern string) []string {
	if pattern == "" {
		return nil
	}
	m, _ := filepath.Glob(pattern)
	slices.SortFunc(m, func(a, b string) int { return -versionCompare(a, b) })
	return m
}

// versionCompare compares strings with runs of digits compared as numbers.
func versionCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := len(na) - len(nb); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digitRun(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// inPath finds a program in the environment's PATH (not this process's:
// the one the user's client gives the bridge is what counts, and tests
// give their own).
func (k knownPlaces) inPath(names ...string) string {
	for _, dir := range filepath.SplitList(k.getenv("PATH")) {
		for _, n := range names {
			if p := filepath.Join(dir, n); dir != "" && isFile(p) {
				return p
			}
		}
	}
	return ""
}

const macroName = launch.FreeCADMacro

// freecad: desktop FreeCAD, running the base macro at start.
func (k knownPlaces) freecad(macro string) suggestion {
	s := suggestion{name: "FreeCAD"}
	var looked []string
	try := func(paths ...string) {
		for _, p := range paths {
			if p == "" {
				continue
			}
			looked = append(looked, p)
			if s.program == "" && isFile(p) {
				s.program = p
			}
		}
	}
	home := k.home()
	var macroDirs []string
	switch k.os {
	case "linux", "freebsd":
		if p := k.inPath("freecad", "FreeCAD"); p != "" {
			try(p)
		}
		looked = append(looked, "freecad in PATH")
		try(k.sys("/usr/bin/freecad"), k.sys("/usr/local/bin/freecad"), k.sys("/snap/bin/freecad"))
		try(newest(under(home, "Applications", "FreeCAD*.AppImage"))...)
		data := k.getenv("XDG_DATA_HOME")
		if data == "" {
			data = under(home, ".local", "share")
		}
		macroDirs = append(newest(under(data, "FreeCAD", "v*", "Macro")), under(data, "FreeCAD", "Macro"), under(home, ".FreeCAD", "Macro"))
		if s.program == "" {
			for _, root := range []string{k.sys("/var/lib/flatpak"), under(home, ".local", "share", "flatpak")} {
				if st, err := os.Stat(under(root, "app", "org.freecad.FreeCAD")); err == nil && st.IsDir() {
					s.program, s.args = k.inPath("flatpak"), []string{"run", "org.freecad.FreeCAD"}
					if s.program == "" {
						s.program = k.sys("/usr/bin/flatpak")
					}
					macroDirs = append([]string{under(home, ".var", "app", "org.freecad.FreeCAD", "data", "FreeCAD", "Macro")}, macroDirs...)
					break
				}
			}
			looked = append(looked, "Flatpak org.freecad.FreeCAD")
		}
	case "windows":
		for _, root := range []string{k.getenv("ProgramFiles"), under(k.getenv("LOCALAPPDATA"), "Programs")} {
			for _, dir := range newest(under(root, "FreeCAD*")) {
				try(filepath.Join(dir, "bin", "freecad.exe"), filepath.Join(dir, "bin", "FreeCAD.exe"))
			}
			if root != "" {
				looked = append(looked, filepath.Join(root, `FreeCAD *\bin\freecad.exe`))
			}
		}
		appdata := k.getenv("APPDATA")
		macroDirs = append(newest(under(appdata, "FreeCAD", "v*", "Macro")), under(appdata, "FreeCAD", "Macro"))
	case "darwin":
		try(k.sys("/Applications/FreeCAD.app/Contents/MacOS/FreeCAD"), under(home, "Applications", "FreeCAD.app", "Contents", "MacOS", "FreeCAD"))
		support := under(home, "Library", "Application Support", "FreeCAD")
		macroDirs = append(newest(under(support, "v*", "Macro")), under(support, "Macro"), under(home, "Library", "Preferences", "FreeCAD", "Macro"))
	default:
		s.why = fmt.Sprintf("mcp-bridge does not know where FreeCAD is installed on %s: give --launch with the path of its program, and --launch-arg with the base macro %s", k.os, macroName)
		return s
	}
	if s.program == "" {
		s.why = fmt.Sprintf("mcp-bridge does not know where FreeCAD is installed on this machine (it looked at %s): give --launch with the path of its program, and --launch-arg with the base macro %s", strings.Join(looked, ", "), macroName)
		return s
	}
	if macro == "" {
		for _, d := range macroDirs {
			if d != "" && isFile(filepath.Join(d, macroName)) {
				macro = filepath.Join(d, macroName)
				break
			}
		}
	}
	var first string
	for _, d := range macroDirs {
		if d != "" {
			first = d
			break
		}
	}
	fromArchive := false
	if p := filepath.Join(k.beside, "freecad", macroName); macro == "" && k.beside != "" && isFile(p) {
		macro, fromArchive = p, true
	}
	if macro == "" {
		macro = filepath.Join(first, macroName)
		s.missing = fmt.Sprintf("the base macro is neither in FreeCAD's macro folder nor beside mcp-bridge: copy %s and the cadbase folder from the freecad folder of the mcp-bridge archive into %s (FreeCAD's Macro > Macros... shows the folder), or give --macro with where they are", macroName, first)
	}
	s.args = append(s.args, macro)
	s.notes = append(s.notes, "the base macro: "+macro+" (the cadbase folder beside it); FreeCAD runs it at start, and its base listens on the port of FreeCAD's MCPBridge/Port preference (8080 unless set): give the bridge the same --port")
	if fromArchive {
		s.notes = append(s.notes, "it is the one beside mcp-bridge: keep that folder where it is, or copy "+macroName+" and the cadbase folder into FreeCAD's macro folder ("+first+") and run launch-command again")
	}
	return s
}

// autocad: acad.exe, the newest release under Program Files, running a
// startup script (/b) that starts the user's MCP base.
func (k knownPlaces) autocad(script string) suggestion {
	s := suggestion{name: "AutoCAD"}
	if k.os != "windows" {
		s.why = fmt.Sprintf("mcp-bridge knows where AutoCAD is installed on Windows only (acad.exe under Program Files), not on %s: give --launch with the path of its program yourself", k.os)
		return s
	}
	var looked []string
	for _, root := range []string{k.getenv("ProgramFiles"), k.getenv("ProgramW6432")} {
		for _, dir := range newest(under(root, "Autodesk", "AutoCAD*")) {
			if p := filepath.Join(dir, "acad.exe"); s.program == "" && isFile(p) {
				s.program = p
			}
		}
		if root != "" {
			looked = append(looked, filepath.Join(root, `Autodesk\AutoCAD *\acad.exe`))
		}
	}
	if s.program == "" {
		s.why = fmt.Sprintf("mcp-bridge found no AutoCAD (it looked at %s): give --launch with the path of acad.exe yourself", strings.Join(looked, ", "))
		return s
	}
	if script == "" {
		script = `C:\path\to\start-mcp-base.scr`
		s.missing = "--script: give the startup script (.scr) that starts your AutoCAD MCP base (its NETLOAD or APPLOAD line, then its start command)"
	}
	s.args = []string{"/b", script}
	s.notes = append(s.notes, "the startup script: "+script+" (/b runs it once AutoCAD has opened its drawing; it must start your MCP base)")
	return s
}

// quoteFor quotes a word for pasting into a shell of goos: nothing when it
// needs none.
func quoteFor(goos, s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'$`|&;<>()*?[]{}~%!") && (goos == "windows" || !strings.Contains(s, `\`)) {
		return s
	}
	if goos == "windows" {
		return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
