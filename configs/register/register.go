// Package register carries out `mcp-bridge install` and `uninstall` once
// the command line is read: which clients, which of their files, the
// entry each one gets, and what to tell the user (a line per file, or one
// table for --client all). configs/clientconf does the finding and the
// editing of each file; cmd/mcp-bridge reads the flags and builds the entry.
package register

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
)

// Request is one install or uninstall, as the command line asked for it.
type Request struct {
	Uninstall bool
	Client    string // a client's id, or "all"
	Scope     string // user, project or local
	Name      string // the entry's name
	DryRun    bool
	Force     bool // write a read-only file; replace an entry of that name that is not ours
	// Copy: install --copy, the binary first copied where it stays.
	Copy bool
	// Server is install's stdio entry: this executable with its settings,
	// or with --url the connect entry.
	Server clientconf.Server
	// Remote is install --url: the remote bridge's URL, which a client with
	// a URL form of its own gets as that form unless Pinned.
	Remote string
	// Pinned: --fingerprint or --ca, which only connect can check, so
	// every client gets the connect entry.
	Pinned    bool
	TokenFile string // install --url --token-file (absolute)
	// Self is this executable: an entry that runs it is ours, whatever its
	// name (uninstall).
	Self string
	// Args are the command's arguments after the program's name, for the
	// command the --copy hint shows.
	Args []string
	// DidYouMean is ", did you mean X?" for a mistyped client name, or ""
	// (the rule every command of the program shares); nil suggests none.
	DidYouMean func(word string, candidates []string) string
}

// UsageError is a request that cannot be carried out as asked (an unknown
// client, a scope it has not): the command line is to be changed.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

func usage(format string, a ...any) error { return UsageError{fmt.Errorf(format, a...)} }

// urlForm: the client gets its own URL entry rather than connect's: it
// has one, and no certificate is to be pinned (no client pins one).
func (r Request) urlForm(c *clientconf.Client) bool {
	return r.Remote != "" && c.URLForm != nil && !r.Pinned
}

func (r Request) cmd() string {
	if r.Uninstall {
		return "uninstall"
	}
	return "install"
}

// clients are the clients the request names: one, or for "all" every
// client found on this machine that has the scope.
func clients(ce clientconf.Env, r Request) ([]*clientconf.Client, error) {
	switch r.Client {
	case "":
		return nil, usage("--client is required: %s, or all", strings.Join(clientconf.IDs(), ", "))
	case "all":
		var cs []*clientconf.Client
		for _, c := range clientconf.Clients {
			if ce.Installed(c) && (r.Scope == "user" || len(ce.Candidates(c, r.Scope)) > 0) {
				cs = append(cs, c)
			}
		}
		if len(cs) == 0 {
			return nil, fmt.Errorf("no MCP client found on this machine for scope %s; name one with --client", r.Scope)
		}
		return cs, nil
	}
	c := clientconf.Lookup(r.Client)
	if c == nil {
		hint := ""
		if r.DidYouMean != nil {
			hint = r.DidYouMean(r.Client, append(clientconf.IDs(), "all"))
		}
		return nil, usage("--client %q%s: want %s, or all", r.Client, hint, strings.Join(clientconf.IDs(), ", "))
	}
	if c.Paste != "" {
		return nil, usage("%s keeps its servers in its own settings, not in a file install may edit: mcp-bridge --print-config --client %s prints the JSON to paste there (%s)", c.Name, c.ID, c.Paste)
	}
	if c.OnlyOS != "" && c.OnlyOS != ce.OS {
		return nil, usage("%s runs only on %s", c.Name, osName(c.OnlyOS))
	}
	if len(ce.Candidates(c, r.Scope)) == 0 {
		return nil, usage("%s has no %s scope", c.Name, r.Scope)
	}
	return []*clientconf.Client{c}, nil
}

// Run carries out r on the machine ce describes, reporting on stdout and
// warning on stderr. A failure for one client is reported and the others
// go on; the error then says how many failed.
func Run(ce clientconf.Env, r Request, stdout, stderr io.Writer) error {
	cs, err := clients(ce, r)
	if err != nil {
		return err
	}
	server := r.Server
	if !r.Uninstall {
		if !r.Copy && slices.ContainsFunc(cs, func(c *clientconf.Client) bool { return !r.urlForm(c) }) {
			fmt.Fprint(stderr, TransientWarning(ce, server.Command, "install --copy "+strings.Join(r.Args, " ")))
		}
		if r.Copy {
			dest := ce.CopyTarget()
			if !r.DryRun {
				if err := clientconf.CopyExecutable(server.Command, dest); err != nil {
					return fmt.Errorf("--copy: %w", err)
				}
			}
			copied := "copied"
			if r.DryRun {
				copied = "would copy"
			}
			fmt.Fprintf(stdout, "%s %s to %s\n", copied, server.Command, dest)
			if !onPath(ce, filepath.Dir(dest)) {
				fmt.Fprintf(stdout, "  its folder is not in your PATH: from a terminal, run it by its path, e.g.\n    %s\n", strings.Join(RunFrom(ce.OS, dest, ce.Dir, "doctor"), "\n    "))
			}
			server.Command = dest
		}
	}
	failed := 0
	tokenVarUsers := []string{} // the clients whose entry takes the token from CAD_MCP_TOKEN
	var table [][3]string       // --client all: client, file, what was done
	var newContent []string     // --client all --dry-run: the files it would write
	for _, c := range cs {
		var results []clientconf.Result
		err := quitFirst(ce, c, r, stderr)
		switch {
		case err != nil:
		case !r.Uninstall:
			target, ok := ce.Target(c, r.Scope)
			if !ok {
				err = fmt.Errorf("cannot tell where %s keeps its settings (is HOME or APPDATA set?)", c.Name)
			} else {
				s := server
				if r.urlForm(c) {
					s = c.URLServer(r.Remote, r.TokenFile != "")
					if r.TokenFile != "" {
						tokenVarUsers = append(tokenVarUsers, c.Name)
					}
				}
				var res clientconf.Result
				res, err = clientconf.Install(target, r.Name, s, clientconf.Options{DryRun: r.DryRun, Force: r.Force, Self: server.Command, LockDir: ce.LockDir()})
				results = append(results, res)
			}
		default:
			// Every file the client may read for this scope.
			for _, file := range ce.Candidates(c, r.Scope) {
				res, rerr := clientconf.Uninstall(file, r.Name, clientconf.Options{DryRun: r.DryRun, Force: r.Force, Self: r.Self, LockDir: ce.LockDir()})
				if rerr != nil {
					err = rerr
					break
				}
				if res.Action != "absent" || len(results) == 0 {
					results = append(results, res)
				}
			}
		}
		if r.Client == "all" {
			table = append(table, tableRows(c, r.Name, results, err, r.DryRun)...)
			for _, res := range results {
				if r.DryRun && res.After != nil {
					newContent = append(newContent, fmt.Sprintf("%s, new content:\n%s\n", res.File, indentText(string(res.After), "    ")))
				}
			}
			if err != nil {
				failed++
			}
			continue
		}
		if err != nil {
			failed++
			fmt.Fprintf(stderr, "%s: %v\n", c.Name, err)
			continue
		}
		report(stdout, c, r.Name, results, r.DryRun)
	}
	if r.Client == "all" {
		printTable(stdout, r.cmd(), table)
		for _, c := range newContent {
			fmt.Fprint(stdout, c)
		}
		for _, c := range clientconf.Clients {
			if c.Paste != "" {
				fmt.Fprintf(stdout, "%s takes its servers pasted in its settings: mcp-bridge --print-config --client %s\n", c.Name, c.ID)
			}
		}
	}
	if dest := ce.CopyTarget(); r.Uninstall && !r.DryRun && dest != "" {
		if st, err := os.Stat(dest); err == nil && st.Mode().IsRegular() {
			fmt.Fprintf(stdout, "the copy that install --copy made stays: %s (other clients may run it; delete it once none does)\n", dest)
		}
	}
	if len(tokenVarUsers) > 0 {
		fmt.Fprintf(stdout, "the token: the entry for %s sends it from the %s variable, not from the file; set it to the token in %s in the environment the client starts from, e.g.\n  %s\n",
			strings.Join(tokenVarUsers, ", "), clientconf.TokenVar, r.TokenFile, SetTokenVar(ce.OS, r.TokenFile))
	}
	if failed > 0 {
		return fmt.Errorf("%s failed for %d of %d clients", r.cmd(), failed, len(cs))
	}
	return nil
}

// quitFirst refuses to edit the file of a client that is running and
// writes its file back when it quits (Claude Desktop, also when only its
// tray icon is left): the edit would be lost. --force writes it anyway,
// with a warning; --dry-run only says so.
func quitFirst(ce clientconf.Env, c *clientconf.Client, r Request, stderr io.Writer) error {
	if !ce.Running(c) {
		return nil
	}
	why := fmt.Sprintf("%s is running: it writes its settings file back when it quits, which would undo this", c.Name)
	switch {
	case r.DryRun:
		fmt.Fprintf(stderr, "note: %s. Quit it first (%s)\n", why, clientconf.QuitHow(ce.OS))
		return nil
	case r.Force:
		fmt.Fprintf(stderr, "warning: %s (written anyway: --force)\n", why)
		return nil
	}
	return fmt.Errorf("%s. Quit it (%s), then run this again; --force writes the file now anyway", why, clientconf.QuitHow(ce.OS))
}

// report says, for one client, what was done to each of its files.
func report(w io.Writer, c *clientconf.Client, name string, results []clientconf.Result, dryRun bool) {
	changed := false
	for _, r := range results {
		switch r.Action {
		case "added":
			fmt.Fprintf(w, "%s: %s %q to %s\n", c.Name, done(r.Action, dryRun), name, r.File)
		case "updated":
			fmt.Fprintf(w, "%s: %s %q in %s\n", c.Name, done(r.Action, dryRun), name, r.File)
		case "removed":
			fmt.Fprintf(w, "%s: %s %q from %s\n", c.Name, done(r.Action, dryRun), name, r.File)
			if r.Deleted {
				fmt.Fprintf(w, "  the file held nothing else (install had made it): %s\n", map[bool]string{true: "would remove it too", false: "removed it too"}[dryRun])
			}
		case "unchanged":
			fmt.Fprintf(w, "%s: %q in %s is already up to date\n", c.Name, name, r.File)
		default:
			fmt.Fprintf(w, "%s: %q is not registered in %s\n", c.Name, name, r.File)
		}
		if r.Action == "unchanged" || r.Action == "absent" {
			continue
		}
		changed = true
		if r.Backup != "" {
			fmt.Fprintf(w, "  the previous file is kept as %s\n", r.Backup)
		}
		if dryRun && r.After != nil {
			fmt.Fprintf(w, "  new content:\n%s\n", indentText(string(r.After), "    "))
		}
	}
	if changed && !dryRun {
		fmt.Fprintf(w, "  then: %s\n", c.Restart)
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
		if r.Deleted {
			what += map[bool]string{true: "; would remove the file, which held nothing else", false: "; removed the file, which held nothing else"}[dryRun]
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
func printTable(w io.Writer, cmd string, rows [][3]string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
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

// onPath reports whether dir is one of the folders of the PATH in ce.
func onPath(ce clientconf.Env, dir string) bool {
	sep := ":"
	if ce.OS == "windows" {
		sep = ";"
	}
	for _, d := range strings.Split(ce.Getenv("PATH"), sep) {
		if d != "" && (filepath.Clean(d) == filepath.Clean(dir) || ce.OS == "windows" && strings.EqualFold(filepath.Clean(d), filepath.Clean(dir))) {
			return true
		}
	}
	return false
}
