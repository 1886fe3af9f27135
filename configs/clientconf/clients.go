// Package clientconf knows where each MCP client keeps its server list and
// in what format, and edits those files in place: one entry added, updated
// or removed, every other byte (other servers, unknown fields, comments)
// kept. --print-config, install, uninstall and doctor all use it.
//
// Where each client's file lives, and the sources, are in configs/README.md.
package clientconf

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Server is what a client needs to start the bridge, or, for an entry in
// a client's own URL form, the remote bridge's URL and the headers to send.
type Server struct {
	Command string
	Args    []string
	Env     map[string]string
	URL     string            `json:",omitempty"`
	Headers map[string]string `json:",omitempty"`
	// TokenEnv names the variable a URL entry's client reads the bearer
	// token from, for a client that takes the variable's name rather than
	// a header (Codex's bearer_token_env_var).
	TokenEnv string `json:",omitempty"`
}

// TokenFromVar: the URL entry sends the token from TokenVar, by its
// Authorization header or by naming the variable (TokenEnv), exactly as
// some client's URL entry of ours does: a header that names another
// variable (CAD_MCP_TOKEN_LAPTOP) is a server of the user's own, which
// doctor must not send CAD_MCP_TOKEN to.
func (s Server) TokenFromVar() bool {
	if s.TokenEnv == TokenVar {
		return true
	}
	auth, ok := s.Headers["Authorization"]
	if !ok {
		return false
	}
	for _, c := range Clients {
		if c.URLForm != nil && c.URLForm.VarRef != "" && auth == "Bearer "+c.TokenRef() {
			return true
		}
	}
	return false
}

// TokenVar is the environment variable a URL entry's Authorization header
// takes the token from: the token itself is never written in the file.
const TokenVar = "CAD_MCP_TOKEN"

// URLForm is how a client takes a remote Streamable HTTP server in its
// own file, with headers and an environment variable expanded in them
// (sources in configs/README.md).
type URLForm struct {
	Type string // the entry's "type" ("http", OpenCode's "remote"); "" for none
	// URLKey is the URL member: "url", Gemini CLI's "httpUrl", Windsurf's
	// "serverUrl".
	URLKey string
	// VarRef is how a header names an environment variable, a format
	// taking the name: "${%s}", "${env:%s}" or OpenCode's "{env:%s}".
	VarRef string
	// TokenKey, for a client that reads the bearer token from a variable
	// it is given the name of (Codex's "bearer_token_env_var"), instead
	// of a header: the member that names TokenVar.
	TokenKey string
	// URLOnly and StdioOnly are the members of the user's that only one
	// form takes, which go when the entry turns into the other form: a
	// client with a strict schema (OpenCode) refuses its whole file when
	// an entry holds a member of the other form.
	URLOnly, StdioOnly []string
}

// URLServer is the entry for the remote bridge at url in c's URL form;
// with token, it sends "Authorization: Bearer" and the token from
// TokenVar in the client's environment.
func (c *Client) URLServer(url string, token bool) Server {
	s := Server{URL: url}
	switch {
	case !token:
	case c.URLForm.TokenKey != "":
		s.TokenEnv = TokenVar
	default:
		s.Headers = map[string]string{"Authorization": "Bearer " + c.TokenRef()}
	}
	return s
}

// TokenRef is how c's URL entry names the token variable.
func (c *Client) TokenRef() string { return fmt.Sprintf(c.URLForm.VarRef, TokenVar) }

// Client.Asks values.
const (
	AsksYes = "yes"
	AsksNo  = "no"
)

// Client is one MCP client's configuration convention.
type Client struct {
	ID   string // the --client value
	Name string // for people
	// Type is the "type" entries carry ("stdio", or "local" for GitHub
	// Copilot CLI and OpenCode); "" for clients whose entries have none.
	Type string
	// Format is the syntax of the file: strictJSON (nil), jsoncFile,
	// tomlFile or yamlFile.
	Format format
	// Key is the member that holds the servers ("mcpServers" when empty).
	Key string
	// CommandArray: the command and its arguments are one array in
	// "command", with no "args" (OpenCode).
	CommandArray bool
	// EnvKey names the environment member ("env" when empty).
	EnvKey string
	// Extra members a new entry gets (and an existing one keeps as the
	// user set them), such as GitHub Copilot CLI's "tools": ["*"].
	Extra []kv
	// Paste: the client has no file install may edit; its servers are
	// pasted in its settings, at the place this says (--print-config).
	Paste string
	// OnlyOS is the one OS the client runs on ("" for every OS).
	OnlyOS string
	// YAMLList: the servers are a list of entries with a "name"
	// (Continue), not a mapping by name.
	YAMLList bool
	// NameInEntry: the entry carries its own "name" (Continue, Goose).
	NameInEntry bool
	// CommandKey names the command member ("command" when empty).
	CommandKey string
	// NewFile are the members a new file starts with (Continue's config
	// has a name, a version and a schema).
	NewFile []kv
	// Merged: the client reads every one of its user files and merges
	// them (OpenCode), so none shadows another.
	Merged  bool
	Restart string // what to do after the file changed
	// URLForm: install --url writes this form instead of a `connect`
	// entry (nil: the client gets the connect entry).
	URLForm *URLForm
	// Expands is what the client fills in in its file's strings (nil:
	// not known, and every client's syntax is refused for it).
	Expands *Expansion
	// Asks says whether the client shows a server's confirmation question
	// (MCP elicitation, a form with one boolean): AsksYes, AsksNo, or ""
	// when nobody has found out (configs/README.md says where we read it).
	// The client's initialize is what the bridge goes by; this is for
	// doctor, to say who will ask before the client has started.
	Asks string
	// CheckedWith says, for doctor, which of the client's own programs
	// make test-clients runs on what install writes, in which version
	// (the npm package pinned in verify/realclients), and what it shows
	// there (docs/development.md). "" for a client checked only against
	// its documentation.
	CheckedWith string
	// Scopes this client has besides "user".
	Project bool
	Local   bool // Claude Code's local scope (~/.claude.json projects[dir])
}

// Clients lists every client install knows, in the order `--client all`
// goes through them.
var Clients = []*Client{
	{ID: "claude-desktop", Asks: AsksNo, Name: "Claude Desktop", Restart: "quit Claude Desktop completely (also from the tray / menu bar) and start it again"},
	{ID: "claude-code", Asks: AsksYes, Name: "Claude Code", Type: "stdio", URLForm: &URLForm{Type: "http", URLKey: "url", VarRef: "${%s}"}, Project: true, Local: true, Expands: braceVars, Restart: "start a new claude session (/mcp lists the servers)"},
	{ID: "codebuddy", Name: "CodeBuddy", Type: "stdio", URLForm: &URLForm{Type: "http", URLKey: "url", VarRef: "${%s}"}, Project: true, Expands: codebuddyVars, Restart: "restart CodeBuddy",
		CheckedWith: "checked with CodeBuddy Code 2.117.0 itself (npm @tencent-ai/agent-sdk 0.3.201): install's stdio and URL entries connect and list the base's tools, without those a policy denies"},
	{ID: "cursor", Asks: AsksYes, Name: "Cursor", Type: "stdio", URLForm: &URLForm{URLKey: "url", VarRef: "${env:%s}"}, Project: true, Expands: cursorVars, Restart: "Cursor picks the change up; if not, Settings → MCP → refresh, or restart Cursor"},
	{ID: "vscode", Asks: AsksYes, Name: "VS Code", Key: "servers", Type: "stdio", URLForm: vscodeURL, Project: true, Format: jsoncFile, Expands: vscodeVars, Restart: "VS Code reloads mcp.json itself; run \"MCP: List Servers\" to start it"},
	{ID: "vscode-insiders", Asks: AsksYes, Name: "VS Code Insiders", Key: "servers", Type: "stdio", URLForm: vscodeURL, Project: true, Format: jsoncFile, Expands: vscodeVars, Restart: "VS Code Insiders reloads mcp.json itself; run \"MCP: List Servers\" to start it"},
	{ID: "windsurf", Asks: AsksNo, Name: "Windsurf", URLForm: &URLForm{URLKey: "serverUrl", VarRef: "${env:%s}"}, Expands: windsurfVars, Restart: "press refresh in Windsurf's MCP panel (Cascade → MCP servers), or restart Windsurf"},
	{ID: "cline", Asks: AsksNo, Name: "Cline", Restart: "Cline reloads its settings file; if the server does not appear, restart VS Code"},
	{ID: "gemini", Asks: AsksNo, Name: "Gemini CLI", URLForm: &URLForm{URLKey: "httpUrl", VarRef: "${%s}"}, Project: true, Format: jsoncFile, Expands: shellVars, Restart: "start a new gemini session (/mcp lists the servers)"},
	{ID: "codex", Asks: AsksYes, Name: "Codex CLI", Format: tomlFile, URLForm: &URLForm{URLKey: "url", TokenKey: "bearer_token_env_var"}, Project: true, Expands: noVars, Restart: "start a new codex session (/mcp lists the servers)"},
	{ID: "zed", Asks: AsksNo, Name: "Zed", Key: "context_servers", Project: true, Format: jsoncFile, Restart: "Zed reloads settings.json itself; the server appears in the Agent panel's settings"},
	{ID: "visualstudio", Name: "Visual Studio", Key: "servers", Type: "stdio", Project: true, OnlyOS: "windows", Restart: "Visual Studio reloads .mcp.json itself; pick the tools in Copilot Chat's agent mode"},
	{ID: "junie", Name: "JetBrains Junie", Project: true, Restart: "Junie reads mcp.json when it starts a task; if the server does not appear, restart the IDE"},
	{ID: "jetbrains", Name: "JetBrains AI Assistant", Paste: "Settings | Tools | AI Assistant | Model Context Protocol (MCP) → Add → As JSON (Global level)", Restart: "press Apply; the server starts when AI Assistant next needs it"},
	{ID: "copilot-cli", Asks: AsksYes, Name: "GitHub Copilot CLI", Type: "local", URLForm: &URLForm{Type: "http", URLKey: "url", VarRef: "${%s}"}, Extra: []kv{{"tools", []string{"*"}}}, Expands: shellVars, Restart: "start a new copilot session (/mcp show lists the servers)"},
	{ID: "roo-code", Asks: AsksNo, Name: "Roo Code", Project: true, Restart: "Roo Code reloads mcp_settings.json itself; if not, restart VS Code"},
	{ID: "cline-cursor", Asks: AsksNo, Name: "Cline in Cursor", Restart: "Cline reloads its settings file; if the server does not appear, restart Cursor"},
	{ID: "cline-windsurf", Asks: AsksNo, Name: "Cline in Windsurf", Restart: "Cline reloads its settings file; if the server does not appear, restart Windsurf"},
	{ID: "kiro", Asks: AsksYes, Name: "Kiro", Project: true, Restart: "Kiro reloads mcp.json itself (MCP servers in the Kiro panel)"},
	{ID: "amazonq", Asks: AsksNo, Name: "Amazon Q Developer (IDE)", Project: true, Restart: "reopen the Q chat panel, or restart the IDE"},
	{ID: "trae", Name: "Trae", Project: true, Restart: "restart Trae (Settings → MCP lists the server)"},
	{ID: "lmstudio", Asks: AsksNo, Name: "LM Studio", Restart: "LM Studio reloads mcp.json itself (Program tab → Integrations)"},
	{ID: "warp", Asks: AsksNo, Name: "Warp", Project: true, Restart: "Warp reads the file itself (Settings → Agents → MCP servers lists the server)"},
	{ID: "antigravity", Asks: AsksNo, Name: "Antigravity", Restart: "in Antigravity's agent panel, … → MCP Servers → Manage → Refresh"},
	{ID: "continue", Asks: AsksNo, Name: "Continue", Format: yamlFile, YAMLList: true, NameInEntry: true, Project: true, Merged: true, NewFile: []kv{{"name", "Local Config"}, {"version", "1.0.0"}, {"schema", "v1"}}, Restart: "Continue reloads config.yaml itself; the server appears in its MCP settings"},
	{ID: "goose", Asks: AsksYes, Name: "Goose", Format: yamlFile, Key: "extensions", Type: "stdio", CommandKey: "cmd", EnvKey: "envs", NameInEntry: true, Extra: []kv{{"enabled", true}, {"timeout", 300}}, Restart: "start a new goose session (goose Desktop: restart it)"},
	{ID: "opencode", Asks: AsksYes, Name: "OpenCode", Key: "mcp", Type: "local", URLForm: &URLForm{Type: "remote", URLKey: "url", VarRef: "{env:%s}", URLOnly: []string{"oauth"}, StdioOnly: []string{"cwd"}}, CommandArray: true, EnvKey: "environment", Format: jsoncFile, Project: true, Merged: true, Expands: opencodeVars, Restart: "start a new opencode session (opencode mcp list lists the servers)"},
}

var vscodeURL = &URLForm{Type: "http", URLKey: "url", VarRef: "${env:%s}"}

// ServersKey is the member of the client's file that holds its servers.
func (c *Client) ServersKey() string {
	if c.Key == "" {
		return "mcpServers"
	}
	return c.Key
}

func (c *Client) commandKey() string {
	if c.CommandKey == "" {
		return "command"
	}
	return c.CommandKey
}

func (c *Client) envKey() string {
	if c.EnvKey == "" {
		return "env"
	}
	return c.EnvKey
}

// Lookup finds a client by its --client id.
func Lookup(id string) *Client {
	for _, c := range Clients {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// IDs lists the client ids.
func IDs() []string {
	var out []string
	for _, c := range Clients {
		out = append(out, c.ID)
	}
	return out
}

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
	Key    []string // the JSON path of the servers object (unused for TOML)
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

// Candidates lists, in the order the client prefers them, the files it may
// read for the scope ("user", "project", or for Claude Code "local").
func (e Env) Candidates(c *Client, scope string) []File {
	home := e.Home()
	f := func(path string, key ...string) File {
		return File{Client: c, Path: path, Key: key, Scope: scope}
	}
	if scope == "project" {
		if !c.Project {
			return nil
		}
		switch c.ID {
		case "claude-code", "codebuddy":
			return []File{f(join(e.Dir, ".mcp.json"), "mcpServers")}
		case "cursor":
			return []File{f(join(e.Dir, ".cursor", "mcp.json"), "mcpServers")}
		case "vscode", "vscode-insiders":
			return []File{f(join(e.Dir, ".vscode", "mcp.json"), "servers")}
		case "gemini":
			return []File{f(join(e.Dir, ".gemini", "settings.json"), "mcpServers")}
		case "codex":
			return []File{f(join(e.Dir, ".codex", "config.toml"))}
		case "zed":
			return []File{f(join(e.Dir, ".zed", "settings.json"), "context_servers")}
		case "visualstudio":
			return []File{f(join(e.Dir, ".mcp.json"), "servers")} // <solution>\.mcp.json
		case "junie":
			return []File{f(join(e.Dir, ".junie", "mcp", "mcp.json"), "mcpServers")}
		case "roo-code":
			return []File{f(join(e.Dir, ".roo", "mcp.json"), "mcpServers")}
		case "kiro":
			return []File{f(join(e.Dir, ".kiro", "settings", "mcp.json"), "mcpServers")}
		case "amazonq":
			return []File{f(join(e.Dir, ".amazonq", "mcp.json"), "mcpServers")}
		case "trae":
			return []File{f(join(e.Dir, ".trae", "mcp.json"), "mcpServers")}
		case "warp":
			return []File{f(join(e.Dir, ".warp", ".mcp.json"), "mcpServers")}
		case "opencode":
			return []File{f(join(e.Dir, "opencode.json"), "mcp"), f(join(e.Dir, "opencode.jsonc"), "mcp")}
		case "continue":
			// A block file of its own in the workspace's .continue/mcpServers.
			return []File{f(join(e.Dir, ".continue", "mcpServers", "mcp-bridge.yaml"), "mcpServers")}
		}
		return nil
	}
	if scope == "local" {
		if !c.Local {
			return nil
		}
		return []File{f(e.claudeJSON(), "projects", e.Dir, "mcpServers")}
	}
	switch c.ID {
	case "claude-desktop":
		var out []File
		if e.OS == "windows" {
			// The Microsoft Store (MSIX) build reads a virtualized copy of
			// %APPDATA% inside its package; it wins when installed.
			pkgs, _ := filepath.Glob(filepath.Join(e.Getenv("LOCALAPPDATA"), "Packages", "Claude_*"))
			if e.Getenv("LOCALAPPDATA") == "" {
				pkgs = nil
			}
			sort.Strings(pkgs)
			for _, p := range pkgs {
				file := f(filepath.Join(p, "LocalCache", "Roaming", "Claude", "claude_desktop_config.json"), "mcpServers")
				file.marker, file.Note = p, "Microsoft Store (MSIX) build"
				file.readsBecause = "its package folder " + p + " exists, so the Microsoft Store (MSIX) build is installed; Windows gives that build its own %APPDATA% inside the package, and it reads the file there, not %APPDATA%\\Claude's"
				out = append(out, file)
			}
		}
		return append(out, f(join(e.appData(), "Claude", "claude_desktop_config.json"), "mcpServers"))
	case "claude-code":
		return []File{f(e.claudeJSON(), "mcpServers")}
	case "codebuddy":
		// CodeBuddy reads the first of these that exists, in its folder
		// ($CODEBUDDY_CONFIG_DIR, which replaces ~/.codebuddy) and then
		// ~/.codebuddy.json: PathUtils.resolveMcpFilePath of CodeBuddy
		// Code 2.117.0 (configs/README.md).
		dir := join(home, ".codebuddy")
		if d := e.Getenv("CODEBUDDY_CONFIG_DIR"); strings.TrimSpace(d) != "" {
			dir = d
		}
		return []File{f(join(dir, ".mcp.json"), "mcpServers"), f(join(dir, "mcp.json"), "mcpServers"),
			f(join(home, ".codebuddy.json"), "mcpServers")}
	case "cursor":
		return []File{f(join(home, ".cursor", "mcp.json"), "mcpServers")}
	case "vscode", "vscode-insiders":
		return []File{f(join(e.vscodeUser(c), "mcp.json"), "servers")}
	case "windsurf":
		return []File{f(join(home, ".codeium", "windsurf", "mcp_config.json"), "mcpServers")}
	case "cline":
		// The VS Code extension keeps its file in the extension's global
		// storage; Cline's CLI (and newer builds) share ~/.cline/data.
		vs := e.extensionFile(c, "Code", "saoudrizwan.claude-dev", "cline_mcp_settings.json")
		shared := f(join(home, ".cline", "data", "settings", "cline_mcp_settings.json"), "mcpServers")
		shared.marker = join(home, ".cline")
		return []File{vs, shared}
	case "gemini":
		return []File{f(join(home, ".gemini", "settings.json"), "mcpServers")}
	case "codex":
		dir := e.Getenv("CODEX_HOME")
		if dir == "" {
			dir = join(home, ".codex")
		}
		return []File{f(join(dir, "config.toml"))}
	case "zed":
		dir := join(e.xdgConfig(), "zed")
		switch e.OS {
		case "windows":
			dir = join(e.Getenv("APPDATA"), "Zed")
		case "darwin":
			dir = join(home, ".config", "zed")
		}
		return []File{f(join(dir, "settings.json"), "context_servers")}
	case "visualstudio":
		if e.OS != "windows" {
			return nil
		}
		file := f(join(home, ".mcp.json"), "servers")
		file.marker = join(e.Getenv("LOCALAPPDATA"), "Microsoft", "VisualStudio")
		return []File{file}
	case "junie":
		return []File{withMarker(f(join(home, ".junie", "mcp", "mcp.json"), "mcpServers"), join(home, ".junie"))}
	case "copilot-cli":
		// ~/.copilot, or $COPILOT_HOME (GitHub's config directory
		// reference). Not $XDG_CONFIG_HOME/.copilot, which an older page
		// named: the client does not read it (configs/README.md).
		dir := e.Getenv("COPILOT_HOME")
		if dir == "" {
			dir = join(home, ".copilot")
		}
		return []File{f(join(dir, "mcp-config.json"), "mcpServers")}
	case "roo-code":
		return []File{e.extensionFile(c, "Code", "rooveterinaryinc.roo-cline", "mcp_settings.json")}
	case "cline-cursor":
		return []File{e.extensionFile(c, "Cursor", "saoudrizwan.claude-dev", "cline_mcp_settings.json")}
	case "cline-windsurf":
		return []File{e.extensionFile(c, "Windsurf", "saoudrizwan.claude-dev", "cline_mcp_settings.json")}
	case "kiro":
		return []File{withMarker(f(join(home, ".kiro", "settings", "mcp.json"), "mcpServers"), join(home, ".kiro"))}
	case "amazonq":
		return []File{withMarker(f(join(home, ".aws", "amazonq", "mcp.json"), "mcpServers"), join(home, ".aws", "amazonq"))}
	case "trae":
		return []File{f(join(e.appData(), "Trae", "User", "mcp.json"), "mcpServers")}
	case "lmstudio":
		return []File{f(join(home, ".lmstudio", "mcp.json"), "mcpServers")}
	case "warp":
		return []File{f(join(home, ".warp", ".mcp.json"), "mcpServers")}
	case "antigravity":
		// Newer builds keep their settings in ~/.gemini/config, earlier
		// ones in ~/.gemini/antigravity: the first whose folder exists.
		current := f(join(home, ".gemini", "config", "mcp_config.json"), "mcpServers")
		current.marker = filepath.Dir(current.Path)
		earlier := f(join(home, ".gemini", "antigravity", "mcp_config.json"), "mcpServers")
		earlier.marker = filepath.Dir(earlier.Path)
		return []File{current, earlier}
	case "continue":
		// config.yaml, and the block files in ~/.continue/mcpServers, which
		// Continue reads as well. A user still on the deprecated
		// config.json gets a block file: a new config.yaml would replace
		// their whole configuration.
		dir := join(home, ".continue")
		return []File{f(join(dir, "config.yaml"), "mcpServers"),
			withMarker(f(join(dir, "mcpServers", "mcp-bridge.yaml"), "mcpServers"), join(dir, "config.json"))}
	case "goose":
		dir := join(e.xdgConfig(), "goose")
		switch e.OS {
		case "windows":
			dir = join(e.Getenv("APPDATA"), "Block", "goose", "config")
		case "darwin":
			dir = join(home, ".config", "goose")
		}
		return []File{f(join(dir, "config.yaml"), "extensions")}
	case "opencode":
		// OpenCode reads both and merges them; install writes the one
		// that exists (opencode.json when neither does).
		dir := join(e.xdgConfig(), "opencode")
		return []File{f(join(dir, "opencode.json"), "mcp"), f(join(dir, "opencode.jsonc"), "mcp")}
	}
	return nil
}

// withMarker: the client is installed when the folder marker exists,
// even before the folder its file goes in does.
func withMarker(f File, marker string) File {
	f.marker = marker
	return f
}

// extensionFile is a VS Code extension's settings file in the global
// storage of the editor that runs it (Code, Cursor, Windsurf); the
// extension is installed when its storage folder exists.
func (e Env) extensionFile(c *Client, editor, extension, name string) File {
	ext := join(e.appData(), editor, "User", "globalStorage", extension)
	return File{Client: c, Path: join(ext, "settings", name), Key: []string{"mcpServers"}, Scope: "user", marker: ext}
}

// claudeJSON is Claude Code's ~/.claude.json ($CLAUDE_CONFIG_DIR moves it).
func (e Env) claudeJSON() string {
	if d := e.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, ".claude.json")
	}
	return join(e.Home(), ".claude.json")
}

func (e Env) vscodeUser(c *Client) string {
	name := "Code"
	if c.ID == "vscode-insiders" {
		name = "Code - Insiders"
	}
	return join(e.appData(), name, "User")
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
	if c.ID == "claude-code" {
		return exists(join(e.Home(), ".claude"))
	}
	f, ok := e.Target(c, "user")
	return ok && filepath.Dir(f.Path) != filepath.Clean(e.Home()) && exists(filepath.Dir(f.Path))
}

// AllFiles lists every file doctor reads: every candidate of every scope,
// and the other VS Code profiles.
func (e Env) AllFiles() []File {
	var out []File
	for _, c := range Clients {
		for _, scope := range []string{"user", "project"} {
			out = append(out, e.Candidates(c, scope)...)
		}
		if c.ID == "vscode" || c.ID == "vscode-insiders" {
			user := e.vscodeUser(c)
			if user != "" {
				profiles, _ := filepath.Glob(filepath.Join(user, "profiles", "*", "mcp.json"))
				sort.Strings(profiles)
				for _, p := range profiles {
					out = append(out, File{Client: c, Path: p, Key: []string{"servers"}, Scope: "user", Note: "profile " + filepath.Base(filepath.Dir(p))})
				}
			}
		}
	}
	// Amazon Q's agent file, which its GUI writes: doctor reads the
	// servers in it; install writes the legacy mcp.json (configs/README.md).
	for _, dir := range []string{join(e.Home(), ".aws", "amazonq"), join(e.Dir, ".amazonq")} {
		scope := "user"
		if dir == join(e.Dir, ".amazonq") {
			scope = "project"
		}
		out = append(out, File{Client: Lookup("amazonq"), Path: join(dir, "default.json"), Key: []string{"mcpServers"}, Scope: scope, Note: "agent file"})
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

// Executable is the path to register for this program: the path the user
// ran it by, made absolute (argv[0] with a folder, else found on PATH),
// not resolved through symlinks, so that a package manager's stable link
// (Homebrew's bin/mcp-bridge → Cellar/mcp-bridge/1.2.3/…) survives
// upgrades. Without argv[0], the running executable.
func Executable(argv0 string, lookPath func(string) (string, error), executable func() (string, error)) (string, error) {
	if argv0 != "" {
		p := argv0
		if !strings.ContainsAny(argv0, `/\`) {
			if lp, err := lookPath(argv0); err == nil {
				p = lp
			} else {
				p = ""
			}
		}
		if p != "" {
			if abs, err := filepath.Abs(p); err == nil {
				if st, err := os.Stat(abs); err == nil && !st.IsDir() {
					return abs, nil
				}
			}
		}
	}
	return executable()
}

// CheckName refuses server names clients reject or mangle: empty, longer
// than 64, or with characters other than letters, digits, '-' and '_'
// (tool names built from it, such as mcp__NAME__tool, allow no others).
func CheckName(name string) error {
	if name == "" {
		return fmt.Errorf("--name is empty")
	}
	if len(name) > 64 {
		return fmt.Errorf("--name %q is %d characters: at most 64 (Cursor also rejects tools whose server and tool names together pass 60)", name, len(name))
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("--name %q: use only letters, digits, '-' and '_'", name)
		}
	}
	return nil
}

// Unsubstituted is true for a value a client passed through without
// filling it in, such as Claude Desktop's "${user_config.port}" for a
// bundle setting that has no value: the bridge treats it as unset.
func Unsubstituted(v string) bool {
	return strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}")
}
