package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/mattn/go-isatty"
)

// isConsole reports whether f is a person's console or terminal (not a
// pipe, a file or NUL, which a char-device check alone would count).
// go-isatty is already in the binary through zerolog's console writer.
func isConsole(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// consoleGuide is what a person who started mcp-bridge by hand, with no
// arguments (a double-clicked mcp-bridge.exe), sees instead of a bridge
// silently waiting for a client's messages: what it is and what to run.
// It waits for Enter, so that a window opened for it stays until read.
func consoleGuide(e *env) error {
	fmt.Fprintf(e.stderr, `mcp-bridge %s connects AI assistants (MCP clients such as Claude Desktop,
Cursor, VS Code or CodeBuddy) to the CAD program's MCP base. It is not run by
hand: your assistant starts it. Set it up from a terminal (cmd or PowerShell)
in this folder:

  %[3]s install --copy --client claude-desktop
%[2]s
  %[3]s doctor
      check the CAD base and the registrations
  %[3]s verify --port 8080
      check, as a client would, against your CAD program
  %[3]s help
      everything else

Press Enter to close this window.
`, version, wrapWords(strings.Fields("register it with your assistant (--client: "+clientIDs()+")"), "      ", 80), prog())
	_, _ = bufio.NewReader(e.stdin).ReadString('\n')
	return nil
}

// prog is how to run this program from a terminal in its folder.
func prog() string { return progName(runtime.GOOS, "mcp-bridge.exe") }

// progName is how to run the program file name from a terminal (cmd or
// PowerShell on Windows) in its folder: on Windows by its path in that
// folder (.\mcp-bridge.exe: PowerShell runs no program of the current
// folder by bare name), with PowerShell's & '…' when the name needs
// quoting (a browser saves a second download as "mcp-bridge (1).exe");
// elsewhere as mcp-bridge, the name install --copy gives it.
func progName(goos, name string) string {
	if goos != "windows" {
		return "mcp-bridge"
	}
	if strings.ContainsAny(name, " '\"&()[]{}$`;,@#%^=+~") {
		return "& '.\\" + strings.ReplaceAll(name, "'", "''") + "'"
	}
	return `.\` + name
}

// runFrom is the command line that runs exe (its path by goos's rules)
// with args from a terminal whose working folder is dir: prefixed with
// the cd to exe's folder on Windows when that is another one.
func runFrom(goos, exe, dir, args string) []string {
	if goos != "windows" {
		return []string{progName(goos, "") + " " + args}
	}
	i := strings.LastIndexAny(exe, `\/`)
	folder, name := exe[:i+1], exe[i+1:]
	lines := []string{progName(goos, name) + " " + args}
	if trim := strings.TrimRight(folder, `\/`); folder != "" && !strings.EqualFold(trim, strings.TrimRight(dir, `\/`)) {
		if strings.HasSuffix(trim, ":") { // C:\, not C:
			trim = folder
		}
		lines = append([]string{`cd "` + trim + `"`}, lines...)
	}
	return lines
}
