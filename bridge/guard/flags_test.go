package guard

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
)

func configFrom(t *testing.T, env map[string]string, args ...string) (Config, error) {
	t.Helper()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	AddPolicyFlags(fs)
	AddConfirmFlags(fs)
	AddJournalFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return ConfigFrom(fs, func(k string) string { return env[k] })
}

// TestConfigFrom: each rule's edge (the journal's size, a confirmation's
// wait, who asks), and file paths made absolute for a client's entry.
func TestConfigFrom(t *testing.T) {
	for _, tt := range []struct {
		args []string
		env  map[string]string
		err  string
	}{
		{[]string{"--journal", "j", "--journal-max", "4096"}, nil, ""},
		{[]string{"--journal-max", "4095"}, nil, "--journal-max 4095: must be at least 4096"},
		{[]string{"--journal-required"}, nil, "--journal-required needs --journal FILE"},
		{[]string{"--confirm-timeout", "0s"}, nil, "--confirm-timeout 0s: must be positive"},
		{[]string{"--confirm-with", "client,desktop"}, nil, ""},
		{nil, map[string]string{"CAD_MCP_CONFIRM_WITH": "client, phone"}, "--confirm-with client, phone"},
	} {
		_, err := configFrom(t, tt.env, tt.args...)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%v %v: %v, want %q", tt.args, tt.env, err, tt.err)
		}
	}
	c, err := configFrom(t, nil, "--policy", "p.jsonc", "--journal", "j.jsonl", "--deny-tools", " save_*, ,new_drawing ")
	if err != nil || !filepath.IsAbs(c.Policy) || !filepath.IsAbs(c.Journal) {
		t.Errorf("paths not absolute: %+v, %v", c, err)
	}
	if diff := cmp.Diff([]string{"save_*", "new_drawing"}, c.Deny); diff != "" {
		t.Errorf("--deny-tools (-want +got):\n%s", diff)
	}
}

// TestAskers: --confirm-with, else the policy file's confirmWith, else the
// client and then the desktop.
func TestAskers(t *testing.T) {
	file, _ := policy.Build("p", []byte(`{"confirm": ["delete_*"], "confirmWith": ["desktop"]}`), policy.Options{})
	for _, tt := range []struct {
		with string
		p    *policy.Policy
		want []string
	}{
		{"", nil, []string{policy.AskClient, policy.AskDesktop}},
		{"", file, []string{policy.AskDesktop}},
		{"client", file, []string{policy.AskClient}},
	} {
		if diff := cmp.Diff(tt.want, (Config{ConfirmWith: tt.with}).Askers(tt.p)); diff != "" {
			t.Errorf("%q: (-want +got):\n%s", tt.with, diff)
		}
	}
}
