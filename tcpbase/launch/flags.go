package launch

import (
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

	"github.com/mcp-bridge/mcp-bridge/configs/setting"
)

// How long a started program has to open its base, and how long a failed
// start holds calls off, unless told otherwise.
const (
	DefaultWait    = 2 * time.Minute
	DefaultBackoff = time.Minute
)

// Config is the launch settings: they start the CAD program when a call
// finds its base down. They are settings like the others (flag, then
// CAD_MCP_<NAME>, then default), and only settings: the command comes
// from the user's command line, environment or client entry, never from a
// client's message or the base. They are not in the policy file: a
// policy is rules for the tools, shared and copied between people and
// machines, and a file that says which program to run is not one to copy
// from a colleague or an example.
type Config struct {
	// Program is --launch: a path made absolute, or a bare name looked up
	// in PATH when the program starts; "" for no launching.
	Program string
	Args    []string // --launch-arg, each one argument as it is
	Wait    time.Duration
	Backoff time.Duration
}

// Flags are the launch settings' names, read from the environment too.
var Flags = []string{"launch", "launch-arg", "launch-wait", "launch-backoff"}

// AddFlags registers the launch settings on fs.
func AddFlags(fs *pflag.FlagSet) {
	fs.String("launch", "", "start this program when a call finds the CAD base down, then wait for its base; no shell: give its arguments with --launch-arg (env CAD_MCP_LAUNCH)")
	fs.Var(new(Args), "launch-arg", "one argument for --launch, passed as it is (spaces and all); repeat the flag for more (env CAD_MCP_LAUNCH_ARG: a JSON array of strings)")
	fs.Duration("launch-wait", DefaultWait, "how long a program --launch started has to open its MCP base (env CAD_MCP_LAUNCH_WAIT)")
	fs.Duration("launch-backoff", DefaultBackoff, "after a start that failed or timed out, how long calls are answered at once before it is tried again (env CAD_MCP_LAUNCH_BACKOFF)")
	setting.Together(fs, "launch", "launch-arg")
}

// ConfigFrom reads the flags AddFlags registered on fs, after fs.Parse
// (each from the command line, else its CAD_MCP_<NAME> variable through
// getenv, else its default), and checks them. A program given by a path
// is made absolute (a client starts the bridge in a folder of its
// choosing), in the flag too.
func ConfigFrom(fs *pflag.FlagSet, getenv func(string) string) (Config, error) {
	if err := setting.Read(fs, getenv, Flags...); err != nil {
		return Config{}, err
	}
	var c Config
	c.Program, _ = fs.GetString("launch")
	c.Args = fs.Lookup("launch-arg").Value.(*Args).GetSlice()
	c.Wait, _ = fs.GetDuration("launch-wait")
	c.Backoff, _ = fs.GetDuration("launch-backoff")
	if c.Program == "" && len(c.Args) > 0 {
		return c, fmt.Errorf("%s needs --launch, the program to start", setting.OriginOf(fs).Name("launch-arg"))
	}
	if strings.ContainsAny(c.Program, `/\`) {
		if abs, err := filepath.Abs(c.Program); err == nil {
			c.Program = abs
			_ = fs.Lookup("launch").Value.Set(abs)
		}
	}
	return c, c.Validate()
}

// Validate checks the settings.
func (c Config) Validate() error {
	if c.Wait <= 0 || c.Backoff <= 0 {
		return fmt.Errorf("--launch-wait and --launch-backoff must be positive")
	}
	return nil
}

// Command is what the launcher runs; its zero value without --launch.
func (c Config) Command() Command {
	return Command{Path: c.Program, Args: slices.Clone(c.Args)}
}

// Launcher starts the program for the base at addr (nil without
// --launch), its lock and output kept in dir (beside the tool cache; the
// temporary folder when the user has none), telling progress every
// progress (0: never).
func (c Config) Launcher(addr, dir string, progress time.Duration, log zerolog.Logger) *Launcher {
	if c.Program == "" {
		return nil
	}
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "mcp-bridge")
	}
	return New(Options{Command: c.Command(), Addr: addr, Dir: dir, Wait: c.Wait, Backoff: c.Backoff, ProgressEvery: progress, Log: log})
}

// CADName is what messages call the program a command starts ("starting
// FreeCAD…"): FreeCAD and AutoCAD by their names, however they are
// started; another by its file's name without the extension.
func CADName(c Command) string {
	name := DefaultName(c.Path)
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

// EntryProgram is --launch as a client's entry should carry it: a bare
// name found in this shell's PATH becomes its absolute path, since GUI
// clients start the bridge with a PATH of their own.
func EntryProgram(program string) string {
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

// Home is the folder a launched program starts in (the launcher starts
// it in the home folder), for the check of the files its arguments name:
// HOME, or USERPROFILE on Windows, from the environment given.
func Home(getenv func(string) string) string {
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

// Args is --launch-arg: repeatable, each value one argument as it is.
// From the environment (CAD_MCP_LAUNCH_ARG) it is a JSON array, so that
// one variable can carry several arguments with spaces in them.
type Args []string

func (a *Args) Set(s string) error { *a = append(*a, s); return nil }
func (a *Args) Type() string       { return "string" }

// String is "" when empty (the default, for --help and for what install
// passes on), else the JSON array.
func (a *Args) String() string {
	if len(*a) == 0 {
		return ""
	}
	b, _ := json.Marshal([]string(*a))
	return string(b)
}

// SetFromEnv reads CAD_MCP_LAUNCH_ARG (setting.Read).
func (a *Args) SetFromEnv(s string) error {
	var list []string
	if err := json.Unmarshal([]byte(s), &list); err != nil {
		return fmt.Errorf(`want a JSON array of strings, like ["-u", "C:\\path with spaces\\macro.FCMacro"]`)
	}
	*a = list
	return nil
}

// The pflag.SliceValue methods: install and --print-config pass each
// argument on as a --launch-arg of its own.
func (a *Args) Append(s string) error    { return a.Set(s) }
func (a *Args) Replace(s []string) error { *a = append((*a)[:0], s...); return nil }
func (a *Args) GetSlice() []string       { return append([]string(nil), *a...) }

var _ pflag.SliceValue = (*Args)(nil)
