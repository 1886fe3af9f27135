// Command mcp-bridge serves a CAD program's raw-TCP tool base to standard
// MCP clients over stdio, or over Streamable HTTP with --listen.
// Subcommands install it in clients, run the simulated base, the
// end-to-end checks and the demo.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/configs/register"
	"github.com/mcp-bridge/mcp-bridge/configs/setting"
	"github.com/mcp-bridge/mcp-bridge/configs/suggest"
)

func main() {
	ignoreSIGPIPE()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := &env{argv0: os.Args[0], args: os.Args[1:], getenv: os.Getenv, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, stopSignals: stop,
		console: isConsole(os.Stdin)}
	os.Exit(exitCode(run(ctx, env), env.stderr))
}

// env is everything the program takes from its process, injected so that
// the whole program runs in tests.
type env struct {
	argv0  string // how the user ran this program (--print-config and install register it)
	args   []string
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// stopSignals restores default signal handling, so that a second
	// Ctrl-C or SIGTERM during shutdown kills the process at once.
	stopSignals func()
	// console: stdin is a person's console or terminal, not a client's
	// pipe (a double-clicked mcp-bridge.exe).
	console bool
}

// usageError marks a command-line mistake: exit code 2, as a mistake in
// the settings a domain finds once it runs (setting.Error), or a request
// install cannot carry out as asked (register.UsageError).
type usageError struct{ error }

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "mcp-bridge:", err)
	var ue usageError
	var se setting.Error
	var re register.UsageError
	if errors.As(err, &ue) || errors.As(err, &se) || errors.As(err, &re) {
		return 2
	}
	var ce exitError
	if errors.As(err, &ce) {
		return ce.code
	}
	return 1
}

// exitError carries a specific exit code, e.g. from verify.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

func run(ctx context.Context, e *env) error {
	if len(e.args) == 0 && e.console && e.getenv("CAD_MCP_LISTEN") == "" {
		return consoleGuide(e)
	}
	if len(e.args) > 0 {
		switch e.args[0] {
		case "help":
			return runHelp(ctx, e, e.args[1:])
		case "version":
			return runBridge(ctx, e, []string{"--version"})
		case "sim":
			return runSim(ctx, e, e.args[1:])
		case "connect":
			return runConnect(ctx, e, e.args[1:])
		case "demo":
			return runDemo(e, e.args[1:])
		case "verify":
			return runVerify(ctx, e, e.args[1:])
		case "bench":
			return runBench(e, e.args[1:])
		case "install", "uninstall":
			return runInstall(e, e.args[0], e.args[1:])
		case "journal":
			return runJournal(e, e.args[1:])
		case "launch-command":
			return runLaunchCommand(e, e.args[1:])
		case "tools", "call", "request", "doctor":
			return runDirect(ctx, e, e.args[0], e.args[1:])
		}
		// The bridge itself takes no arguments: a first word that is not a
		// flag was meant as a command.
		if a := e.args[0]; a != "" && !strings.HasPrefix(a, "-") {
			return usageError{fmt.Errorf("unknown command %q%s; the commands are %s (mcp-bridge help)", a, suggest.DidYouMean(a, commands), strings.Join(commands, ", "))}
		}
	}
	return runBridge(ctx, e, e.args)
}

// runHelp is `help`, `help <command>` (the command's --help) and
// `help <topic>`.
func runHelp(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "version" {
		return runBridge(ctx, e, []string{"--help"})
	}
	if len(args) > 1 {
		return usageError{fmt.Errorf("help takes one command or topic, got %q", strings.Join(args, " "))}
	}
	if t := lookupTopic(args[0]); t != nil {
		fmt.Fprint(e.stdout, t.help(newBridgeFlags(io.Discard).fs))
		return nil
	}
	if !slices.Contains(commands, args[0]) {
		words := append(slices.Clone(commands), topicNames()...)
		return usageError{fmt.Errorf("no command or topic %q%s; the commands are %s, the topics %s", args[0], suggest.DidYouMean(args[0], words), strings.Join(commands, ", "), strings.Join(topicNames(), ", "))}
	}
	return run(ctx, &env{argv0: e.argv0, args: []string{args[0], "--help"}, getenv: e.getenv, stdin: e.stdin, stdout: e.stdout, stderr: e.stderr})
}

// parseFlags parses a subcommand's flags. done is true when the command
// should return err at once: after --help (nil) or a usage error.
func parseFlags(fs *pflag.FlagSet, args []string) (done bool, err error) {
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return true, nil
		}
		return true, usageError{suggest.Flag(fs, err)}
	}
	return false, nil
}
