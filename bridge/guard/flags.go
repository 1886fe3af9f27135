// Package guard is the user's rules for the tools, behind one gate the
// core calls: which tools a client sees and may call (policy), which
// calls wait for the user's agreement and who asks (confirm), and the
// record of every tool request (journal). This file holds their settings.
package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/configs/setting"
)

// DefaultConfirmTimeout is how long a confirmation question waits for the
// user unless told otherwise.
const DefaultConfirmTimeout = 2 * time.Minute

// Config is the user's rules as the settings give them: the policy file
// and its shortcuts, who asks for confirmation and how long, the journal.
type Config struct {
	Policy         string   // --policy: the policy file, absolute; "" for none
	Deny, Allow    []string // --deny-tools, --allow-tools: globs
	ReadOnly       bool     // --read-only
	ConfirmTimeout time.Duration
	// ConfirmWith is --confirm-with: who asks, in order ("client",
	// "desktop"); "" leaves it to the policy file, else the client and
	// then the desktop (Askers).
	ConfirmWith string
	Journal     string // --journal: the file, absolute; "" for none
	JournalArgs bool   // --journal-args
	JournalMax  int64  // --journal-max: bytes before it rotates
	// JournalRequired (--journal-required): while the journal cannot be
	// written, tools/call is refused and nothing is sent to CAD.
	JournalRequired bool
	origin          setting.Origin
}

var (
	policyFlags  = []string{"policy", "deny-tools", "allow-tools", "read-only"}
	confirmFlags = []string{"confirm-timeout", "confirm-with"}
	journalFlags = []string{"journal", "journal-args", "journal-required", "journal-max"}
)

// AddPolicyFlags registers the flags that shape the tool list (tools and
// doctor take them too).
func AddPolicyFlags(fs *pflag.FlagSet) {
	fs.String("policy", "", "policy file: allowed and denied tools, annotations, calls that need your confirmation (env CAD_MCP_POLICY)")
	fs.String("deny-tools", "", "tools the client may neither see nor call, comma-separated globs: 'save_*,new_drawing' (env CAD_MCP_DENY_TOOLS)")
	fs.String("allow-tools", "", "only these tools, comma-separated globs (env CAD_MCP_ALLOW_TOOLS)")
	fs.Bool("read-only", false, "only tools whose annotations say readOnlyHint (env CAD_MCP_READ_ONLY)")
}

// AddConfirmFlags registers the flags of the confirmation question.
func AddConfirmFlags(fs *pflag.FlagSet) {
	fs.Duration("confirm-timeout", DefaultConfirmTimeout, "how long a confirmation question waits for your answer (env CAD_MCP_CONFIRM_TIMEOUT)")
	fs.String("confirm-with", "", "who asks before a confirm tool runs, in order: client, desktop or client,desktop (default: the policy file's confirmWith, else client,desktop: the client when it can ask, else a dialog on this machine's desktop) (env CAD_MCP_CONFIRM_WITH)")
}

// AddJournalFlags registers the journal's flags.
func AddJournalFlags(fs *pflag.FlagSet) {
	fs.String("journal", "", "append one JSON line per tool request to this file (env CAD_MCP_JOURNAL)")
	fs.Bool("journal-args", false, "also record call arguments in the journal (env CAD_MCP_JOURNAL_ARGS)")
	fs.Bool("journal-required", false, "refuse tool calls, sending nothing to CAD, while the journal cannot be written (env CAD_MCP_JOURNAL_REQUIRED)")
	fs.Int64("journal-max", journal.DefaultMaxBytes, "journal size in bytes before it is rotated to FILE.1 … FILE.5 (env CAD_MCP_JOURNAL_MAX)")
}

// ConfigFrom reads the rule flags registered on fs (any of the three
// groups), after fs.Parse: each from the command line, else its
// CAD_MCP_<NAME> variable through getenv, else its default. File paths
// are made absolute, so that a client's entry pins them for a bridge
// started in another folder.
func ConfigFrom(fs *pflag.FlagSet, getenv func(string) string) (Config, error) {
	for _, names := range [][]string{policyFlags, confirmFlags, journalFlags} {
		if err := setting.Read(fs, getenv, names...); err != nil {
			return Config{}, err
		}
	}
	c := Config{ConfirmTimeout: DefaultConfirmTimeout, JournalMax: journal.DefaultMaxBytes, origin: setting.OriginOf(fs)}
	str := func(name string) string { v, _ := fs.GetString(name); return v }
	c.Policy, c.Deny, c.Allow = str("policy"), setting.List(str("deny-tools")), setting.List(str("allow-tools"))
	c.ReadOnly, _ = fs.GetBool("read-only")
	if fs.Lookup("confirm-timeout") != nil {
		c.ConfirmTimeout, _ = fs.GetDuration("confirm-timeout")
		c.ConfirmWith = str("confirm-with")
	}
	if fs.Lookup("journal") != nil {
		c.Journal = str("journal")
		c.JournalArgs, _ = fs.GetBool("journal-args")
		c.JournalRequired, _ = fs.GetBool("journal-required")
		c.JournalMax, _ = fs.GetInt64("journal-max")
	}
	for _, p := range []*string{&c.Policy, &c.Journal} {
		if *p != "" {
			if abs, err := filepath.Abs(*p); err == nil {
				*p = abs
			}
		}
	}
	// The flags hold the absolute paths too: install and --print-config
	// write them into a client's entry.
	for name, p := range map[string]string{"policy": c.Policy, "journal": c.Journal} {
		if fl := fs.Lookup(name); fl != nil && p != "" {
			_ = fl.Value.Set(p)
		}
	}
	return c, c.Validate()
}

// Validate checks the settings.
func (c Config) Validate() error {
	if c.ConfirmTimeout <= 0 {
		return fmt.Errorf("--confirm-timeout %s: must be positive", c.ConfirmTimeout)
	}
	if c.ConfirmWith != "" {
		if err := policy.CheckConfirmWith(setting.List(c.ConfirmWith)); err != nil {
			return fmt.Errorf("--confirm-with %s: %v", c.ConfirmWith, err)
		}
	}
	if c.JournalRequired && c.Journal == "" {
		return fmt.Errorf("--journal-required needs --journal FILE")
	}
	if c.JournalMax < 4096 {
		return fmt.Errorf("--journal-max %d: must be at least 4096", c.JournalMax)
	}
	return nil
}

// LoadPolicy reads the policy: a file with a mistake is refused at
// start, with its line and the reason. Without a file or a shortcut it
// is nil (every tool as the base describes it).
func (c Config) LoadPolicy() (*policy.Policy, error) {
	var data []byte
	if c.Policy != "" {
		var err error
		if data, err = os.ReadFile(c.Policy); err != nil {
			return nil, fmt.Errorf("%s: %w", c.origin.Name("policy"), err)
		}
	}
	return policy.Build(c.Policy, data, policy.Options{Allow: c.Allow, Deny: c.Deny, ReadOnly: c.ReadOnly})
}

// Askers is who asks for confirmation, in order: --confirm-with (or its
// variable), else the policy file's confirmWith, else the client when it
// can and then the desktop.
func (c Config) Askers(p *policy.Policy) []string {
	if c.ConfirmWith != "" {
		return setting.List(c.ConfirmWith)
	}
	if w := p.ConfirmWith(); w != nil {
		return w
	}
	return []string{policy.AskClient, policy.AskDesktop}
}

// OpenJournal opens the journal (nil without --journal); its lines are
// logged to log when it cannot be written.
func (c Config) OpenJournal(log zerolog.Logger) (*journal.Writer, error) {
	if c.Journal == "" {
		return nil, nil
	}
	w, err := journal.Open(c.Journal, c.JournalMax, journal.DefaultKeep)
	if err != nil {
		return nil, fmt.Errorf("--journal: %w", err)
	}
	w.Log = log
	return w, nil
}
