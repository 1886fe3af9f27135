package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
	"github.com/mcp-bridge/mcp-bridge/verify/doctor"
)

// launchFlags start the CAD program when a call finds its base down
// (tcpbase/launch). They are settings like the others (flag, then
// CAD_MCP_<NAME>, then default), and only settings: the command comes
// from the user's command line, environment or client entry, never from a
// client's message or the base. They are not in the policy file: a
// policy is rules for the tools, shared and copied between people and
// machines, and a file that says which program to run is not one to copy
// from a colleague or an example.
type launchFlags struct {
	command string
	args    launchArgs
	wait    time.Duration
	backoff time.Duration
}

// launchSettings are the launch flags read from the environment too.
var launchSettings = []string{"launch", "launch-arg", "launch-wait", "launch-backoff"}

func (lf *launchFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&lf.command, "launch", "", "start this program when a call finds the CAD base down, then wait for its base; no shell: give its arguments with --launch-arg (env CAD_MCP_LAUNCH)")
	fs.Var(&lf.args, "launch-arg", "one argument for --launch, passed as it is (spaces and all); repeat the flag for more (env CAD_MCP_LAUNCH_ARG: a JSON array of strings)")
	fs.DurationVar(&lf.wait, "launch-wait", 2*time.Minute, "how long a program --launch started has to open its MCP base (env CAD_MCP_LAUNCH_WAIT)")
	fs.DurationVar(&lf.backoff, "launch-backoff", time.Minute, "after a start that failed or timed out, how long calls are answered at once before it is tried again (env CAD_MCP_LAUNCH_BACKOFF)")
}

// check validates the launch settings; a program given by a path is made
// absolute (a client starts the bridge in a folder of its choosing), a
// bare name is looked up in PATH when the program starts.
func (lf *launchFlags) check(set *settings) error {
	if lf.command == "" && len(lf.args) > 0 {
		return fmt.Errorf("%s needs --launch, the program to start", set.name("launch-arg"))
	}
	if lf.wait <= 0 || lf.backoff <= 0 {
		return fmt.Errorf("--launch-wait and --launch-backoff must be positive")
	}
	if strings.ContainsAny(lf.command, `/\`) {
		if abs, err := filepath.Abs(lf.command); err == nil {
			lf.command = abs
		}
	}
	return nil
}

// apply gives the bridge its launcher, when --launch is set. Its lock and
// the program's output go beside the tool cache (its folder, even with
// --no-cache: they are no cache).
func (lf *launchFlags) apply(cfg *bridge.Config, f *bridgeFlags, log zerolog.Logger) {
	l := lf.launcher(f.addr(), f.cacheDir, offIfZero(f.progress), log)
	if l == nil {
		return
	}
	cfg.Launch = l
	log.Info().Str("launch", l.Command().String()).Str("output", l.LogPath()).Msg("when a call finds the CAD base down, the CAD program is started")
}

// launcher is the launcher for these settings, or nil without --launch.
func (lf *launchFlags) launcher(addr, dir string, progress time.Duration, log zerolog.Logger) *launch.Launcher {
	if lf.command == "" {
		return nil
	}
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "mcp-bridge")
	}
	return launch.New(launch.Options{Command: lf.cmd(), Name: cadName(lf.cmd()), Addr: addr, Dir: dir,
		Wait: lf.wait, Backoff: lf.backoff, ProgressEvery: progress, Log: log})
}

func (lf *launchFlags) cmd() launch.Command {
	return launch.Command{Path: lf.command, Args: append([]string(nil), lf.args...)}
}

// cadName is what messages call the program: "starting FreeCAD…".
func cadName(c launch.Command) string {
	name := launch.DefaultName(c.Path)
	switch low := strings.ToLower(name); {
	case strings.HasPrefix(low, "freecad"):
		return "FreeCAD"
	case low == "acad" || low == "accoreconsole":
		return "AutoCAD"
	case low == "flatpak" && slices.ContainsFunc(c.Args, func(a string) bool { return strings.EqualFold(a, "org.freecad.FreeCAD") }):
		return "FreeCAD"
	}
	return name
}

// entryProgram is --launch as a client's entry should carry it: a bare
// name found in this shell's PATH becomes its absolute path, since GUI
// clients start the bridge with a PATH of their own.
func entryProgram(program string) string {
	if program == "" || strings.ContainsAny(program, `/\`) {
		return program
	}
	if p, err := exec.LookPath(program); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return program
}

// launchArgs is --launch-arg: repeatable, each value one argument as it
// is. From the environment (CAD_MCP_LAUNCH_ARG) it is a JSON array, so
// that one variable can carry several arguments with spaces in them.
type launchArgs []string

func (a *launchArgs) Set(s string) error { *a = append(*a, s); return nil }
func (a *launchArgs) Type() string       { return "string" }

// String is "" when empty (the default, for --help and for what install
// passes on), else the JSON array.
func (a *launchArgs) String() string {
	if len(*a) == 0 {
		return ""
	}
	b, _ := json.Marshal([]string(*a))
	return string(b)
}

// SetFromEnv reads CAD_MCP_LAUNCH_ARG (readSettings).
func (a *launchArgs) SetFromEnv(s string) error {
	var list []string
	if err := json.Unmarshal([]byte(s), &list); err != nil {
		return fmt.Errorf(`want a JSON array of strings, like ["-u", "C:\\path with spaces\\macro.FCMacro"]`)
	}
	*a = list
	return nil
}

// The pflag.SliceValue methods: install and --print-config pass each
// argument on as a --launch-arg of its own.
func (a *launchArgs) Append(s string) error    { return a.Set(s) }
func (a *launchArgs) Replace(s []string) error { *a = append((*a)[:0], s...); return nil }
func (a *launchArgs) GetSlice() []string       { return append([]string(nil), *a...) }

var _ pflag.SliceValue = (*launchArgs)(nil)

// doctorLaunch is what doctor checks of the launch settings (nil without
// --launch); with test, doctor starts the program as a bridge would,
// telling stderr what happens.
func doctorLaunch(e *env, lf *launchFlags, addr string, test bool) *doctor.Launch {
	l := lf.launcher(addr, defaultCacheDir(), 5*time.Second, zerolog.Nop())
	if l == nil {
		return nil
	}
	d := &doctor.Launch{Program: lf.command, Args: lf.args.GetSlice(), Command: l.Command().String(), Name: l.Name(), Home: launchHome(e.getenv)}
	if test {
		d.Test = func(ctx context.Context) error {
			return l.Ensure(ctx, func(msg string) { fmt.Fprintf(e.stderr, "launch: %s\n", msg) })
		}
	}
	return d
}

// launchHome is the folder a launched program starts in (the launcher
// starts it in the home folder), for the check of the files its arguments
// name: HOME, or USERPROFILE on Windows, from the environment the command
// was given.
func launchHome(getenv func(string) string) string {
	if runtime.GOOS == "windows" {
		if h := getenv("USERPROFILE"); h != "" {
			return h
		}
	}
	if h := getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}
