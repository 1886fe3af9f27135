package clientconf

import "strings"

// claudeDesktopRuns: path is Claude Desktop's program on goos. Claude
// Desktop writes its own configuration file back when it quits, so that
// an edit made while it runs is lost, even when only its tray (Windows) or
// menu bar (macOS) icon is left (robotmcp/ros-mcp-server#291): install
// and uninstall ask to quit it first. It is told by its program's path,
// since other programs share its file name (Claude Code's claude.exe).
func claudeDesktopRuns(goos, path string) bool {
	p := strings.ToLower(path)
	switch goos {
	case "windows":
		// %LOCALAPPDATA%\AnthropicClaude\app-…\claude.exe (its
		// installer), or the Store's WindowsApps\Claude_…\…\claude.exe.
		p = strings.ReplaceAll(p, "/", `\`)
		return strings.HasSuffix(p, `\claude.exe`) && (strings.Contains(p, `\anthropicclaude\`) || strings.Contains(p, `\windowsapps\claude_`))
	case "darwin":
		return strings.HasSuffix(p, "/claude.app/contents/macos/claude")
	}
	return false
}

// QuitHow is how to quit a client whose row has quitFirst (Claude
// Desktop), on goos.
func QuitHow(goos string) string {
	if goos == "darwin" {
		return "Claude > Quit Claude, or its menu bar icon > Quit"
	}
	return "right-click its icon by the clock (in the tray, under ^ if hidden) > Quit"
}

// Running reports whether c is a client that must be quit before its
// file is edited, and one of its programs runs now (Env.Processes). A
// list that cannot be read counts as not running.
func (e Env) Running(c *Client) bool {
	is := c.quitFirst
	if is == nil {
		return false
	}
	list := e.Processes
	if list == nil {
		list = ProcessPaths
	}
	paths, err := list()
	if err != nil {
		return false
	}
	for _, p := range paths {
		if is(e.OS, p) {
			return true
		}
	}
	return false
}
