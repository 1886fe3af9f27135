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
// arguments (a double-clicked mcp-bridge.exe), sees instead of a bridge
// silently waiting for a client's messages: what it is and what to run.
// It waits for Enter, so that a window opened for it stays until read.
func consoleGuide(e *env) error {
	fmt.Fprint(e.stderr, consoleText(runtime.GOOS))
	_, _ = bufio.NewReader(e.stdin).ReadString('\n')
	return nil
}

// consoleText is the guide as a person on goos reads it (a parameter, so
// that the Windows text is checked anywhere: testdata/help/console.*).
func consoleText(goos string) string {
	return fmt.Sprintf(`mcp-bridge %s connects AI assistants (MCP clients such as Claude Desktop,
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
`, version, wrapWords(strings.Fields("register it with your assistant (--client: "+clientIDs()+")"), "      ", 80), register.ProgName(goos, "mcp-bridge.exe"))
}
