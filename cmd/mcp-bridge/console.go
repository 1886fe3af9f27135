package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/mcp-bridge/mcp-bridge/configs/register"
)

// isConsole reports whether f is a person's console or terminal (not a
// pipe, a file or NUL, which a char-device check alone would count).
// go-isatty is already in the binary through zerolog's console writer.
func isConsole(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// consoleGuide is what a person who started mcp-bridge by hand, with no
// arguments, sees instead of a bridge silently waiting for a client's
// messages: what it is and what to run. On Windows (a double-clicked
// mcp-bridge.exe) it waits for Enter, so that the window opened for it
// stays until read; in a terminal elsewhere it just ends.
func consoleGuide(e *env) error {
	fmt.Fprint(e.stderr, consoleText(runtime.GOOS, e.argv0))
	if runtime.GOOS == "windows" {
		_, _ = bufio.NewReader(e.stdin).ReadString('\n')
	}
	return nil
}

// consoleText is the guide as a person on goos reads it, who ran the
// program as argv0 (a parameter, so that the Windows text is checked
// anywhere: testdata/help/console.*).
func consoleText(goos, argv0 string) string {
	prog, where, end := runName(goos, argv0), "from this terminal", ""
	if goos == "windows" {
		where = "from a terminal (cmd or PowerShell) in this folder"
		end = "\nPress Enter to close this window.\n"
	}
	clients := wrapWords(strings.Fields("register it with your assistant (--client: "+clientIDs()+")"), "      ", 80)
	intro := wrapWords(strings.Fields(fmt.Sprintf("mcp-bridge %s connects AI assistants (MCP clients such as Claude Desktop, Cursor, VS Code or CodeBuddy) to the CAD program's MCP base. It is not run by hand: your assistant starts it. Set it up %s:", version, where)), "", 80)
	return fmt.Sprintf(`%[1]s

  %[3]s install --copy --client claude-desktop
%[4]s
  %[3]s doctor
      check the CAD base and the registrations
  %[3]s verify --port 8080
      check, as a client would, against your CAD program
  %[3]s help
      everything else
%[5]s`, intro, where, prog, clients, end)
}

// runName is how the person runs this program again from the terminal
// they are in: on Windows .\mcp-bridge.exe (register.ProgName); elsewhere
// as they typed it when that was a path (./mcp-bridge: the program is
// on no PATH before install --copy), else by its name.
func runName(goos, argv0 string) string {
	if goos == "windows" {
		return register.ProgName(goos, "mcp-bridge.exe")
	}
	if strings.Contains(argv0, "/") && !strings.ContainsAny(argv0, " '\"$`\\") {
		return argv0
	}
	return "mcp-bridge"
}

// stdinNote is said once, on stderr, when the bridge itself starts with
// stdin a person's terminal: it waits for an MCP client's messages there,
// which nobody types by hand.
func stdinNote(goos, argv0 string) string {
	prog := runName(goos, argv0)
	stop := "Ctrl-C ends it"
	if goos == "windows" {
		stop = "Ctrl-C or Ctrl-Break ends it"
	}
	return fmt.Sprintf("mcp-bridge is waiting for an MCP client's messages on stdin: your assistant\n"+
		"starts it and talks to it this way (%[1]s install registers it).\n"+
		"To try it by hand instead:\n"+
		"  %[1]s demo                the bridge at work, on a simulated CAD base\n"+
		"  %[1]s verify --port 8080  a client's checks, against your CAD program\n"+
		"%[2]s.\n", prog, stop)
}
