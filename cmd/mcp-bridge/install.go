package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
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
	dir, _ := os.Getwd()
	ce := clientconf.Env{OS: runtime.GOOS, Getenv: e.getenv, Dir: dir}
	var clients []*clientconf.Client
	switch f.client {
	case "":
		return usageError{errors.New("--client is required: " + strings.Join(clientconf.IDs(), ", ") + ", or all")}
	case "all":
		for _, c := range clientconf.Clients {
			if ce.Installed(c) && (*scope == "user" || len(ce.Candidates(c, *scope)) > 0) {
				clients = append(clients, c)
			}
		}
		if len(clients) == 0 {
			return fmt.Errorf("no MCP client found on this machine for scope %s; name one with --client", *scope)
		}
	default:
		c := clientconf.Lookup(f.client)
		if c == nil {
			return usageError{fmt.Errorf("--client %q%s: want %s, or all", f.client, didYouMean(f.client, append(clientconf.IDs(), "all")), strings.Join(clientconf.IDs(), ", "))}
		}
		if c.Paste != "" {
			return usageError{fmt.Errorf("%s keeps its servers in its own settings, not in a file install may edit: mcp-bridge --print-config --client %s prints the JSON to paste there (%s)", c.Name, c.ID, c.Paste)}
		}
		if c.OnlyOS != "" && c.OnlyOS != ce.OS {
			return usageError{fmt.Errorf("%s runs only on %s", c.Name, osName(c.OnlyOS))}
		}
		if len(ce.Candidates(c, *scope)) == 0 {
			return usageError{fmt.Errorf("%s has no %s scope", c.Name, *scope)}
		}
		clients = []*clientconf.Client{c}
	}
	var server clientconf.Server
	if cmd == "install" {
		var err error
		if server, err = bridgeServer(e, f); err != nil {
			return err
		}
		if remote.url != "" {
			server = remote.server(server.Command, f)
		}
		if !*copyExe && slices.ContainsFunc(clients, func(c *clientconf.Client) bool { return !remote.urlForm(c) }) {
			warnTransient(e, ce, server.Command, "install --copy "+strings.Join(args, " "))
		}
		if *copyExe {
			dest := ce.CopyTarget()
			if !*dryRun {
				if err := clientconf.CopyExecutable(server.Command, dest); err != nil {
					return fmt.Errorf("--copy: %w", err)
				}
			}
			copied := "copied"
			if *dryRun {
				copied = "would copy"
			}
			fmt.Fprintf(e.stdout, "%s %s to %s\n", copied, server.Command, dest)
			server.Command = dest
		}
	}
	// self is this executable: an entry that runs it is ours, whatever its
	// name (uninstall; install has it as the server's command).
	self, _ := clientconf.Executable(e.argv0, exec.LookPath, os.Executable)
	failed := 0
	tokenVarUsers := []string{} // the clients whose entry takes the token from CAD_MCP_TOKEN
	var table [][3]string       // --client all: client, file, what was done
	var newContent []string     // --client all --dry-run: the files it would write
	for _, c := range clients {
		var results []clientconf.Result
		var err error
		if cmd == "install" {
			target, ok := ce.Target(c, *scope)
			if !ok {
				err = fmt.Errorf("cannot tell where %s keeps its settings (is HOME or APPDATA set?)", c.Name)
			} else {
				s := server
				if remote.urlForm(c) {
					s = c.URLServer(remote.url, f.tokenFile != "")
					if f.tokenFile != "" {
						tokenVarUsers = append(tokenVarUsers, c.Name)
					}
				}
				var r clientconf.Result
				r, err = clientconf.Install(target, f.name, s, clientconf.Options{DryRun: *dryRun, Force: *force, Self: server.Command})
				results = append(results, r)
			}
		} else {
			// Every file the client may read for this scope.
			for _, file := range ce.Candidates(c, *scope) {
				r, rerr := clientconf.Uninstall(file, f.name, clientconf.Options{DryRun: *dryRun, Force: *force, Self: self})
				if rerr != nil {
					err = rerr
					break
				}
				if r.Action != "absent" || len(results) == 0 {
					results = append(results, r)
				}
			}
		}
		if f.client == "all" {
			table = append(table, tableRows(c, f.name, results, err, *dryRun)...)
			for _, r := range results {
				if *dryRun && r.After != nil {
					newContent = append(newContent, fmt.Sprintf("%s, new content:\n%s\n", r.File, indentText(string(r.After), "    ")))
				}
			}
			if err != nil {
				failed++
			}
			continue
		}
		if err != nil {
			failed++
			fmt.Fprintf(e.stderr, "%s: %v\n", c.Name, err)
			continue
		}
		report(e, c, f.name, results, *dryRun)
	}
	if f.client == "all" {
		printTable(e, cmd, table)
		for _, c := range newContent {
			fmt.Fprint(e.stdout, c)
		}
		for _, c := range clientconf.Clients {
			if c.Paste != "" {
				fmt.Fprintf(e.stdout, "%s takes its servers pasted in its settings: mcp-bridge --print-config --client %s\n", c.Name, c.ID)
			}
		}
	}
	if len(tokenVarUsers) > 0 {
		fmt.Fprintf(e.stdout, "the token: the entry for %s sends it from the %s variable, not from the file; set it to the token in %s in the environment the client starts from, e.g.\n  %s\n",
			strings.Join(tokenVarUsers, ", "), clientconf.TokenVar, f.tokenFile, setTokenVar(runtime.GOOS, f.tokenFile))
	}
	if failed > 0 {
		return fmt.Errorf("%s failed for %d of %d clients", cmd, failed, len(clients))
	}
	return nil
}

func report(e *env, c *clientconf.Client, name string, results []clientconf.Result, dryRun bool) {
	changed := false
	for _, r := range results {
		switch r.Action {
		case "added":
			fmt.Fprintf(e.stdout, "%s: %s %q to %s\n", c.Name, done(r.Action, dryRun), name, r.File)
		case "updated":
			fmt.Fprintf(e.stdout, "%s: %s %q in %s\n", c.Name, done(r.Action, dryRun), name, r.File)
		case "removed":
			fmt.Fprintf(e.stdout, "%s: %s %q from %s\n", c.Name, done(r.Action, dryRun), name, r.File)
		case "unchanged":
			fmt.Fprintf(e.stdout, "%s: %q in %s is already up to date\n", c.Name, name, r.File)
		default:
			fmt.Fprintf(e.stdout, "%s: %q is not registered in %s\n", c.Name, name, r.File)
		}
		if r.Action == "unchanged" || r.Action == "absent" {
			continue
		}
		changed = true
		if r.Backup != "" {
			fmt.Fprintf(e.stdout, "  the previous file is kept as %s\n", r.Backup)
		}
		if dryRun && r.After != nil {
			fmt.Fprintf(e.stdout, "  new content:\n%s\n", indentText(string(r.After), "    "))
		}
	}
	if changed && !dryRun {
		fmt.Fprintf(e.stdout, "  then: %s\n", c.Restart)
	}
}

// done is what install or uninstall did to an entry ("added"), or with
// --dry-run what it would do ("would add").
func done(action string, dryRun bool) string {
	if !dryRun {
		return action
	}
	return "would " + map[string]string{"added": "add", "updated": "update", "removed": "remove"}[action]
}

// tableRows are --client all's lines for one client: a line per file it
// changed (or found up to date), and what to do next.
func tableRows(c *clientconf.Client, name string, results []clientconf.Result, err error, dryRun bool) [][3]string {
	if err != nil {
		file := ""
		if len(results) > 0 {
			file = results[len(results)-1].File
		}
		return [][3]string{{c.Name, file, "FAILED: " + strings.ReplaceAll(err.Error(), "\n", " ")}}
	}
	var rows [][3]string
	for _, r := range results {
		what := map[string]string{"unchanged": "already up to date", "absent": "not registered"}[r.Action]
		if what == "" {
			what = done(r.Action, dryRun)
		}
		what += fmt.Sprintf(" (%q)", name)
		if r.Backup != "" {
			what += "; previous file kept as " + filepath.Base(r.Backup)
		}
		if !dryRun && (r.Action == "added" || r.Action == "updated") {
			what += "; then " + c.Restart
		}
		rows = append(rows, [3]string{c.Name, r.File, what})
	}
	return rows
}

// printTable prints --client all's report: every client found, its
// file, and what install or uninstall did there.
func printTable(e *env, cmd string, rows [][3]string) {
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "CLIENT\tFILE\t%s\n", strings.ToUpper(cmd))
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r[0], r[1], r[2])
	}
	tw.Flush()
}

func osName(goos string) string {
	return map[string]string{"windows": "Windows", "darwin": "macOS", "linux": "Linux"}[goos]
}

func indentText(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = prefix + lines[i]
	}
	return strings.Join(lines, "\n")
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
			rest = append(rest, shellQuoteIfNeeded(a))
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

func shellQuoteIfNeeded(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'$`\\|&;<>()*?[]{}~") {
		return s
	}
	return shellQuote(s)
}

// warnTransient warns, on stderr, when the binary being registered lives
// in a folder that will not last, and shows the command that registers a
// copy that stays instead.
// args are the arguments of that command, after the program's name.
func warnTransient(e *env, ce clientconf.Env, exe, args string) {
	if why := ce.Transient(exe); why != "" {
		fmt.Fprintf(e.stderr, "warning: %s is in %s: once it is gone, the client cannot start the bridge.\n  Register a copy that stays (%s):\n  %s\n", exe, why, filepath.Dir(ce.CopyTarget()), strings.Join(runFrom(ce.OS, exe, ce.Dir, args), "\n  "))
	}
}

// setTokenVar is the command that sets the token variable from the token
// file: for the user's environment in PowerShell on Windows (clients
// started from the Start menu inherit it; restart them), for the shell's
// profile elsewhere.
func setTokenVar(goos, tokenFile string) string {
	if goos == "windows" {
		return fmt.Sprintf("[Environment]::SetEnvironmentVariable('%s', (Get-Content -Raw '%s').Trim(), 'User')",
			clientconf.TokenVar, strings.ReplaceAll(tokenFile, "'", "''"))
	}
	return fmt.Sprintf("export %s=\"$(cat %s)\"", clientconf.TokenVar, shellQuoteIfNeeded(tokenFile))
}
