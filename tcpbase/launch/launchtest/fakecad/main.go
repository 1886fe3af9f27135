// Command fakecad is the fake CAD program of package launchtest as a
// program of its own, for the Windows end-to-end run of launching
// (.ci/windows/test.sh): mcp-bridge.exe --launch fakecad.exe.
package main

import (
	"os"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch/launchtest"
)

func main() { os.Exit(launchtest.Run(os.Args[1:], os.Stdout, os.Stderr)) }
