package clientconf

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Env is the machine as the locator sees it: the OS layout to use (a
// parameter, so that Windows and macOS layouts are tested anywhere), the
// environment, and the project directory for project scope.
type Env struct {
	OS     string // "windows", "darwin" or anything else for Linux/BSD
	Getenv func(string) string
	Dir    string // the project (working) directory
	// Read reads a client file for Registrations: found is false when
	// there is none, problem says why an existing one was not read.
	// Nil reads it whole.
	Read func(path string) (data []byte, problem string, found bool)
	// Processes lists the program files of the running processes, for
	// Running; nil lists this machine's (ProcessPaths).
	Processes func() ([]string, error)
}

// Home is the user's home directory: USERPROFILE on Windows (MSYS2 and Git
// Bash set a HOME of their own that the GUI clients never see), HOME
// elsewhere, each falling back to the other.
func (e Env) Home() string {
	first, second := "HOME", "USERPROFILE"
	if e.OS == "windows" {
		first, second = second, first
	}
	if h := e.Getenv(first); h != "" {
		return h
	}
	return e.Getenv(second)
}

// appData is where GUI applications keep per-user settings: %APPDATA% on
// Windows, ~/Library/Application Support on macOS, $XDG_CONFIG_HOME or
// ~/.config elsewhere.
func (e Env) appData() string {
	switch e.OS {
	case "windows":
		return e.Getenv("APPDATA")
	case "darwin":
		return join(e.Home(), "Library", "Application Support")
	}
	return e.xdgConfig()
}

// LockDir is where install keeps the locks that serialise its edits of a
// client's file across processes: a folder of this user's, in the user's
// cache (%LOCALAPPDATA%, ~/Library/Caches, $XDG_CACHE_HOME or ~/.cache),
// so that nothing is left beside the client's own files; "" when none is
// known.
func (e Env) LockDir() string {
	var cache string
	switch e.OS {
	case "windows":
		cache = e.Getenv("LOCALAPPDATA")
	case "darwin":
		cache = join(e.Home(), "Library", "Caches")
	default:
		if cache = e.Getenv("XDG_CACHE_HOME"); cache == "" {
			cache = join(e.Home(), ".cache")
		}
	}
	return join(cache, "mcp-bridge", "locks")
}

func (e Env) xdgConfig() string {
	if x := e.Getenv("XDG_CONFIG_HOME"); x != "" {
		return x
	}
	return join(e.Home(), ".config")
}

// join is filepath.Join that yields "" when a part is unknown, so that an
// unset variable never turns into a relative path.
func join(parts ...string) string {
	for _, p := range parts {
		if p == "" {
			return ""
		}
	}
	return filepath.Join(parts...)
}

// File is one place a client reads servers from.
type File struct {
	Client *Client
	Path   string
	Key    []string // the key path of the servers
	Scope  string   // "user", "project" or "local"
	// marker makes the candidate the one to write even before the file
	// exists: the client is installed in that layout.
	marker string
	// readsBecause says why the client reads this file rather than the
	// others (read.go's readReason): only where more than "it exists"
	// rests behind it.
	readsBecause string
	// Note says what is special about this file, for doctor.
	Note string
	// projects: the file also keeps servers per project folder (place).
	projects bool
}

func exists(p string) bool {
	if p == "" {
		return false
	}
	_, err := os.Stat(p)
	return err == nil
}

// Present is true when the file exists or the layout it belongs to does.
func (f File) Present() bool { return exists(f.Path) || exists(f.marker) }

// A place is one file a client reads, as data in its row: Path (and
// Marker) are templates that Env.path turns into this machine's paths.
type place struct {
	Path string
	// OS: the file is read only on this system: "windows", "darwin", or
	// "linux" (Linux and the other Unixes); "" on every one.
	OS string
	// Marker makes the file the one to write even before it exists: the
	// client is installed in that layout when Marker exists.
	Marker string
	// Projects: the file also keeps servers per project folder, under
	// projects → DIR → mcpServers (Claude Code's ~/.claude.json).
	Projects bool
	// Note says what is special about the file, for doctor. A path of
	// DoctorReads may have "*" for the file's folder: every file it
	// matches is read, and "*" in Note is that folder's name.
	Note string
	// Scope of a DoctorReads file ("user" when empty).
	Scope string
}

// path is the path the template t names on this machine; "" when a folder
// it starts from is unknown (an unset variable), never a relative path.
// A template is a folder, then "/"-separated names under it:
//
//	~               the user's home (Home)
//	{appdata}       per-user settings of GUI applications (appData)
//	{xdg}           $XDG_CONFIG_HOME or ~/.config, on every system
//	{localappdata}  %LOCALAPPDATA%
//	{project}       the project folder (Dir)
//	${VAR:-DEFAULT} the folder the variable VAR names; when it is unset
//	                or blank, DEFAULT (itself a template)
func (e Env) path(t string) string {
	var dir, rest string
	if strings.HasPrefix(t, "${") {
		end := strings.IndexByte(t, '}')
		name, def, _ := strings.Cut(t[2:end], ":-")
		if dir = e.Getenv(name); strings.TrimSpace(dir) == "" {
			dir = e.path(def)
		}
		rest = strings.TrimPrefix(t[end+1:], "/")
	} else {
		var root string
		root, rest, _ = strings.Cut(t, "/")
		switch root {
		case "~":
			dir = e.Home()
		case "{appdata}":
			dir = e.appData()
		case "{xdg}":
			dir = e.xdgConfig()
		case "{localappdata}":
			dir = e.Getenv("LOCALAPPDATA")
		case "{project}":
			dir = e.Dir
		default:
			panic("clientconf: a place starts from an unknown folder: " + t)
		}
	}
	if rest == "" {
		return dir
	}
	return join(append([]string{dir}, strings.Split(rest, "/")...)...)
}

// system is the OS layout as places name it.
func (e Env) system() string {
	if e.OS == "windows" || e.OS == "darwin" {
		return e.OS
	}
	return "linux"
}

// Candidates lists, in the order the client prefers them, the files it may
// read for the scope ("user", "project", or for Claude Code "local").
func (e Env) Candidates(c *Client, scope string) []File {
	switch scope {
	case "project":
		return e.files(c, scope, c.ProjectFiles)
	case "local":
		if c.LocalFile == "" {
			return nil
		}
		return []File{{Client: c, Path: e.path(c.LocalFile), Key: []string{"projects", e.Dir, "mcpServers"}, Scope: scope}}
	}
	var out []File
	if c.storeBuild != nil {
		for _, f := range c.storeBuild(e) {
			f.Client, f.Key, f.Scope = c, []string{c.ServersKey()}, scope
			out = append(out, f)
		}
	}
	return append(out, e.files(c, scope, c.UserFiles)...)
}

// files are the places that are on this system, as c's files for scope.
func (e Env) files(c *Client, scope string, places []place) []File {
	var out []File
	for _, p := range places {
		if p.OS != "" && p.OS != e.system() {
			continue
		}
		f := File{Client: c, Path: e.path(p.Path), Key: []string{c.ServersKey()}, Scope: scope, Note: p.Note, projects: p.Projects}
		if p.Marker != "" {
			f.marker = e.path(p.Marker)
		}
		out = append(out, f)
	}
	return out
}

// doctorReads are c's DoctorReads files on this machine.
func (e Env) doctorReads(c *Client) []File {
	var out []File
	for _, p := range c.DoctorReads {
		scope := p.Scope
		if scope == "" {
			scope = "user"
		}
		paths := []string{e.path(p.Path)}
		if strings.Contains(p.Path, "*") {
			paths, _ = filepath.Glob(paths[0])
			sort.Strings(paths)
		}
		for _, path := range paths {
			note := strings.ReplaceAll(p.Note, "*", filepath.Base(filepath.Dir(path)))
			out = append(out, File{Client: c, Path: path, Key: []string{c.ServersKey()}, Scope: scope, Note: note})
		}
	}
	return out
}

// Target is the file install writes for the scope: the first candidate
// that is present (the file, or its client's layout), else the first.
func (e Env) Target(c *Client, scope string) (File, bool) {
	cands := e.Candidates(c, scope)
	if len(cands) == 0 || cands[0].Path == "" {
		return File{}, false
	}
	for _, f := range cands {
		if f.Path != "" && f.Present() {
			return f, true
		}
	}
	return cands[0], true
}

// Installed reports whether the client seems to be on this machine: one
// of its files exists, or the folder its user file would go in.
func (e Env) Installed(c *Client) bool {
	for _, f := range e.Candidates(c, "user") {
		if f.Present() {
			return true
		}
	}
	f, ok := e.Target(c, "user")
	return ok && filepath.Dir(f.Path) != filepath.Clean(e.Home()) && exists(filepath.Dir(f.Path))
}

// AllFiles lists every file doctor reads: every candidate of every scope,
// and the files each client's DoctorReads names.
func (e Env) AllFiles() []File {
	var out []File
	for _, c := range Clients {
		for _, scope := range []string{"user", "project"} {
			out = append(out, e.Candidates(c, scope)...)
		}
		out = append(out, e.doctorReads(c)...)
	}
	// A file two clients share (.mcp.json for Claude Code and CodeBuddy)
	// is read once, under the first.
	seen := map[string]bool{}
	var uniq []File
	for _, f := range out {
		k := strings.Join(append([]string{f.Path}, f.Key...), "\x00")
		if f.Path == "" || seen[k] {
			continue
		}
		seen[k] = true
		uniq = append(uniq, f)
	}
	return uniq
}
