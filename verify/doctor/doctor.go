// Package doctor is `mcp-bridge doctor`: it checks this installation, the
// binary, the CAD base and the client configurations that register the bridge.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/toolschema"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
	"github.com/mcp-bridge/mcp-bridge/verify/direct"
)

// Options configure Check.
type Options struct {
	Version    string
	Executable string
	Base       *tcpbase.Client
	Timeout    time.Duration       // for the base's answer, and for reading each client configuration (default 30 s)
	ServerName string              // the name clients know the bridge by, for the name-length rule
	Getenv     func(string) string // HOME, APPDATA, … (injected for tests)
	Dir        string              // the working directory, for project-level configs
	OS         string              // whose client files to read: a GOOS ("": this one's; injected for tests)
	// Policy is the user's tool policy (nil: none): the tools are listed
	// and linted as clients see them, and patterns that match no tool are
	// reported.
	Policy *policy.Policy
	// BaseGiven: the user named Base (--host, --port or their CAD_MCP_
	// variables). Otherwise Base is checked only when no registration is
	// found: each registration is checked against its own base.
	BaseGiven bool
	// Reach tells what a registration's bridge would reach, from its own
	// args and env read as the bridge reads them. Nil: registrations'
	// bases are not checked.
	Reach func(clientconf.Server) (Reach, error)
	// TLSFingerprint is the fingerprint of the certificate --tls-self-signed
	// keeps ("" when there is none), printed for connect --fingerprint.
	TLSFingerprint string
	// TrustProject: run the commands and contact the URLs that entries in
	// project files name. Without it they are only read: a project file
	// comes with the repository, written by whoever can commit to it, and
	// running its command, or sending CAD_MCP_TOKEN to its URL, would do
	// what they chose with the user's programs and token.
	TrustProject bool
	// Settings are doctor's own settings (--port, --policy, …) and where
	// each came from, for the report.
	Settings []Setting
	// Desktop names the dialog program a bridge started here would ask
	// with when its client cannot ("" when there is none, and
	// DesktopWhyNot says why).
	Desktop, DesktopWhyNot string
	// Launch is the --launch setting (nil: none), checked (launch.go).
	Launch *Launch
}

// Setting is one setting and where its value came from: its flag
// ("--port"), its variable ("CAD_MCP_PORT") or "default".
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	From  string `json:"from"`
}

// Reach is the base a registration's bridge talks to, and how.
type Reach struct {
	Base        *tcpbase.Client
	From        string        // where the address comes from, for people: "CAD_MCP_PORT in its env"
	ListTimeout time.Duration // its --list-timeout
	Policy      *policy.Policy
	ConfirmWith []string // who asks, in order (--confirm-with, the policy's, or the default)
	Listen      string   // its --listen: it would serve HTTP, not stdio
	// Remote is the URL a `connect` registration relays to; Base is then
	// unset, and the registration is checked end to end (remote.go).
	Remote string
	// TokenFrom says where a connect registration's token comes from, for
	// people: "--token-file /path in its args", "no token". Never the token.
	TokenFrom string
	// LaunchProgram and Launch: its --launch and the whole command ("":
	// none): a base that is down is then no problem, if the program exists.
	LaunchProgram, Launch string
	// LaunchArgs are its --launch-arg; LaunchHome the folder the program
	// starts in (launch.Command.Problems).
	LaunchArgs []string
	LaunchHome string
}

// Report is what Check found.
type Report struct {
	Version    string               `json:"version"`
	Executable string               `json:"executable"`
	Base       string               `json:"base"`
	Reachable  Checked              `json:"reachable"` // "not checked" when doctor did not try it
	LatencyMs  float64              `json:"latency_ms,omitempty"`
	BaseError  string               `json:"base_error,omitempty"`
	Tools      []string             `json:"tools"`
	Findings   []toolschema.Finding `json:"findings"`
	Configs    []ConfigEntry        `json:"configs"`
	Policy     string               `json:"policy"`
	// Unmatched are policy patterns that match none of the base's tools
	// (usually a typo).
	Unmatched []string `json:"policy_unmatched"`
	// TLSFingerprint: the self-signed certificate's (--tls-self-signed).
	TLSFingerprint string    `json:"tls_fingerprint,omitempty"`
	Settings       []Setting `json:"settings"`
	// Causes are the bases that fail, each said once however many
	// registrations reach it, and counted as one problem.
	Causes []Cause       `json:"causes"`
	Launch *LaunchReport `json:"launch,omitempty"`
	// LaunchStarts: the base is down and Launch would start it.
	LaunchStarts bool `json:"launch_starts,omitempty"`
	Problems     int  `json:"problems"`
}

// ConfigEntry is one registration of mcp-bridge in a client's file, or a
// client file that could not be read (Server empty).
type ConfigEntry struct {
	Client        string   `json:"client"`
	File          string   `json:"file"`
	Where         string   `json:"where,omitempty"` // the key path in the file
	Server        string   `json:"server"`
	Command       string   `json:"command"`
	Args          []string `json:"args,omitempty"`
	URL           string   `json:"url,omitempty"` // a URL entry's: the client connects itself
	CommandExists bool     `json:"command_exists"`
	Version       string   `json:"version,omitempty"` // what the command says it is
	Note          string   `json:"note,omitempty"`
	Problem       string   `json:"problem,omitempty"`
	// Unchecked: an entry of a project file, read but neither run nor
	// contacted (Options.TrustProject).
	Unchecked bool `json:"unchecked,omitempty"`
	// The base this registration's bridge reaches, and what it found there.
	Base        string  `json:"base,omitempty"`
	BaseFrom    string  `json:"base_from,omitempty"`
	BaseOK      Checked `json:"base_ok"` // "not checked" when its base was not tried
	BaseTools   int     `json:"base_tools,omitempty"`
	BaseLatency float64 `json:"base_latency_ms,omitempty"`
	BaseError   string  `json:"base_error,omitempty"`
	// WaitTool: the base lists a tool named wait_for_cad, the name of the
	// bridge's own tool for collecting long calls (docs/limits.md): the
	// base's keeps it, the bridge's is named otherwise; what it is named.
	WaitTool string `json:"wait_tool,omitempty"`
	// TokenFrom: where the token this registration sends comes from
	// (connect and URL entries), never the token.
	TokenFrom string `json:"token_from,omitempty"`
	// Asks: who asks before a call its policy's confirm rule names runs,
	// for people ("" when no tool needs confirmation).
	Asks string `json:"asks,omitempty"`
	// Launch: the command its bridge starts when the base is down.
	Launch string `json:"launch,omitempty"`
	// CheckedWith: the client's own program that what install writes is
	// checked with, its version and what it shows (clientconf.Client).
	CheckedWith string `json:"checked_with,omitempty"`
	// cause is what its base's failure says to its clients, when that
	// is all that is wrong (a Cause of the report).
	cause *Cause
}

// Cause is a CAD base that fails for everything that reaches it: each
// registration given, and doctor's own check. It is one problem, said
// once, with what to do; the registrations are then reported for
// themselves.
type Cause struct {
	Base  string `json:"base"`
	Error string `json:"error"` // the words the bridge's clients would read
	// Down: nothing accepts connections there (CAD is not running), as
	// opposed to a base that answers wrongly or too late.
	Down bool `json:"down"`
	// Clients are the clients whose registrations reach it.
	Clients []string `json:"clients,omitempty"`
}

// Checked is a check's outcome as --json says it: true, false, or
// "not checked" (a base doctor did not try is not one that is down).
type Checked int8

// The outcomes of a check.
const (
	NotChecked Checked = iota
	Failed
	Passed
)

func checked(ok bool) Checked {
	if ok {
		return Passed
	}
	return Failed
}

// MarshalJSON is true, false or "not checked".
func (c Checked) MarshalJSON() ([]byte, error) {
	switch c {
	case Passed:
		return []byte("true"), nil
	case Failed:
		return []byte("false"), nil
	}
	return []byte(`"not checked"`), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *Checked) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true":
		*c = Passed
	case "false":
		*c = Failed
	case `"not checked"`, "null":
		*c = NotChecked
	default:
		return fmt.Errorf("a check's outcome is true, false or \"not checked\", not %s", b)
	}
	return nil
}

// Check checks this installation: the binary, the base (reachable, how
// fast, its tools and how portable their schemas are) and the client
// configurations on this machine that register mcp-bridge.
func Check(ctx context.Context, o Options) *Report {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	rep := &Report{Version: o.Version, Executable: o.Executable, Tools: []string{}, Findings: []toolschema.Finding{}, Configs: []ConfigEntry{},
		Policy: o.Policy.Summary(), Unmatched: []string{}, TLSFingerprint: o.TLSFingerprint, Settings: append([]Setting{}, o.Settings...), Causes: []Cause{}}
	if o.Launch != nil {
		if rep.Launch = checkLaunch(ctx, o); rep.Launch.Problem != "" {
			rep.Problems++
		}
	}
	bases := &baseCache{timeout: o.Timeout, seen: map[string]*baseResult{}}
	rep.Configs = findConfigs(ctx, o, bases)
	// The base named on the command line, or the default one when no
	// registration names any: with registrations, the default address is
	// only a guess, and a registration's own base is what its client uses.
	if o.BaseGiven || len(registered(rep.Configs)) == 0 {
		checkBase(ctx, o, rep, bases)
	}
	for _, c := range rep.Configs {
		if c.Problem != "" {
			rep.Problems++
		}
		if c.cause != nil {
			rep.addCause(*c.cause, c.Client)
		}
	}
	rep.Problems += len(rep.Causes)
	return rep
}

// addCause records that c's base fails, for client ("" for doctor's own
// check): one cause per base.
func (r *Report) addCause(c Cause, client string) {
	i := slices.IndexFunc(r.Causes, func(o Cause) bool { return o.Base == c.Base })
	if i < 0 {
		r.Causes = append(r.Causes, c)
		i = len(r.Causes) - 1
	}
	if client != "" && !slices.Contains(r.Causes[i].Clients, client) {
		r.Causes[i].Clients = append(r.Causes[i].Clients, client)
	}
}

// checkBase fills the report's own base section: reachable, how fast, its
// tools as the user's policy shows them, and how portable their schemas are.
func checkBase(ctx context.Context, o Options, rep *Report, bases *baseCache) {
	rep.Base = o.Base.Addr
	r := bases.check(ctx, o.Base, 0, o.Policy)
	if r.err != nil {
		// Reachable but failing: it answered wrongly, or too late.
		down := errors.Is(r.err, tcpbase.ErrUnreachable)
		rep.Reachable = checked(!down)
		rep.BaseError = r.err.Error()
		if tcpbase.KindOf(r.err) != nil { // the words the bridge's clients read
			rep.BaseError = tcpbase.FailureMessage(r.err, o.Base.Addr, "tools/list", o.Timeout)
		}
		// Down, with a program that starts it: no problem until a launch
		// test says otherwise.
		if rep.LaunchStarts = down && rep.Launch != nil && rep.Launch.Found != "" && !rep.Launch.Tested; !rep.LaunchStarts {
			rep.addCause(Cause{Base: o.Base.Addr, Error: rep.BaseError, Down: down}, "")
		}
		return
	}
	rep.Reachable = Passed
	rep.LatencyMs = r.latency
	if u := o.Policy.Unmatched(r.all); u != nil {
		rep.Unmatched = u
	}
	rep.Tools = append(rep.Tools, r.seen...)
	var err error
	if rep.Findings, err = toolschema.LintTools(r.list, o.ServerName); err != nil {
		rep.BaseError = err.Error()
		rep.Problems++
	}
	for _, f := range rep.Findings {
		if f.Severity == toolschema.SeverityError {
			rep.Problems++
		}
	}
}

// baseResult is what one base answered tools/list.
type baseResult struct {
	err     error
	latency float64  // ms
	all     []string // every tool of the base
	seen    []string // the tools clients see through the policy
	list    []byte   // the tools/list result clients see
}

// baseCache checks each distinct base (address, list timeout, policy) once.
type baseCache struct {
	timeout time.Duration
	seen    map[string]*baseResult
}

func (b *baseCache) check(ctx context.Context, c *tcpbase.Client, listTimeout time.Duration, pol *policy.Policy) *baseResult {
	if listTimeout <= 0 || listTimeout > b.timeout {
		listTimeout = b.timeout
	}
	key := fmt.Sprint(c.Addr, c.ConnectTimeout, listTimeout, pol.Summary())
	if r := b.seen[key]; r != nil {
		return r
	}
	r := &baseResult{}
	b.seen[key] = r
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	res, err := direct.ToolList(ctx, c)
	cancel()
	if err != nil {
		r.err = err
		return r
	}
	r.latency = float64(time.Since(start).Microseconds()) / 1000
	r.all = lifecycle.ToolNames(res)
	r.list = pol.ApplyList(res) // the list as clients see it
	r.seen = lifecycle.ToolNames(r.list)
	return r
}

// registered are the entries that are registrations checked against
// their base (not unreadable files, nor project entries left unchecked).
func registered(cs []ConfigEntry) []ConfigEntry {
	var out []ConfigEntry
	for _, c := range cs {
		if c.Server != "" && !c.Unchecked {
			out = append(out, c)
		}
	}
	return out
}

// findConfigs reports every registration of mcp-bridge in every file a
// client may read (clientconf knows them all) and checks each: the command
// exists and is absolute, it is this version (or says which), the name is
// one clients accept and fits Cursor's 60 characters with the longest
// tool, and the settings it passes are valid (the command itself parses
// them).
func findConfigs(ctx context.Context, o Options, bases *baseCache) []ConfigEntry {
	goos := o.OS
	if goos == "" {
		goos = runtime.GOOS
	}
	ce := clientconf.Env{OS: goos, Getenv: o.Getenv, Dir: o.Dir,
		Read: func(path string) ([]byte, string, bool) { return readConfig(ctx, path, o.Timeout) }}
	regs, probs := ce.Registrations()
	out := []ConfigEntry{}
	for _, p := range probs {
		out = append(out, ConfigEntry{Client: p.Client, File: p.File, Problem: p.Error})
	}
	for _, r := range regs {
		out = append(out, checkRegistration(ctx, o, bases, r))
	}
	return out
}

// checkRegistration checks one registration: the client reads it, the
// command exists and is absolute, it is this version (or says which), the
// name is one clients accept, the settings it passes are valid (the command
// itself parses them), it serves stdio, and the base it reaches answers,
// with the tools that makes Cursor's 60 characters for server and tool
// name together.
func checkRegistration(ctx context.Context, o Options, bases *baseCache, r clientconf.Registration) ConfigEntry {
	e := ConfigEntry{Client: r.Client, File: r.File, Where: r.Where, Server: r.Name, Command: r.Server.Command, Args: r.Server.Args, Note: r.Note}
	if c := clientconf.Lookup(r.ClientID); c != nil {
		e.CheckedWith = c.CheckedWith
	}
	e.CommandExists = commandExists(r.Server.Command)
	if r.NotRead != "" {
		e.Problem = fmt.Sprintf("%s never reads this entry: %s", r.Client, r.NotRead)
		return e
	}
	if r.ShadowedBy != "" {
		// Only a file that exists is named as one to remove, and only
		// where its removal makes the client read this entry.
		switch {
		case r.ShadowMissing:
			e.Problem = fmt.Sprintf("%s never reads this entry: it reads %s instead, which does not exist yet (%s). Move the entry there (mcp-bridge install --client %s creates it)", r.Client, r.ShadowedBy, r.ShadowReason, r.ClientID)
		case r.ShadowRemovable:
			e.Problem = fmt.Sprintf("%s never reads this entry: it reads %s instead (%s). Move the entry there (mcp-bridge install --client %s writes it there), or remove %s if nothing in it is needed", r.Client, r.ShadowedBy, r.ShadowReason, r.ClientID, r.ShadowedBy)
		default:
			e.Problem = fmt.Sprintf("%s never reads this entry: it reads %s instead (%s). Move the entry there (mcp-bridge install --client %s writes it there)", r.Client, r.ShadowedBy, r.ShadowReason, r.ClientID)
		}
		return e
	}
	if r.Scope == "project" && !o.TrustProject {
		checkUntrusted(r, &e)
		return e
	}
	if r.Server.URL != "" && r.Server.Command == "" {
		checkURLEntry(ctx, o, bases.timeout, r, &e)
		return e
	}
	var reach Reach
	var reachErr error
	if o.Reach != nil {
		reach, reachErr = o.Reach(r.Server)
	}
	switch {
	case !e.CommandExists:
		e.Problem = "the command does not exist: the client cannot start the bridge (`mcp-bridge install --client …` registers the right path)"
	case !filepath.IsAbs(r.Server.Command):
		e.Problem = "the command is not an absolute path: GUI clients do not see your shell's PATH"
	case clientconf.CheckName(r.Name) != nil:
		e.Problem = clientconf.CheckName(r.Name).Error()
	case reachErr == nil && reach.Listen != "":
		e.Problem = fmt.Sprintf("it starts the bridge with --listen %s: the bridge then serves HTTP, not the stdio %s talks to, and the client gets no answer. "+
			"Register the stdio bridge with `mcp-bridge install --client %s` (no --listen); to use HTTP, run `mcp-bridge --listen %s` yourself and add its URL (`mcp-bridge --print-config --client %s --listen %s` prints the entry)",
			reach.Listen, r.Client, r.ClientID, reach.Listen, r.ClientID, reach.Listen)
	default:
		e.Version, e.Problem = probe(ctx, r.Server)
		if e.Problem == "" && e.Version != "" && o.Version != "" && e.Version != o.Version {
			e.Note = strings.TrimPrefix(e.Note+"; ", "; ") + "runs mcp-bridge " + e.Version + ", this is " + o.Version
		}
	}
	if e.Problem != "" || o.Reach == nil {
		return e
	}
	if reachErr != nil {
		e.Note = strings.TrimPrefix(e.Note+"; ", "; ") + "its base not checked: " + reachErr.Error()
		return e
	}
	if reach.Remote != "" {
		e.TokenFrom = reach.TokenFrom
		checkRemote(ctx, r.Server, reach.Remote, bases.timeout, &e)
		return e
	}
	e.Asks = whoAsks(o, r.ClientID, reach)
	e.Base, e.BaseFrom = reach.Base.Addr, reach.From
	if e.Launch = reach.Launch; reach.LaunchProgram != "" && launch.Find(reach.LaunchProgram) == "" {
		e.Problem = fmt.Sprintf("its --launch program %s is not found: when the base is down, its bridge cannot start CAD", reach.LaunchProgram)
		return e
	}
	if reach.LaunchProgram != "" {
		if p := (launch.Command{Path: reach.LaunchProgram, Args: reach.LaunchArgs}).Problems(reach.LaunchHome); len(p) > 0 {
			e.Problem = "its --launch command: " + strings.Join(p, "; ")
			return e
		}
	}
	b := bases.check(ctx, reach.Base, reach.ListTimeout, reach.Policy)
	if b.err != nil && errors.Is(b.err, tcpbase.ErrUnreachable) && reach.LaunchProgram != "" {
		e.BaseError = b.err.Error()
		e.Note = strings.TrimPrefix(e.Note+"; ", "; ") + "its CAD base at " + e.Base + " is not running: its bridge starts it when a call needs it"
		return e
	}
	if b.err != nil {
		// The base's failure is not this registration's: it is said once
		// for every registration that reaches it (Report.Causes).
		e.BaseError, e.BaseOK = b.err.Error(), Failed
		limit := reach.ListTimeout
		if limit <= 0 || limit > bases.timeout {
			limit = bases.timeout
		}
		e.cause = &Cause{Base: e.Base, Error: tcpbase.FailureMessage(b.err, e.Base, "tools/list", limit), Down: errors.Is(b.err, tcpbase.ErrUnreachable)}
		return e
	}
	e.BaseOK, e.BaseTools, e.BaseLatency = Passed, len(b.seen), b.latency
	if r.Server.URL == "" && slices.Contains(b.all, "wait_for_cad") {
		e.WaitTool = "the base has a tool named wait_for_cad: it keeps that name, and the bridge's tool for collecting long calls takes another (wait_for_cad_job, or the first of _2, _3, … the base has not), as its log says"
	}
	longest := ""
	for _, t := range b.seen {
		if len(t) > len(longest) {
			longest = t
		}
	}
	if r.ClientID == "cursor" && longest != "" && len(r.Name)+1+len(longest) > 60 {
		e.Problem = fmt.Sprintf("the server name %q and the tool %s together have %d characters: Cursor rejects more than 60 (choose a shorter --name)", r.Name, longest, len(r.Name)+1+len(longest))
	}
	return e
}

// checkUntrusted checks an entry of a project file by reading it only: the
// name, and that its command exists and is absolute. Its command is not run
// and its URL not contacted (Options.TrustProject says why).
func checkUntrusted(r clientconf.Registration, e *ConfigEntry) {
	e.Unchecked = true
	why := "not run: doctor would run whatever program whoever can commit to the project chose"
	if r.Server.URL != "" && r.Server.Command == "" {
		e.URL, e.Command = r.Server.URL, ""
		why = "not contacted: doctor would send CAD_MCP_TOKEN to whatever URL whoever can commit to the project chose"
	}
	switch {
	case e.URL == "" && !e.CommandExists:
		e.Problem = "the command does not exist: the client cannot start the bridge (`mcp-bridge install --client …` registers the right path)"
	case e.URL == "" && !filepath.IsAbs(r.Server.Command):
		e.Problem = "the command is not an absolute path: GUI clients do not see your shell's PATH"
	case clientconf.CheckName(r.Name) != nil:
		e.Problem = clientconf.CheckName(r.Name).Error()
	}
	e.Note = strings.TrimPrefix(e.Note+"; ", "; ") + "a project file, " + why + "; once you trust the file, mcp-bridge doctor --trust-project checks it end to end"
}

// probe runs the registered command as the client would (its args and
// env) with --version: an mcp-bridge answers with its version, or exits 2
// naming the setting it refuses.
func probe(ctx context.Context, s clientconf.Server) (version, problem string) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	run := func(args []string, env map[string]string) (string, string, int) {
		cmd := exec.CommandContext(ctx, s.Command, append(append([]string(nil), args...), "--version")...)
		cmd.Env = os.Environ()
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if err != nil {
			code = -1
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
		}
		return out.String(), errb.String(), code
	}
	// The version alone first (its own settings left out): is it an
	// mcp-bridge at all?
	plain := map[string]string{}
	for k, v := range s.Env {
		if !strings.HasPrefix(k, "CAD_MCP_") {
			plain[k] = v
		}
	}
	stdout, _, code := run(nil, plain)
	if code != 0 || !strings.HasPrefix(stdout, "mcp-bridge ") {
		return "", ""
	}
	version = strings.TrimSpace(strings.SplitN(strings.TrimPrefix(stdout, "mcp-bridge "), "\n", 2)[0])
	if _, stderr, code := run(s.Args, s.Env); code != 0 {
		return version, "the settings it is given are refused: " + strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stderr), "mcp-bridge: "))
	}
	return version, ""
}

// maxConfig bounds a client configuration (Claude Code's holds the history
// of every project, a few MiB at most).
const maxConfig = 64 << 20

// readConfig reads a client configuration if it is a regular file of at
// most maxConfig bytes, within timeout: a FIFO or a device there would
// block doctor or feed it forever. found is false when there is no file.
func readConfig(ctx context.Context, path string, timeout time.Duration) (b []byte, problem string, found bool) {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, "", false
	case !st.Mode().IsRegular():
		return nil, "not a regular file (" + st.Mode().Type().String() + "): not read", true
	case st.Size() > maxConfig:
		return nil, fmt.Sprintf("larger than %d MiB: not read", maxConfig>>20), true
	}
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() { // left behind if the read never ends; doctor exits soon after
		f, err := os.Open(path)
		if err != nil {
			done <- read{nil, err}
			return
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxConfig+1))
		done <- read{b, err}
	}()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	select {
	case r := <-done:
		switch {
		case r.err != nil:
			return nil, "cannot be read: " + r.err.Error(), true
		case len(r.b) > maxConfig:
			return nil, fmt.Sprintf("larger than %d MiB: not read", maxConfig>>20), true
		}
		return r.b, "", true
	case <-ctx.Done():
		return nil, fmt.Sprintf("not read within %s", timeout), true
	}
}

func commandExists(cmd string) bool {
	if cmd == "" {
		return false
	}
	if filepath.IsAbs(cmd) {
		st, err := os.Stat(cmd)
		return err == nil && !st.IsDir()
	}
	_, err := exec.LookPath(cmd)
	return err == nil
}

// Print writes the report for people.
func Print(w io.Writer, r *Report) {
	fmt.Fprintf(w, "mcp-bridge %s\n  binary: %s\n", r.Version, r.Executable)
	if r.TLSFingerprint != "" {
		fmt.Fprintf(w, "info  self-signed TLS certificate (--tls-self-signed): %s (connect --fingerprint %s)\n", r.TLSFingerprint, r.TLSFingerprint)
	}
	for _, c := range r.Causes {
		printCause(w, c)
	}
	ownCause := slices.ContainsFunc(r.Causes, func(c Cause) bool { return c.Base == r.Base })
	switch {
	case r.Base == "" && len(r.Causes) == 0:
		fmt.Fprintln(w, "info  CAD base: each registration below is checked against the base it reaches (--port N checks another)")
	case r.Base == "", ownCause:
	case r.LaunchStarts:
		fmt.Fprintf(w, "info  CAD base at %s is not running: a bridge with --launch starts it when a call needs it (--launch-test tries that now)\n", r.Base)
	case strings.HasPrefix(r.BaseError, "CAD base at "):
		fmt.Fprintf(w, "FAIL  %s\n", r.BaseError)
	case r.BaseError != "":
		fmt.Fprintf(w, "FAIL  CAD base at %s: %s\n", r.Base, r.BaseError)
	default:
		fmt.Fprintf(w, "ok    CAD base at %s answers tools/list in %.1f ms\n", r.Base, r.LatencyMs)
		fmt.Fprintf(w, "ok    %d tools: %s\n", len(r.Tools), strings.Join(r.Tools, ", "))
	}
	printSettings(w, r.Settings)
	printLaunch(w, r.Launch)
	fmt.Fprintf(w, "info  policy: %s\n", r.Policy)
	for _, u := range r.Unmatched {
		fmt.Fprintf(w, "warn  policy pattern %s matches none of the base's tools (a typo?)\n", u)
	}
	if r.Base != "" && r.Reachable == Passed && r.BaseError == "" && len(r.Findings) == 0 {
		fmt.Fprintln(w, "ok    every tool schema is portable (Inspector --strict rules) and every name fits")
	}
	for _, f := range r.Findings {
		tag := "warn "
		if f.Severity == toolschema.SeverityError {
			tag = "FAIL "
		}
		fmt.Fprintf(w, "%s tool %s: %s (%s)\n", tag, f.Tool, f.Problem, f.Path)
	}
	if len(r.Configs) == 0 {
		fmt.Fprintln(w, "info  no client configuration on this machine registers mcp-bridge yet (mcp-bridge install --client …)")
	}
	for _, c := range r.Configs {
		tag := "ok   "
		if c.Unchecked {
			tag = "info "
		}
		detail := "command exists"
		if c.URL != "" {
			detail = "URL entry"
		}
		if c.Version != "" {
			detail = "mcp-bridge " + c.Version
		}
		if c.Note != "" {
			detail += " (" + c.Note + ")"
		}
		switch ok := c.BaseOK == Passed; {
		case c.cause != nil && c.cause.Down:
			detail += fmt.Sprintf("; its CAD base at %s (%s) is not running (above)", c.Base, c.BaseFrom)
		case c.cause != nil:
			detail += fmt.Sprintf("; its CAD base at %s (%s) fails (above)", c.Base, c.BaseFrom)
		case ok && c.URL != "":
			detail += fmt.Sprintf("; the bridge at %s answers: %d tools, %.1f ms", c.Base, c.BaseTools, c.BaseLatency)
		case ok && c.BaseFrom == "mcp-bridge connect":
			detail += fmt.Sprintf("; the remote bridge at %s answers through connect: %d tools, %.1f ms", c.Base, c.BaseTools, c.BaseLatency)
		case ok:
			detail += fmt.Sprintf("; CAD base at %s (%s) answers: %d tools, %.1f ms", c.Base, c.BaseFrom, c.BaseTools, c.BaseLatency)
		}
		if c.Problem != "" {
			tag, detail = "FAIL ", c.Problem
		}
		if c.WaitTool != "" && c.Problem == "" {
			detail += "; " + c.WaitTool
		}
		if c.TokenFrom != "" && !strings.Contains(detail, c.TokenFrom) {
			detail += "; token: " + c.TokenFrom
		}
		if c.Asks != "" {
			detail += "; confirmation: " + c.Asks
		}
		if c.Launch != "" && c.Problem == "" {
			detail += "; starts CAD when its base is down: " + c.Launch
		}
		if c.CheckedWith != "" && c.Problem == "" {
			detail += "; " + c.CheckedWith
		}
		if c.Server == "" {
			fmt.Fprintf(w, "%s %s config %s: %s\n", tag, c.Client, c.File, detail)
			continue
		}
		where := c.File
		if strings.HasPrefix(c.Where, "projects") {
			where += " (" + c.Where + ")"
		}
		what := c.Command
		if c.URL != "" {
			what = c.URL
		}
		fmt.Fprintf(w, "%s %s registers %q in %s: %s: %s\n", tag, c.Client, c.Server, where, what, detail)
	}
	if r.Problems > 0 {
		fmt.Fprintln(w, Plural(r.Problems, "problem"))
	} else {
		fmt.Fprintln(w, "no problems")
	}
}

// printCause says once what is wrong with a base, which registrations
// reach it, and what to do.
func printCause(w io.Writer, c Cause) {
	msg := c.Error
	if !strings.HasPrefix(msg, "CAD base at ") {
		msg = "CAD base at " + c.Base + ": " + msg
	}
	fmt.Fprintf(w, "FAIL  %s\n", msg)
	who := ""
	if len(c.Clients) > 0 {
		who = joinAnd(c.Clients) + map[bool]string{true: " is", false: " are"}[len(c.Clients) == 1] + " set to use it. "
	}
	_, port, _ := strings.Cut(c.Base, ":")
	if i := strings.LastIndex(c.Base, ":"); i >= 0 {
		port = c.Base[i+1:]
	}
	if c.Down {
		fmt.Fprintf(w, "      %sStart the CAD program with its MCP base (mcp-bridge help base says what runs there), then run doctor again; to try without CAD: mcp-bridge sim --port %s\n", who, port)
		return
	}
	fmt.Fprintf(w, "      %sIt does not answer as a base must: mcp-bridge verify --port %s checks it in detail\n", who, port)
}

// joinAnd is "a", "a and b", "a, b and c".
func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// printSettings says where doctor's own settings came from: one line for
// those the command line or the environment set, the others are defaults.
func printSettings(w io.Writer, set []Setting) {
	var given []string
	for _, s := range set {
		if s.From != "default" {
			given = append(given, fmt.Sprintf("%s %s from %s", s.Name, s.Value, s.From))
		}
	}
	switch {
	case len(set) == 0:
	case len(given) == 0:
		fmt.Fprintln(w, "info  settings: all defaults (no flags, no CAD_MCP_ variables)")
	default:
		fmt.Fprintf(w, "info  settings: %s; the others are defaults\n", strings.Join(given, ", "))
	}
}

// Plural is "1 problem", "2 problems".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// whoAsks says who will ask the user before a call that the registration's
// policy has confirmed runs: the client (as far as we know whether it can,
// configs/README.md), a dialog on this desktop, or nobody (then such calls
// are refused). The client's initialize decides in the end; this is what
// to expect.
func whoAsks(o Options, clientID string, reach Reach) string {
	if !reach.Policy.AsksAny() {
		return ""
	}
	c := clientconf.Lookup(clientID)
	name, can := clientID, ""
	if c != nil {
		name, can = c.Name, c.Asks
	}
	// policy.WhoAsks decides, as the bridge will; the client's part is
	// known, or both ways are told.
	desk := o.Desktop != ""
	describe := func(who string) string {
		switch who {
		case policy.AskClient:
			return name + " asks you itself"
		case policy.AskDesktop:
			what := "a dialog on this desktop asks you (" + o.Desktop + ")"
			if can == clientconf.AsksNo && slices.Contains(reach.ConfirmWith, policy.AskClient) {
				what = name + " cannot ask, so " + what
			}
			return what
		}
		why := "nobody can ask you, so the calls that need your confirmation are refused"
		switch {
		case !slices.Contains(reach.ConfirmWith, policy.AskDesktop):
			why += " (--confirm-with " + strings.Join(reach.ConfirmWith, ",") + " leaves the desktop out)"
		default:
			why += " (no dialog can be shown here: " + o.DesktopWhyNot + ")"
		}
		return why
	}
	ifCan, ifNot := policy.WhoAsks(reach.ConfirmWith, true, desk), policy.WhoAsks(reach.ConfirmWith, false, desk)
	switch {
	case can == clientconf.AsksYes || ifCan == ifNot:
		return describe(ifCan)
	case can == clientconf.AsksNo:
		return describe(ifNot)
	}
	return name + " asks you if it declares elicitation (not known for it); if not, " + describe(ifNot)
}
