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

// Client is one MCP client, all in its row of Clients: where it keeps its
// servers, in which format and entry shape, what it fills in and how it is
// restarted. The few things that take code are hooks the row names.
type Client struct {
	ID   string // the --client value
	Name string // for people

	// UserFiles and ProjectFiles are the files the client reads for the
	// user and the project scope, in the order it prefers them: it reads
	// the first that is present (the file, or its Marker), unless Merged.
	// A client without ProjectFiles has no project scope.
	UserFiles, ProjectFiles []place
	// LocalFile (a place's template) keeps Claude Code's local scope:
	// the servers of the project folder, under projects → DIR → mcpServers.
	LocalFile string
	// DoctorReads are more files doctor reads servers from, which install
	// never writes (VS Code's other profiles, Amazon Q's agent files).
	DoctorReads []place
	// Merged: the client reads every one of its user files and merges
	// them (OpenCode), so none shadows another.
	Merged bool
	// storeBuild finds user files by looking, ahead of UserFiles (Claude
	// Desktop's Microsoft Store build, a file per package folder).
	storeBuild func(e Env) []File
	// notRead says why the client never reads an entry in f, for a reason
	// of its own ("" when it does: Amazon Q's legacy mcp.json).
	notRead func(f File) string

	// Format is the syntax of the file: strictJSON (nil), jsoncFile,
	// tomlFile or yamlFile.
	Format format
	// Key is the member that holds the servers ("mcpServers" when empty).
	Key string
	// LaterKey is where a later version of the client keeps its servers,
	// used in a file that already has it as an object (OpenCode 2's
	// "mcp" → "servers", where 1.x has them under "mcp").
	LaterKey []string
	// The entry's shape. Type is the "type" entries carry ("stdio", or
	// "local" for GitHub Copilot CLI and OpenCode; "" for none).
	Type string
	// CommandKey names the command member ("command" when empty);
	// CommandArray: the command and its arguments are one array in it,
	// with no "args" (OpenCode). EnvKey names the environment member
	// ("env" when empty).
	CommandKey   string
	CommandArray bool
	EnvKey       string
	// NameInEntry: the entry carries its own "name" (Continue, Goose).
	// YAMLList: the servers are a list of such entries (Continue), not a
	// mapping by name.
	NameInEntry, YAMLList bool
	// Extra members a new entry gets (and an existing one keeps as the
	// user set them), such as GitHub Copilot CLI's "tools": ["*"].
	Extra []kv
	// NewFile are the members a new file starts with (Continue's config
	// has a name, a version and a schema).
	NewFile []kv
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
	Restart     string // what to do after the file changed
	// quitFirst tells the client's program by its path, per system: it
	// writes its file back when it quits, so an edit made while it runs
	// is lost (Running).
	quitFirst func(goos, path string) bool
	// Paste: the client has no file install may edit; its servers are
	// pasted in its settings, at the place this says (--print-config).
	Paste string
	// OnlyOS is the one OS the client runs on ("" for every OS).
	OnlyOS string
}

// Clients lists every client install knows, one row each, in the order
// `--client all` goes through them. Where each reads its files, and the
// sources, are in configs/README.md; places' templates are explained at
// Env.path. The rows are literals that call nothing, so that the compiler
// lays the table out as data: the bridge, which links this package for
// install and doctor, starts without building it.
var Clients = []*Client{
	{ID: "claude-desktop", Asks: AsksNo, Name: "Claude Desktop", storeBuild: claudeStoreBuild, UserFiles: []place{{Path: "{appdata}/Claude/claude_desktop_config.json"}}, quitFirst: claudeDesktopRuns, Restart: "quit Claude Desktop completely (also from the tray / menu bar) and start it again"},
	{ID: "claude-code", Asks: AsksYes, Name: "Claude Code", Type: "stdio", URLForm: &URLForm{Type: "http", URLKey: "url", VarRef: "${%s}"}, UserFiles: []place{{Path: claudeJSON, Marker: "~/.claude", Projects: true}}, ProjectFiles: []place{{Path: "{project}/.mcp.json"}}, LocalFile: claudeJSON, Expands: braceVars, Restart: "start a new claude session (/mcp lists the servers)"},
	// CodeBuddy reads the first of these that exists, in its folder
	// ($CODEBUDDY_CONFIG_DIR replaces ~/.codebuddy) and then
	// ~/.codebuddy.json: PathUtils.resolveMcpFilePath of CodeBuddy Code
	// 2.117.0 (configs/README.md). It keeps Claude Code's layout, projects
	// included.
	{ID: "codebuddy", Name: "CodeBuddy", Type: "stdio", URLForm: &URLForm{Type: "http", URLKey: "url", VarRef: "${%s}"}, UserFiles: []place{{Path: "${CODEBUDDY_CONFIG_DIR:-~/.codebuddy}/.mcp.json"}, {Path: "${CODEBUDDY_CONFIG_DIR:-~/.codebuddy}/mcp.json", Projects: true}, {Path: "~/.codebuddy.json", Projects: true}}, ProjectFiles: []place{{Path: "{project}/.mcp.json"}}, Expands: codebuddyVars, Restart: "restart CodeBuddy",
		CheckedWith: "checked with CodeBuddy Code 2.117.0 itself (npm @tencent-ai/agent-sdk 0.3.201): install's stdio and URL entries connect and list the base's tools, without those a policy denies"},
	{ID: "cursor", Asks: AsksYes, Name: "Cursor", Type: "stdio", URLForm: &URLForm{URLKey: "url", VarRef: "${env:%s}"}, UserFiles: []place{{Path: "~/.cursor/mcp.json"}}, ProjectFiles: []place{{Path: "{project}/.cursor/mcp.json"}}, Expands: cursorVars, Restart: "Cursor picks the change up; if not, Settings → MCP → refresh, or restart Cursor"},
	{ID: "vscode", Asks: AsksYes, Name: "VS Code", Format: jsoncFile, Key: "servers", Type: "stdio", URLForm: vscodeURL, UserFiles: []place{{Path: "{appdata}/Code/User/mcp.json"}}, ProjectFiles: vscodeProject, DoctorReads: []place{{Path: "{appdata}/Code/User/profiles/*/mcp.json", Note: "profile *"}}, Expands: vscodeVars, Restart: "VS Code reloads mcp.json itself; run \"MCP: List Servers\" to start it"},
	{ID: "vscode-insiders", Asks: AsksYes, Name: "VS Code Insiders", Format: jsoncFile, Key: "servers", Type: "stdio", URLForm: vscodeURL, UserFiles: []place{{Path: "{appdata}/Code - Insiders/User/mcp.json"}}, ProjectFiles: vscodeProject, DoctorReads: []place{{Path: "{appdata}/Code - Insiders/User/profiles/*/mcp.json", Note: "profile *"}}, Expands: vscodeVars, Restart: "VS Code Insiders reloads mcp.json itself; run \"MCP: List Servers\" to start it"},
	{ID: "windsurf", Asks: AsksNo, Name: "Windsurf", URLForm: &URLForm{URLKey: "serverUrl", VarRef: "${env:%s}"}, UserFiles: []place{{Path: "~/.codeium/windsurf/mcp_config.json"}}, Expands: windsurfVars, Restart: "press refresh in Windsurf's MCP panel (Cascade → MCP servers), or restart Windsurf"},
	// Cline's VS Code extension keeps its file in the extension's global
	// storage (installed when that folder exists); Cline's CLI (and newer
	// builds) share ~/.cline/data.
	{ID: "cline", Asks: AsksNo, Name: "Cline", UserFiles: []place{{Path: "{appdata}/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", Marker: "{appdata}/Code/User/globalStorage/saoudrizwan.claude-dev"}, {Path: "~/.cline/data/settings/cline_mcp_settings.json", Marker: "~/.cline"}}, Restart: "Cline reloads its settings file; if the server does not appear, restart VS Code"},
	{ID: "gemini", Asks: AsksNo, Name: "Gemini CLI", Format: jsoncFile, URLForm: &URLForm{URLKey: "httpUrl", VarRef: "${%s}"}, UserFiles: []place{{Path: "~/.gemini/settings.json"}}, ProjectFiles: []place{{Path: "{project}/.gemini/settings.json"}}, Expands: shellVars, Restart: "start a new gemini session (/mcp lists the servers)"},
	{ID: "codex", Asks: AsksYes, Name: "Codex CLI", Format: tomlFile, Key: "mcp_servers", URLForm: &URLForm{URLKey: "url", TokenKey: "bearer_token_env_var"}, UserFiles: []place{{Path: "${CODEX_HOME:-~/.codex}/config.toml"}}, ProjectFiles: []place{{Path: "{project}/.codex/config.toml"}}, Expands: noVars, Restart: "start a new codex session (/mcp lists the servers)"},
	// Zed and Goose keep their settings in %APPDATA% on Windows, in
	// ~/.config on macOS too (not ~/Library), in $XDG_CONFIG_HOME elsewhere.
	{ID: "zed", Asks: AsksNo, Name: "Zed", Format: jsoncFile, Key: "context_servers", UserFiles: []place{{OS: "windows", Path: "{appdata}/Zed/settings.json"}, {OS: "darwin", Path: "~/.config/zed/settings.json"}, {OS: "linux", Path: "{xdg}/zed/settings.json"}}, ProjectFiles: []place{{Path: "{project}/.zed/settings.json"}}, Restart: "Zed reloads settings.json itself; the server appears in the Agent panel's settings"},
	{ID: "visualstudio", Name: "Visual Studio", OnlyOS: "windows", Key: "servers", Type: "stdio", UserFiles: []place{{OS: "windows", Path: "~/.mcp.json", Marker: "{localappdata}/Microsoft/VisualStudio"}}, ProjectFiles: []place{{Path: "{project}/.mcp.json"}}, Restart: "Visual Studio reloads .mcp.json itself; pick the tools in Copilot Chat's agent mode"},
	{ID: "junie", Name: "JetBrains Junie", UserFiles: []place{{Path: "~/.junie/mcp/mcp.json", Marker: "~/.junie"}}, ProjectFiles: []place{{Path: "{project}/.junie/mcp/mcp.json"}}, Restart: "Junie reads mcp.json when it starts a task; if the server does not appear, restart the IDE"},
	{ID: "jetbrains", Name: "JetBrains AI Assistant", Paste: "Settings | Tools | AI Assistant | Model Context Protocol (MCP) → Add → As JSON (Global level)", Restart: "press Apply; the server starts when AI Assistant next needs it"},
	// GitHub Copilot CLI: ~/.copilot, or $COPILOT_HOME (GitHub's config
	// directory reference); not $XDG_CONFIG_HOME/.copilot, which an older
	// page named and the client does not read (configs/README.md).
	{ID: "copilot-cli", Asks: AsksYes, Name: "GitHub Copilot CLI", Type: "local", URLForm: &URLForm{Type: "http", URLKey: "url", VarRef: "${%s}"}, Extra: []kv{{"tools", []string{"*"}}}, UserFiles: []place{{Path: "${COPILOT_HOME:-~/.copilot}/mcp-config.json"}}, Expands: shellVars, Restart: "start a new copilot session (/mcp show lists the servers)"},
	{ID: "roo-code", Asks: AsksNo, Name: "Roo Code", UserFiles: []place{{Path: "{appdata}/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json", Marker: "{appdata}/Code/User/globalStorage/rooveterinaryinc.roo-cline"}}, ProjectFiles: []place{{Path: "{project}/.roo/mcp.json"}}, Restart: "Roo Code reloads mcp_settings.json itself; if not, restart VS Code"},
	{ID: "cline-cursor", Asks: AsksNo, Name: "Cline in Cursor", UserFiles: []place{{Path: "{appdata}/Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", Marker: "{appdata}/Cursor/User/globalStorage/saoudrizwan.claude-dev"}}, Restart: "Cline reloads its settings file; if the server does not appear, restart Cursor"},
	{ID: "cline-windsurf", Asks: AsksNo, Name: "Cline in Windsurf", UserFiles: []place{{Path: "{appdata}/Windsurf/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", Marker: "{appdata}/Windsurf/User/globalStorage/saoudrizwan.claude-dev"}}, Restart: "Cline reloads its settings file; if the server does not appear, restart Windsurf"},
	{ID: "kiro", Asks: AsksYes, Name: "Kiro", UserFiles: []place{{Path: "~/.kiro/settings/mcp.json", Marker: "~/.kiro"}}, ProjectFiles: []place{{Path: "{project}/.kiro/settings/mcp.json"}}, Restart: "Kiro reloads mcp.json itself (MCP servers in the Kiro panel)"},
	// Amazon Q: install writes the legacy mcp.json (configs/README.md),
	// which it reads only while its agent file lets it; doctor reads the
	// servers of the agent files its GUI writes too.
	{ID: "amazonq", Asks: AsksNo, Name: "Amazon Q Developer (IDE)", UserFiles: []place{{Path: "~/.aws/amazonq/mcp.json", Marker: "~/.aws/amazonq"}}, ProjectFiles: []place{{Path: "{project}/.amazonq/mcp.json"}}, notRead: amazonQLegacyOff,
		DoctorReads: []place{{Path: "~/.aws/amazonq/default.json", Note: "agent file"}, {Path: "{project}/.amazonq/default.json", Note: "agent file", Scope: "project"}}, Restart: "reopen the Q chat panel, or restart the IDE"},
	{ID: "trae", Name: "Trae", UserFiles: []place{{Path: "{appdata}/Trae/User/mcp.json"}}, ProjectFiles: []place{{Path: "{project}/.trae/mcp.json"}}, Restart: "restart Trae (Settings → MCP lists the server)"},
	{ID: "lmstudio", Asks: AsksNo, Name: "LM Studio", UserFiles: []place{{Path: "~/.lmstudio/mcp.json"}}, Restart: "LM Studio reloads mcp.json itself (Program tab → Integrations)"},
	{ID: "warp", Asks: AsksNo, Name: "Warp", UserFiles: []place{{Path: "~/.warp/.mcp.json"}}, ProjectFiles: []place{{Path: "{project}/.warp/.mcp.json"}}, Restart: "Warp reads the file itself (Settings → Agents → MCP servers lists the server)"},
	// Antigravity: newer builds keep their settings in ~/.gemini/config,
	// earlier ones in ~/.gemini/antigravity: the first whose folder exists.
	{ID: "antigravity", Asks: AsksNo, Name: "Antigravity", UserFiles: []place{{Path: "~/.gemini/config/mcp_config.json", Marker: "~/.gemini/config"}, {Path: "~/.gemini/antigravity/mcp_config.json", Marker: "~/.gemini/antigravity"}}, Restart: "in Antigravity's agent panel, … → MCP Servers → Manage → Refresh"},
	// Continue: config.yaml, and the block files in ~/.continue/mcpServers,
	// which it reads as well. A user still on the deprecated config.json
	// gets a block file: a new config.yaml would replace their whole
	// configuration.
	{ID: "continue", Asks: AsksNo, Name: "Continue", Format: yamlFile, YAMLList: true, NameInEntry: true, Merged: true, NewFile: []kv{{"name", "Local Config"}, {"version", "1.0.0"}, {"schema", "v1"}}, UserFiles: []place{{Path: "~/.continue/config.yaml"}, {Path: "~/.continue/mcpServers/mcp-bridge.yaml", Marker: "~/.continue/config.json"}}, ProjectFiles: []place{{Path: "{project}/.continue/mcpServers/mcp-bridge.yaml"}}, Restart: "Continue reloads config.yaml itself; the server appears in its MCP settings"},
	{ID: "goose", Asks: AsksYes, Name: "Goose", Format: yamlFile, Key: "extensions", Type: "stdio", CommandKey: "cmd", EnvKey: "envs", NameInEntry: true, Extra: []kv{{"enabled", true}, {"timeout", 300}}, UserFiles: []place{{OS: "windows", Path: "{appdata}/Block/goose/config/config.yaml"}, {OS: "darwin", Path: "~/.config/goose/config.yaml"}, {OS: "linux", Path: "{xdg}/goose/config.yaml"}}, Restart: "start a new goose session (goose Desktop: restart it)"},
	// OpenCode reads both files and merges them; install writes the one
	// that exists (opencode.json when neither does).
	{ID: "opencode", Asks: AsksYes, Name: "OpenCode", Format: jsoncFile, Key: "mcp", LaterKey: []string{"mcp", "servers"}, Type: "local", CommandArray: true, EnvKey: "environment", URLForm: &URLForm{Type: "remote", URLKey: "url", VarRef: "{env:%s}", URLOnly: []string{"oauth"}, StdioOnly: []string{"cwd"}}, UserFiles: []place{{Path: "{xdg}/opencode/opencode.json"}, {Path: "{xdg}/opencode/opencode.jsonc"}}, ProjectFiles: []place{{Path: "{project}/opencode.json"}, {Path: "{project}/opencode.jsonc"}}, Merged: true, Expands: opencodeVars, Restart: "start a new opencode session (opencode mcp list lists the servers)"},
}

// VS Code and its Insiders build read the same project file and take the
// same URL entry.
var (
	vscodeProject = []place{{Path: "{project}/.vscode/mcp.json"}}
	vscodeURL     = &URLForm{Type: "http", URLKey: "url", VarRef: "${env:%s}"}
)

// claudeJSON is Claude Code's ~/.claude.json ($CLAUDE_CONFIG_DIR moves it).
const claudeJSON = "${CLAUDE_CONFIG_DIR:-~}/.claude.json"

// claudeStoreBuild: the Microsoft Store (MSIX) build of Claude Desktop
// reads a virtualized copy of %APPDATA% inside its package, which wins
// when installed.
func claudeStoreBuild(e Env) []File {
	local := e.Getenv("LOCALAPPDATA")
	if e.OS != "windows" || local == "" {
		return nil
	}
	pkgs, _ := filepath.Glob(filepath.Join(local, "Packages", "Claude_*"))
	sort.Strings(pkgs)
	var out []File
	for _, p := range pkgs {
		out = append(out, File{
			Path:   filepath.Join(p, "LocalCache", "Roaming", "Claude", "claude_desktop_config.json"),
			marker: p, Note: "Microsoft Store (MSIX) build",
			readsBecause: "its package folder " + p + " exists, so the Microsoft Store (MSIX) build is installed; Windows gives that build its own %APPDATA% inside the package, and it reads the file there, not %APPDATA%\\Claude's",
		})
	}
	return out
}

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
