package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/rs/zerolog"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
	"github.com/mcp-bridge/mcp-bridge/configs/register"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
	"github.com/mcp-bridge/mcp-bridge/verify/doctor"
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
	k := launch.Places{OS: *goos, Getenv: e.getenv, Root: *root}
	if exe, err := clientconf.Executable(e.argv0, exec.LookPath, os.Executable); err == nil {
		k.Beside = filepath.Dir(exe)
	}
	s, err := k.Suggest(*cad, *macro, *script)
	switch {
	case err != nil:
		return usageError{err}
	case s.Program == "":
		return exitError{code: 1, msg: s.Why}
	}
	fmt.Fprintf(e.stdout, "%s: %s\n", s.Name, s.Program)
	for _, n := range s.Notes {
		fmt.Fprintf(e.stdout, "%s\n", n)
	}
	flags := []string{"--launch", register.QuoteFor(*goos, s.Program)}
	for _, a := range s.Args {
		flags = append(flags, "--launch-arg", register.QuoteFor(*goos, a))
	}
	fmt.Fprintf(e.stdout, "\nthe flags:\n  %s\nregister the bridge with them (your client's id instead of CLIENT):\n  mcp-bridge install --client CLIENT %s\n",
		strings.Join(flags, " "), strings.Join(flags, " "))
	if s.Missing != "" {
		return exitError{code: 1, msg: s.Missing}
	}
	return nil
}

// doctorLaunch is what doctor checks of the launch settings (nil without
// --launch); with test, doctor starts the program as a bridge would,
// telling stderr what happens.
func doctorLaunch(e *env, lc launch.Config, addr string, test bool) *doctor.Launch {
	l := lc.Launcher(addr, bridge.DefaultCacheDir(), bridge.DefaultProgressInterval, zerolog.Nop())
	if l == nil {
		return nil
	}
	d := &doctor.Launch{Program: lc.Program, Args: lc.Args, Command: l.Command().String(), Name: l.Name(), Home: launch.Home(e.getenv)}
	if test {
		d.Test = func(ctx context.Context) error {
			return l.Ensure(ctx, func(msg string) { fmt.Fprintf(e.stderr, "launch: %s\n", msg) })
		}
	}
	return d
}
