package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
	"github.com/mcp-bridge/mcp-bridge/configs/register"
	"github.com/mcp-bridge/mcp-bridge/configs/suggest"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
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

// entryFlags are the flags install and uninstall share besides --client
// and --name: which of the client's files, and how to write it.
type entryFlags struct {
	scope         string
	dryRun, force bool
}

func (r *entryFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&r.scope, "scope", "user", "user, project or local (Claude Code)")
	fs.BoolVar(&r.dryRun, "dry-run", false, "say what would change and print the new file, change nothing")
	fs.BoolVar(&r.force, "force", false, "write the client's file even when it is read-only, and replace an entry of that --name that is not mcp-bridge's")
}

// check checks the entry's --name and --scope.
func (r *entryFlags) check(name string) error {
	if err := clientconf.CheckName(name); err != nil {
		return err
	}
	if r.scope != "user" && r.scope != "project" && r.scope != "local" {
		return fmt.Errorf("--scope %q: want user, project or local", r.scope)
	}
	return nil
}

// request is the register.Request of these flags.
func (r *entryFlags) request(client, name string, args []string) register.Request {
	return register.Request{Client: client, Scope: r.scope, Name: name, DryRun: r.dryRun, Force: r.force, Args: args, DidYouMean: suggest.DidYouMean}
}

// installCmd is install: the bridge's flags (its settings go into the
// entry) and install's own.
type installCmd struct {
	f       *bridgeFlags
	entry   entryFlags
	copyExe bool
	remote  connectEntry
}

func newInstallCmd(e *env) *installCmd {
	c := &installCmd{f: newBridgeFlags(e.stderr)}
	fs := c.f.fs
	client := fs.Lookup("client")
	client.DefValue, client.Usage, c.f.client = "", clientUsage, ""
	fs.Lookup("name").Usage = nameUsage
	c.entry.add(fs)
	fs.BoolVar(&c.copyExe, "copy", false, `first copy this binary to %LOCALAPPDATA%\Programs\mcp-bridge (Windows) or ~/.local/bin, and register that copy`)
	c.remote.add(fs)
	fs.Lookup("token-file").Usage = "with --url: the file with the remote bridge's token (the entry reads it from CAD_MCP_TOKEN, or connect from this file; it is never written in the client's file)"
	_ = fs.MarkHidden("print-config")
	_ = fs.MarkHidden("version")
	fs.Usage = func() {
		fmt.Fprintf(e.stdout, installUsage, clientsLine("or all (every client found on this machine)."), usages(fs, all, installOwn))
	}
	return c
}

// runInstall runs install (and uninstall, which has flags of its own).
func runInstall(e *env, cmd string, args []string) error {
	if cmd == "uninstall" {
		return runUninstall(e, args)
	}
	c := newInstallCmd(e)
	f := c.f
	if err := f.parse(args, e.getenv); err != nil {
		if err == pflag.ErrHelp {
			return nil
		}
		return usageError{err}
	}
	if f.fs.NArg() > 0 {
		return usageError{fmt.Errorf("%s takes no arguments, got %q", cmd, f.fs.Arg(0))}
	}
	if f.http.Listen != "" {
		return register.ListenRefusal(f.client, f.name, f.http.Listen, args)
	}
	if err := c.check(e); err != nil {
		return err
	}
	req := c.entry.request(f.client, f.name, args)
	req.Remote, req.Pinned, req.TokenFile, req.Copy = c.remote.url, c.remote.fingerprint != "" || c.remote.ca != "", c.remote.tokenFile, c.copyExe
	server, err := bridgeServer(e, f)
	if err != nil {
		return err
	}
	if c.remote.url != "" {
		server = clientconf.Server{Command: server.Command, Args: c.remote.entry(f.log.level).Args()}
	}
	req.Server = server
	dir, _ := os.Getwd()
	return register.Run(clientconf.Env{OS: runtime.GOOS, Getenv: e.getenv, Dir: dir}, req, e.stdout, e.stderr)
}

// check checks what install registers: the remote, the entry, and a
// --launch command, which must be able to start (a bridge registered with
// one that cannot answers every call with launch_failed: say so now, not
// at the first call).
func (c *installCmd) check(e *env) error {
	f := c.f
	if err := c.remote.check(f); err != nil {
		return usageError{err}
	}
	if c.remote.clearText() {
		fmt.Fprintf(e.stderr, "warning: %s is plain http:// to another machine: the token and every drawing travel in clear text. Unless a proxy ends TLS in front of it, serve the remote bridge with --tls-self-signed and install https:// with its --fingerprint\n", c.remote.url)
	}
	if err := c.entry.check(f.name); err != nil {
		return usageError{err}
	}
	if f.launch.Program == "" {
		return nil
	}
	if p := f.launch.Command().Problems(launch.Home(e.getenv)); len(p) > 0 {
		if !c.entry.force {
			return usageError{fmt.Errorf("install does not register a --launch command that cannot start: %s. Correct it (mcp-bridge launch-command --cad freecad or autocad suggests one), or add --force to register it as it is", strings.Join(p, "; "))}
		}
		fmt.Fprintf(e.stderr, "warning: %s: registered as given (--force); a call that finds the base down cannot start CAD until it is there\n", strings.Join(p, "; "))
	}
	return nil
}

// runUninstall is uninstall: its own flags only (the settings of the
// entry it removes do not matter).
func runUninstall(e *env, args []string) error {
	fs := pflag.NewFlagSet("uninstall", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	var client, name string
	var entry entryFlags
	fs.StringVar(&client, "client", "", clientUsage)
	fs.StringVar(&name, "name", "cad-autocad", nameUsage)
	entry.add(fs)
	fs.Usage = func() { fmt.Fprintf(e.stdout, uninstallUsage, clientsLine("or all."), usages(fs, all, nil)) }
	if done, err := parseFlags(fs, args); done {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("uninstall takes no arguments, got %q", fs.Arg(0))}
	}
	if err := entry.check(name); err != nil {
		return usageError{err}
	}
	req := entry.request(client, name, args)
	req.Uninstall = true
	// An entry that runs this executable is ours, whatever its name.
	req.Self, _ = clientconf.Executable(e.argv0, exec.LookPath, os.Executable)
	dir, _ := os.Getwd()
	return register.Run(clientconf.Env{OS: runtime.GOOS, Getenv: e.getenv, Dir: dir}, req, e.stdout, e.stderr)
}

// clientsLine is "Clients: claude-desktop, …, " then end, wrapped for the
// terminal.
func clientsLine(end string) string {
	return wrapWords(strings.Fields("Clients: "+clientIDs()+", "+end), "", helpWidth)
}
