package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
	"github.com/mcp-bridge/mcp-bridge/configs/register"
)

const installUsage = `Usage: mcp-bridge install --client C [--scope user|project|local] [--name N] [--dry-run] [bridge flags]
       mcp-bridge uninstall --client C [--scope …] [--name N] [--dry-run]

install registers this bridge in the client's own configuration file:
the absolute path of this executable, host and port, and any other bridge
flag you give (--port 9000, --call-timeout 5m, …). Only its own entry is
added or updated: other servers, unknown fields and comments stay as they
are; the previous file is kept as <file>.mcp-bridge-backup. Running it twice
changes nothing. uninstall removes the entry and nothing else. A read-only
file is left alone unless --force, and so is an entry of that --name that
runs another program or names another URL (a server of your own); a file
with comments or trailing commas is refused for a client that reads strict
JSON (see configs/README.md).

With --url URL it registers a bridge on another machine (serving
--listen). Claude Code, Gemini CLI, Cursor, VS Code, Windsurf, Codex,
GitHub Copilot CLI and OpenCode get their own URL entry (Streamable HTTP)
and send the token from the CAD_MCP_TOKEN variable in their environment
(set it to the content of --token-file; the token is never written in
their file). With --fingerprint or --ca, and for every
other client, it registers "mcp-bridge connect URL" (--token-file,
--fingerprint and --ca passed on; the token stays in its file).

Clients: %s, or all (every client found on this machine).
Scopes: user (default); project (the current folder's file, shared with
your team); local (Claude Code only: this folder, in ~/.claude.json).

`

// runInstall runs install and uninstall.
func runInstall(e *env, cmd string, args []string) error {
	f := newBridgeFlags(e.stderr)
	scope := f.fs.String("scope", "user", "user, project or local (Claude Code)")
	dryRun := f.fs.Bool("dry-run", false, "say what would change and print the new file, change nothing")
	force := f.fs.Bool("force", false, "write the client's file even when it is read-only, and replace an entry of that --name that is not mcp-bridge's")
	var copyExe *bool
	var remote connectEntry
	if cmd == "install" {
		copyExe = f.fs.Bool("copy", false, `first copy this binary to %LOCALAPPDATA%\Programs\mcp-bridge (Windows) or ~/.local/bin, and register that copy`)
		remote.add(f)
	}
	_ = f.fs.MarkHidden("print-config")
	_ = f.fs.MarkHidden("version")
	f.fs.Lookup("client").DefValue, f.client = "", ""
	f.fs.Lookup("client").Usage = "the client: " + strings.Join(clientconf.IDs(), ", ") + ", or all"
	f.fs.Usage = func() {
		fmt.Fprintf(e.stderr, installUsage+"Flags:\n%s", strings.Join(clientconf.IDs(), ", "), f.fs.FlagUsages())
	}
	if err := f.parse(args, e.getenv); err != nil {
		if err == pflag.ErrHelp {
			return nil
		}
		return usageError{err}
	}
	if f.fs.NArg() > 0 {
		return usageError{fmt.Errorf("%s takes no arguments, got %q", cmd, f.fs.Arg(0))}
	}
	if cmd == "install" && f.listen != "" {
		return usageError{listenRefusal(f, args)}
	}
	if err := remote.check(f, e.getenv); err != nil {
		return usageError{err}
	}
	if remote.clearText(f) {
		fmt.Fprintf(e.stderr, "warning: %s is plain http:// to another machine: the token and every drawing travel in clear text. Unless a proxy ends TLS in front of it, serve the remote bridge with --tls-self-signed and install https:// with its --fingerprint\n", remote.url)
	}
	if err := clientconf.CheckName(f.name); err != nil {
		return usageError{err}
	}
	if *scope != "user" && *scope != "project" && *scope != "local" {
		return usageError{fmt.Errorf("--scope %q: want user, project or local", *scope)}
	}
	if cmd == "install" && f.launch.command != "" {
		// A bridge registered with a command that cannot start CAD answers
		// every call with launch_failed: say so now, not at the first call.
		if p := f.launch.cmd().Problems(launchHome(e.getenv)); len(p) > 0 {
			if !*force {
				return usageError{fmt.Errorf("install does not register a --launch command that cannot start: %s. Correct it (mcp-bridge launch-command --cad freecad or autocad suggests one), or add --force to register it as it is", strings.Join(p, "; "))}
			}
			fmt.Fprintf(e.stderr, "warning: %s: registered as given (--force); a call that finds the base down cannot start CAD until it is there\n", strings.Join(p, "; "))
		}
	}
	dir, _ := os.Getwd()
	req := register.Request{Uninstall: cmd == "uninstall", Client: f.client, Scope: *scope, Name: f.name, DryRun: *dryRun, Force: *force,
		Remote: remote.url, Pinned: remote.fingerprint != "" || remote.ca != "", TokenFile: f.tokenFile, Args: args, DidYouMean: didYouMean}
	if cmd == "install" {
		server, err := bridgeServer(e, f)
		if err != nil {
			return err
		}
		if remote.url != "" {
			server = remote.server(server.Command, f)
		}
		req.Server, req.Copy = server, *copyExe
	} else {
		// An entry that runs this executable is ours, whatever its name.
		req.Self, _ = clientconf.Executable(e.argv0, exec.LookPath, os.Executable)
	}
	err := register.Run(clientconf.Env{OS: runtime.GOOS, Getenv: e.getenv, Dir: dir}, req, e.stdout, e.stderr)
	if ue := (register.UsageError{}); errors.As(err, &ue) {
		return usageError{err}
	}
	return err
}

// urlClients are the clients --print-config --listen writes the URL entry
// for ("type": "http", the URL, the token header), and for which install
// --listen's refusal shows that command.
var urlClients = map[string]bool{"generic": true, "codebuddy": true, "cursor": true, "inspector": true, "claude-code": true, "vscode": true}

// listenRefusal explains why install does not take --listen, and shows
// the commands that do what the user wants: an entry the client starts
// has to serve stdio; a bridge serving HTTP is started by the user, and the
// client is given its URL.
func listenRefusal(f *bridgeFlags, args []string) error {
	var rest []string
	fromEnv := true
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--listen" && i+1 < len(args):
			i++
			fromEnv = false
		case strings.HasPrefix(a, "--listen="):
			fromEnv = false
		default:
			rest = append(rest, register.ShellQuoteIfNeeded(a))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "install does not take --listen: the entry it writes is started by the client, which talks to it over stdio, and with --listen the bridge would serve HTTP instead: the client would get no answer.\n")
	if fromEnv {
		fmt.Fprintf(&b, "(--listen comes from CAD_MCP_LISTEN in your environment: unset it first.)\n")
	}
	fmt.Fprintf(&b, "To let the client start the bridge (the usual way):\n  mcp-bridge install %s\n", strings.Join(rest, " "))
	fmt.Fprintf(&b, "To use HTTP, start the bridge yourself and give the client its URL:\n  mcp-bridge --listen %s\n", f.listen)
	host, port, _ := net.SplitHostPort(f.listen)
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	url := "http://" + net.JoinHostPort(host, port) + "/mcp"
	switch {
	case f.client == "claude-code":
		fmt.Fprintf(&b, "  claude mcp add --transport http %s %s   (add --header \"Authorization: Bearer …\" with a token)", f.name, url)
	case urlClients[f.client]:
		fmt.Fprintf(&b, "  mcp-bridge --print-config --client %s --listen %s   (prints the entry to paste: \"type\": \"http\", the URL and the token header)", f.client, f.listen)
	default:
		fmt.Fprintf(&b, "  then add %s to the client as a Streamable HTTP server (mcp-bridge --print-config --client generic --listen %s prints the usual entry)", url, f.listen)
	}
	return errors.New(b.String())
}

// warnTransient warns, on stderr, when the binary being registered lives
// in a folder that will not last (register.TransientWarning).
func warnTransient(e *env, ce clientconf.Env, exe, args string) {
	fmt.Fprint(e.stderr, register.TransientWarning(ce, exe, args))
}
