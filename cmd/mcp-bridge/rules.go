package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/confirm/desktop"
	"github.com/mcp-bridge/mcp-bridge/bridge/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/policy"
	"github.com/mcp-bridge/mcp-bridge/configs/cut"
	"github.com/mcp-bridge/mcp-bridge/configs/userfile"
)

// ruleFlags are the settings for the user's rules: the policy, its
// shortcuts, confirmation and the journal.
type ruleFlags struct {
	policy         string
	denyTools      string
	allowTools     string
	readOnly       bool
	confirmTimeout time.Duration
	confirmWith    string
	journal        string
	journalArgs    bool
	journalMax     int64
	journalReq     bool
	set            *settings // where they came from; nil: the command line
}

// addConfirm adds the flags of the confirmation question.
func (r *ruleFlags) addConfirm(fs *pflag.FlagSet) {
	fs.DurationVar(&r.confirmTimeout, "confirm-timeout", 2*time.Minute, "how long a confirmation question waits for your answer (env CAD_MCP_CONFIRM_TIMEOUT)")
	fs.StringVar(&r.confirmWith, "confirm-with", "", "who asks before a confirm tool runs, in order: client, desktop or client,desktop (default: the policy file's confirmWith, else client,desktop: the client when it can ask, else a dialog on this machine's desktop) (env CAD_MCP_CONFIRM_WITH)")
}

// addJournal adds the journal's flags.
func (r *ruleFlags) addJournal(fs *pflag.FlagSet) {
	fs.StringVar(&r.journal, "journal", "", "append one JSON line per tool request to this file (env CAD_MCP_JOURNAL)")
	fs.BoolVar(&r.journalArgs, "journal-args", false, "also record call arguments in the journal (env CAD_MCP_JOURNAL_ARGS)")
	fs.BoolVar(&r.journalReq, "journal-required", false, "refuse tool calls, sending nothing to CAD, while the journal cannot be written (env CAD_MCP_JOURNAL_REQUIRED)")
	fs.Int64Var(&r.journalMax, "journal-max", journal.DefaultMaxBytes, "journal size in bytes before it is rotated to FILE.1 … FILE.5 (env CAD_MCP_JOURNAL_MAX)")
}

// addPolicy adds the flags that shape the tool list (tools and doctor take
// them too).
func (r *ruleFlags) addPolicy(fs *pflag.FlagSet) {
	fs.StringVar(&r.policy, "policy", "", "policy file: allowed and denied tools, annotations, calls that need your confirmation (env CAD_MCP_POLICY)")
	fs.StringVar(&r.denyTools, "deny-tools", "", "tools the client may neither see nor call, comma-separated globs: 'save_*,new_drawing' (env CAD_MCP_DENY_TOOLS)")
	fs.StringVar(&r.allowTools, "allow-tools", "", "only these tools, comma-separated globs (env CAD_MCP_ALLOW_TOOLS)")
	fs.BoolVar(&r.readOnly, "read-only", false, "only tools whose annotations say readOnlyHint (env CAD_MCP_READ_ONLY)")
}

func envName(flag string) string {
	return "CAD_MCP_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// check validates the settings and makes file paths absolute, so that
// --print-config pins them for clients started elsewhere.
func (r *ruleFlags) check() error {
	for _, p := range []*string{&r.policy, &r.journal} {
		if *p != "" {
			if abs, err := filepath.Abs(*p); err == nil {
				*p = abs
			}
		}
	}
	if r.confirmTimeout <= 0 {
		return fmt.Errorf("--confirm-timeout %s: must be positive", r.confirmTimeout)
	}
	if r.confirmWith != "" {
		if err := policy.CheckConfirmWith(splitList(r.confirmWith)); err != nil {
			return fmt.Errorf("--confirm-with %s: %v", r.confirmWith, err)
		}
	}
	if r.journalReq && r.journal == "" {
		return fmt.Errorf("--journal-required needs --journal FILE")
	}
	if r.journalMax < 4096 {
		return fmt.Errorf("--journal-max %d: must be at least 4096", r.journalMax)
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// load reads the policy: a file with a mistake is refused at start, with
// its line and the reason.
func (r *ruleFlags) load() (*policy.Policy, error) {
	var data []byte
	if r.policy != "" {
		var err error
		if data, err = os.ReadFile(r.policy); err != nil {
			return nil, fmt.Errorf("%s: %w", r.set.name("policy"), err)
		}
	}
	return policy.Build(r.policy, data, policy.Options{Allow: splitList(r.allowTools), Deny: splitList(r.denyTools), ReadOnly: r.readOnly})
}

// apply sets the bridge's rules; the returned function closes the journal.
func (r *ruleFlags) apply(cfg *bridge.Config, log zerolog.Logger, getenv func(string) string) (func(), error) {
	p, err := r.load()
	if err != nil {
		return nil, err
	}
	cfg.Policy = p
	cfg.ConfirmTimeout = r.confirmTimeout
	cfg.ConfirmWith = r.askers(p)
	if p.AsksAny() && slices.Contains(cfg.ConfirmWith, policy.AskDesktop) {
		cfg.Desktop, cfg.DesktopWhyNot = findDesktop(getenv)
		if cfg.Desktop != nil {
			log.Info().Str("dialog", cfg.Desktop.Name()).Msg("confirmation questions that a client cannot ask are shown on this desktop")
		} else {
			log.Info().Str("why", cfg.DesktopWhyNot).Msg("no desktop dialog: confirmation that a client cannot ask is refused")
		}
	}
	if p != nil {
		log.Info().Str("policy", p.Summary()).Msg("tool policy in force")
	}
	if r.journal == "" {
		return func() {}, nil
	}
	w, err := journal.Open(r.journal, r.journalMax, journal.DefaultKeep)
	if err != nil {
		return nil, fmt.Errorf("--journal: %w", err)
	}
	w.Log = log
	cfg.Journal, cfg.JournalArgs, cfg.JournalRequired = w, r.journalArgs, r.journalReq
	return func() { w.Close() }, nil
}

// askers is who asks, in order: --confirm-with (or its variable), else the
// policy file's confirmWith, else the client when it can and then the
// desktop.
func (r *ruleFlags) askers(p *policy.Policy) []string {
	if r.confirmWith != "" {
		return splitList(r.confirmWith)
	}
	if w := p.ConfirmWith(); w != nil {
		return w
	}
	return []string{policy.AskClient, policy.AskDesktop}
}

// findDesktop is the dialog program of this machine's desktop (a variable
// so that tests can give another).
var findDesktop = func(getenv func(string) string) (desktop.Asker, string) {
	return desktop.Find(getenv, exec.LookPath)
}

const journalUsage = `Usage: mcp-bridge journal [FILE] [flags]

Prints the journal written by mcp-bridge --journal FILE (or CAD_MCP_JOURNAL),
its rotated files included, oldest first: what the assistant asked CAD to
do, and how it went.

Examples:
  mcp-bridge journal ~/cad-journal.jsonl --since 1h --failed
  mcp-bridge journal --tool 'delete_*' --json

Flags:
`

// runJournal is the journal subcommand.
func runJournal(e *env, args []string) error {
	fs := pflag.NewFlagSet("journal", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	since := fs.String("since", "", "only entries from this long ago (1h, 30m) or since this time (2026-11-30, 2026-11-30T08:00:00Z)")
	tool := fs.String("tool", "", "only this tool (a glob: 'delete_*')")
	failed := fs.Bool("failed", false, "only requests that did not succeed (errors, tool errors, denied, declined)")
	asJSON := fs.Bool("json", false, "print the matching lines as they are (JSON lines)")
	fs.Usage = func() { fmt.Fprint(e.stdout, journalUsage+usages(fs, all, nil)) }
	if done, err := parseFlags(fs, args); done {
		return err
	}
	file := e.getenv("CAD_MCP_JOURNAL")
	switch fs.NArg() {
	case 0:
		if file == "" {
			return usageError{fmt.Errorf("journal: which file? Give FILE or set CAD_MCP_JOURNAL")}
		}
	case 1:
		file = fs.Arg(0)
	default:
		return usageError{fmt.Errorf("journal takes one FILE, got %d arguments", fs.NArg())}
	}
	var from time.Time
	if *since != "" {
		var err error
		if from, err = parseSince(*since, time.Now()); err != nil {
			return usageError{err}
		}
	}
	if *tool != "" {
		if err := policy.CheckPattern(*tool); err != nil {
			return usageError{fmt.Errorf("--tool %q: malformed pattern: %v (%s)", *tool, err, policy.PatternSyntax)}
		}
	}
	var tw *tabwriter.Writer
	if !*asJSON {
		tw = tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TIME\tCLIENT\tERA\tMETHOD\tTOOL\tOUTCOME\tDURATION\tBYTES\tDETAIL")
	}
	bad, shown := 0, 0
	err := journal.Each(file, func(l journal.Line) bool {
		en := l.Entry
		if en == nil {
			bad++
			return true
		}
		if !from.IsZero() && en.Time.Before(from) {
			return true
		}
		if *tool != "" {
			if !policy.Match(*tool, en.Tool) {
				return true
			}
		}
		if *failed && !en.Failed() {
			return true
		}
		shown++
		if *asJSON {
			fmt.Fprintln(e.stdout, string(l.Text))
			return true
		}
		writeRow(tw, en)
		return true
	})
	// A file that is not a regular one is skipped (journal.Each), not a
	// reason to show nothing.
	notRegular := errors.Is(err, userfile.ErrNotRegular)
	if err != nil && !notRegular {
		return err
	}
	if tw != nil {
		tw.Flush()
	}
	if notRegular {
		fmt.Fprintf(e.stderr, "journal: skipped, not read: %v\n", err)
	}
	if bad > 0 {
		fmt.Fprintf(e.stderr, "journal: %d lines that are not journal entries skipped\n", bad)
	}
	if shown == 0 && !*asJSON {
		fmt.Fprintln(e.stderr, "journal: no matching entries")
	}
	return nil
}

func writeRow(w io.Writer, en *journal.Entry) {
	client := "-"
	if en.Client != nil {
		client = asText(strings.TrimSuffix(en.Client.Name+" "+en.Client.Version, " "))
	}
	tool := asText(en.Tool)
	if tool == "" {
		tool = "-"
	}
	var detail []string
	if en.Confirm != "" {
		c := "confirmation " + en.Confirm
		if en.AskedBy != "" {
			c += " (" + asText(en.AskedBy) + ")"
		}
		detail = append(detail, c)
	}
	if en.Code != 0 {
		detail = append(detail, fmt.Sprintf("%d", en.Code))
	}
	if en.Kind != "" && en.Kind != "denied" {
		detail = append(detail, en.Kind)
	}
	if en.Outcome == journal.Error || en.Outcome == journal.Denied {
		detail = append(detail, asText(cut.Chars(en.Message, 60)))
	}
	if len(en.Args) > 0 {
		detail = append(detail, asText(cut.Chars(string(en.Args), 60)))
	}
	fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%.1f ms\t%d\t%s\n",
		en.Time.Local().Format("2006-01-02 15:04:05"), client, en.Era, en.Method, tool, en.Outcome, en.DurationMs, en.Bytes, strings.Join(detail, "; "))
}

// asText is a value from a client or the base (a tool name, a client's
// name, a message, arguments) as the journal table prints it: quoted, with
// controls and invisible formatting escaped, when it holds any. Tool names
// come from the assistant, refused ones included: none may move the
// cursor, erase or forge a row, or reorder text in the user's terminal.
func asText(s string) string {
	for _, r := range s {
		if !unicode.IsGraphic(r) {
			return strconv.QuoteToGraphic(s)
		}
	}
	return s
}

// parseSince reads --since: a duration back from now, or a date or time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--since %q: want a duration (1h, 30m) or a time (2026-11-30, 2026-11-30T08:00:00Z)", s)
}
