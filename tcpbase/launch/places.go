package launch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Suggestion is a launch command for a CAD program found on this machine.
type Suggestion struct {
	Name    string   // "FreeCAD"
	Program string   // "" when not found
	Args    []string // its arguments
	Notes   []string // what else the user should know
	Why     string   // Program == "": where it looked
	Missing string   // the command is not complete: what is missing
}

// Suggest is the launch command for cad ("freecad" or "autocad", in any
// case), with FreeCAD's base macro or AutoCAD's startup script when
// given ("" to find or ask for it). On this very system (OS is
// runtime.GOOS), what the command names must be there: a macro without
// its cadbase folder opens FreeCAD with no base, and every call then
// waits the whole --launch-wait. A CAD program it does not know is an
// error.
func (k Places) Suggest(cad, macro, script string) (Suggestion, error) {
	var s Suggestion
	switch strings.ToLower(cad) {
	case "freecad":
		s = k.FreeCAD(macro)
	case "autocad":
		s = k.AutoCAD(script)
	case "":
		return s, errors.New("--cad is required: freecad or autocad")
	default:
		return s, fmt.Errorf("--cad %q: mcp-bridge knows freecad and autocad; for another CAD program, give --launch PROGRAM and a --launch-arg per argument yourself", cad)
	}
	if s.Program != "" && s.Missing == "" && k.OS == runtime.GOOS {
		if p := (Command{Path: s.Program, Args: s.Args}).Problems(k.Home()); len(p) > 0 {
			s.Missing = strings.Join(p, "; ")
		}
	}
	return s, nil
}

// Places finds CAD programs where their installers put them, on the
// system OS, with the environment Getenv (HOME, APPDATA, ProgramFiles, …):
// what launch-command suggests.
type Places struct {
	OS     string
	Getenv func(string) string
	Root   string // "" for the system's own root
	Beside string // the folder of this mcp-bridge, whose freecad folder the release archive fills
}

// sys is a system folder's path (under root, for tests).
func (k Places) sys(path string) string {
	if k.Root == "" {
		return path
	}
	return filepath.Join(k.Root, filepath.FromSlash(path))
}

// Home is the user's home folder on the system asked about.
func (k Places) Home() string {
	if k.OS == "windows" {
		return k.Getenv("USERPROFILE")
	}
	return k.Getenv("HOME")
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
func (k Places) inPath(names ...string) string {
	for _, dir := range filepath.SplitList(k.Getenv("PATH")) {
		for _, n := range names {
			if p := filepath.Join(dir, n); dir != "" && isFile(p) {
				return p
			}
		}
	}
	return ""
}

// FreeCAD: desktop FreeCAD, running the base macro at start.
func (k Places) FreeCAD(macro string) Suggestion {
	s := Suggestion{Name: "FreeCAD"}
	var looked []string
	try := func(paths ...string) {
		for _, p := range paths {
			if p == "" {
				continue
			}
			looked = append(looked, p)
			if s.Program == "" && isFile(p) {
				s.Program = p
			}
		}
	}
	home := k.Home()
	var macroDirs []string
	switch k.OS {
	case "linux", "freebsd":
		if p := k.inPath("freecad", "FreeCAD"); p != "" {
			try(p)
		}
		looked = append(looked, "freecad in PATH")
		try(k.sys("/usr/bin/freecad"), k.sys("/usr/local/bin/freecad"), k.sys("/snap/bin/freecad"))
		try(newest(under(home, "Applications", "FreeCAD*.AppImage"))...)
		data := k.Getenv("XDG_DATA_HOME")
		if data == "" {
			data = under(home, ".local", "share")
		}
		macroDirs = append(newest(under(data, "FreeCAD", "v*", "Macro")), under(data, "FreeCAD", "Macro"), under(home, ".FreeCAD", "Macro"))
		if s.Program == "" {
			for _, root := range []string{k.sys("/var/lib/flatpak"), under(home, ".local", "share", "flatpak")} {
				if st, err := os.Stat(under(root, "app", "org.freecad.FreeCAD")); err == nil && st.IsDir() {
					s.Program, s.Args = k.inPath("flatpak"), []string{"run", "org.freecad.FreeCAD"}
					if s.Program == "" {
						s.Program = k.sys("/usr/bin/flatpak")
					}
					macroDirs = append([]string{under(home, ".var", "app", "org.freecad.FreeCAD", "data", "FreeCAD", "Macro")}, macroDirs...)
					break
				}
			}
			looked = append(looked, "Flatpak org.freecad.FreeCAD")
		}
	case "windows":
		for _, root := range []string{k.Getenv("ProgramFiles"), under(k.Getenv("LOCALAPPDATA"), "Programs")} {
			for _, dir := range newest(under(root, "FreeCAD*")) {
				try(filepath.Join(dir, "bin", "freecad.exe"), filepath.Join(dir, "bin", "FreeCAD.exe"))
			}
			if root != "" {
				looked = append(looked, filepath.Join(root, `FreeCAD *\bin\freecad.exe`))
			}
		}
		appdata := k.Getenv("APPDATA")
		macroDirs = append(newest(under(appdata, "FreeCAD", "v*", "Macro")), under(appdata, "FreeCAD", "Macro"))
	case "darwin":
		try(k.sys("/Applications/FreeCAD.app/Contents/MacOS/FreeCAD"), under(home, "Applications", "FreeCAD.app", "Contents", "MacOS", "FreeCAD"))
		support := under(home, "Library", "Application Support", "FreeCAD")
		macroDirs = append(newest(under(support, "v*", "Macro")), under(support, "Macro"), under(home, "Library", "Preferences", "FreeCAD", "Macro"))
	default:
		s.Why = fmt.Sprintf("mcp-bridge does not know where FreeCAD is installed on %s: give --launch with the path of its program, and --launch-arg with the base macro %s", k.OS, FreeCADMacro)
		return s
	}
	if s.Program == "" {
		s.Why = fmt.Sprintf("mcp-bridge does not know where FreeCAD is installed on this machine (it looked at %s): give --launch with the path of its program, and --launch-arg with the base macro %s", strings.Join(looked, ", "), FreeCADMacro)
		return s
	}
	if macro == "" {
		for _, d := range macroDirs {
			if d != "" && isFile(filepath.Join(d, FreeCADMacro)) {
				macro = filepath.Join(d, FreeCADMacro)
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
	if p := filepath.Join(k.Beside, "freecad", FreeCADMacro); macro == "" && k.Beside != "" && isFile(p) {
		macro, fromArchive = p, true
	}
	if macro == "" {
		macro = filepath.Join(first, FreeCADMacro)
		s.Missing = fmt.Sprintf("the base macro is neither in FreeCAD's macro folder nor beside mcp-bridge: copy %s and the cadbase folder from the freecad folder of the mcp-bridge archive into %s (FreeCAD's Macro > Macros... shows the folder), or give --macro with where they are", FreeCADMacro, first)
	}
	s.Args = append(s.Args, macro)
	s.Notes = append(s.Notes, "the base macro: "+macro+" (the cadbase folder beside it); FreeCAD runs it at start, and its base listens on the port of FreeCAD's MCPBridge/Port preference (8080 unless set): give the bridge the same --port")
	if fromArchive {
		s.Notes = append(s.Notes, "it is the one beside mcp-bridge: keep that folder where it is, or copy "+FreeCADMacro+" and the cadbase folder into FreeCAD's macro folder ("+first+") and run launch-command again")
	}
	return s
}

// AutoCAD: acad.exe, the newest release under Program Files, running a
// startup script (/b) that starts the user's MCP base.
func (k Places) AutoCAD(script string) Suggestion {
	s := Suggestion{Name: "AutoCAD"}
	if k.OS != "windows" {
		s.Why = fmt.Sprintf("mcp-bridge knows where AutoCAD is installed on Windows only (acad.exe under Program Files), not on %s: give --launch with the path of its program yourself", k.OS)
		return s
	}
	var looked []string
	for _, root := range []string{k.Getenv("ProgramFiles"), k.Getenv("ProgramW6432")} {
		for _, dir := range newest(under(root, "Autodesk", "AutoCAD*")) {
			if p := filepath.Join(dir, "acad.exe"); s.Program == "" && isFile(p) {
				s.Program = p
			}
		}
		if root != "" {
			looked = append(looked, filepath.Join(root, `Autodesk\AutoCAD *\acad.exe`))
		}
	}
	if s.Program == "" {
		s.Why = fmt.Sprintf("mcp-bridge found no AutoCAD (it looked at %s): give --launch with the path of acad.exe yourself", strings.Join(looked, ", "))
		return s
	}
	if script == "" {
		script = `C:\path\to\start-mcp-base.scr`
		s.Missing = "--script: give the startup script (.scr) that starts your AutoCAD MCP base (its NETLOAD or APPLOAD line, then its start command)"
	}
	s.Args = []string{"/b", script}
	s.Notes = append(s.Notes, "the startup script: "+script+" (/b runs it once AutoCAD has opened its drawing; it must start your MCP base)")
	return s
}
