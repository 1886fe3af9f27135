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

const installUsage = `Usage: mcp-bridge install --client C [--copy] [flags] [bridge settings]

install registers this bridge in the client's own configuration file:
the absolute path of this executable, host and port, and any bridge
setting you give (--port 9000, --policy FILE, --launch PROGRAM, …; every
one: mcp-bridge help settings). Only its own entry is added or updated:
other servers, unknown fields and comments stay as they are; a file it
changes is kept as <file>.mcp-bridge-backup. Running it twice changes
nothing. A read-only file is left alone unless --force, and so is an
entry of that --name that runs another program or names another URL (a
server of your own); a file with comments or trailing commas is refused
for a client that reads strict JSON (see configs/README.md). Quit Claude
Desktop first (from its tray or menu bar icon): it writes its file back
when it quits. Then start the client again.

With --url URL it registers a bridge on another machine (serving
--listen). Claude Code, CodeBuddy, Gemini CLI, Cursor, VS Code, Windsurf,
Codex, GitHub Copilot CLI and OpenCode get their own URL entry (Streamable
HTTP) and send the token from the CAD_MCP_TOKEN variable in their
environment (set it to the content of --token-file; the token is never
written in their file). With --fingerprint or --ca, and for every other
client, it registers "mcp-bridge connect URL" (--token-file, --fingerprint
and --ca passed on; the token stays in its file).

%s
Scopes: user (default); project (the current folder's file, shared with
your team); local (Claude Code only: this folder, in ~/.claude.json).

Flags:
%s`

const uninstallUsage = `Usage: mcp-bridge uninstall --client C [--scope user|project|local] [--name N] [--dry-run]

uninstall takes the entry install wrote out of the client's file, and
nothing else; a file install made that holds nothing else is removed. A
binary that install --copy put in place stays (its path is said). Quit
Claude Desktop first, as for install.

%s

Flags:
%s`

// installOwn are install's own flags, which its help lists; the bridge's
// settings it also takes are under mcp-bridge help settings.
var installOwn = []string{"client", "name", "scope", "copy", "dry-run", "force", "url", "fingerprint", "ca", "token-file"}

// clientUsage and nameUsage are --client's and --name's help in install
// and uninstall.
var (
	clientUsage = "the client: one of the clients above, or all"
	nameUsage   = "the server's name in the client (letters, digits, - and _; at most 64)"
)

// addScopeFlags adds the flags install and uninstall share besides
// --client and --name.
func addScopeFlags(fs *pflag.FlagSet, scope *string, dryRun, force *bool) {
	fs.StringVar(scope, "scope", "user", "user, project or local (Claude Code)")
	fs.BoolVar(dryRun, "dry-run", false, "say what would change and print the new file, change nothing")
	fs.BoolVar(force, "force", false, "write the client's file even when it is read-only, and replace an entry of that --name that is not mcp-bridge's")
}

// runInstall runs install: the bridge's flags (its settings go into the
// entry) and install's own.
func runInstall(e *env, cmd string, args []string) error {
	if cmd == "uninstall" {
		return runUninstall(e, args)
	}
	f := newBridgeFlags(e.stderr)
	var scope string
	var dryRun, force, copyExe bool
	client := f.fs.Lookup("client")
	client.DefValue, client.Usage, f.client = "", clientUsage, ""
	f.fs.Lookup("name").Usage = nameUsage
	addScopeFlags(f.fs, &scope, &dryRun, &force)
	f.fs.BoolVar(&copyExe, "copy", false, `first copy this binary to %LOCALAPPDATA%\Programs\mcp-bridge (Windows) or ~/.local/bin, and register that copy`)
	var remote connectEntry
	remote.add(f.fs)
	f.fs.Lookup("token-file").Usage = "with --url: the file with the remote bridge's token (the entry reads it from CAD_MCP_TOKEN, or connect from this file; it is never written in the client's file)"
	_ = f.fs.MarkHidden("print-config")
	_ = f.fs.MarkHidden("version")
	f.fs.Usage = func() {
		fmt.Fprintf(e.stdout, installUsage, clientsLine("or all (every client found on this machine)."), usages(f.fs, all, installOwn))
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
	if f.listen != "" {
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
	if scope != "user" && scope != "project" && scope != "local" {
		return usageError{fmt.Errorf("--scope %q: want user, project or local", scope)}
	}
	if f.launch.command != "" {
		// A bridge registered with a command that cannot start CAD answers
		// every call with launch_failed: say so now, not at the first call.
		if p := f.launch.cmd().Problems(launchHome(e.getenv)); len(p) > 0 {
			if !force {
				return usageError{fmt.Errorf("install does not register a --launch command that cannot start: %s. Correct it (mcp-bridge launch-command --cad freecad or autocad suggests one), or add --force to register it as it is", strings.Join(p, "; "))}
			}
			fmt.Fprintf(e.stderr, "warning: %s: registered as given (--force); a call that finds the base down cannot start CAD until it is there\n", strings.Join(p, "; "))
		}
	}
	dir, _ := os.Getwd()
	req := register.Request{Client: f.client, Scope: scope, Name: f.name, DryRun: dryRun, Force: force,
		Remote: remote.url, Pinned: remote.fingerprint != "" || remote.ca != "", TokenFile: f.tokenFile, Args: args, DidYouMean: didYouMean}
	server, err := bridgeServer(e, f)
	if err != nil {
		return err
	}
	if remote.url != "" {
		server = remote.server(server.Command, f)
	}
	req.Server, req.Copy = server, copyExe
	err = register.Run(clientconf.Env{OS: runtime.GOOS, Getenv: e.getenv, Dir: dir}, req, e.stdout, e.stderr)
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

// runUninstall is uninstall: its own flags only (the settings of the
// entry it removes do not matter).
func runUninstall(e *env, args []string) error {
	fs := pflag.NewFlagSet("uninstall", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	var client, name, scope string
	var dryRun, force bool
	fs.StringVar(&client, "client", "", clientUsage)
	fs.StringVar(&name, "name", "cad-autocad", nameUsage)
	addScopeFlags(fs, &scope, &dryRun, &force)
	fs.Usage = func() { fmt.Fprintf(e.stdout, uninstallUsage, clientsLine("or all."), usages(fs, all, nil)) }
	if done, err := parseFlags(fs, args); done {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("uninstall takes no arguments, got %q", fs.Arg(0))}
	}
	if err := clientconf.CheckName(name); err != nil {
		return usageError{err}
	}
	if scope != "user" && scope != "project" && scope != "local" {
		return usageError{fmt.Errorf("--scope %q: want user, project or local", scope)}
	}
	dir, _ := os.Getwd()
	req := register.Request{Uninstall: true, Client: client, Scope: scope, Name: name, DryRun: dryRun, Force: force, Args: args, DidYouMean: didYouMean}
	// An entry that runs this executable is ours, whatever its name.
	req.Self, _ = clientconf.Executable(e.argv0, exec.LookPath, os.Executable)
	err := register.Run(clientconf.Env{OS: runtime.GOOS, Getenv: e.getenv, Dir: dir}, req, e.stdout, e.stderr)
	if ue := (register.UsageError{}); errors.As(err, &ue) {
		return usageError{err}
	}
	return err
}

// clientsLine is "Clients: claude-desktop, …, " then end, wrapped for the
// terminal.
func clientsLine(end string) string {
	return wrapWords(strings.Fields("Clients: "+clientIDs()+", "+end), "", helpWidth)
}
