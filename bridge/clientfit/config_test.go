package clientfit

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

// TestConfigFrom: a flag wins over its variable, which wins over the table
// (not set); 0 is set, and means no limit; a value that cannot be read is
// an error naming the setting.
func TestConfigFrom(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    Config
		wantErr string
	}{
		{"nothing: the table", nil, nil, Config{}, ""},
		{"flags", []string{"--answer-within", "2s", "--max-result-bytes", "200000"}, nil,
			Config{AnswerWithin: 2 * time.Second, AnswerWithinSet: true, MaxResultBytes: 200000, MaxResultBytesSet: true}, ""},
		{"variables", nil, map[string]string{"CAD_MCP_ANSWER_WITHIN": "3m30s", "CAD_MCP_MAX_RESULT_BYTES": " 1048576 "},
			Config{AnswerWithin: 210 * time.Second, AnswerWithinSet: true, MaxResultBytes: 1 << 20, MaxResultBytesSet: true}, ""},
		{"a flag wins over its variable", []string{"--max-result-bytes", "5000"}, map[string]string{"CAD_MCP_MAX_RESULT_BYTES": "9000", "CAD_MCP_ANSWER_WITHIN": "1m"},
			Config{AnswerWithin: time.Minute, AnswerWithinSet: true, MaxResultBytes: 5000, MaxResultBytesSet: true}, ""},
		{"0 is set: no limit", []string{"--answer-within", "0", "--max-result-bytes", "0"}, map[string]string{"CAD_MCP_MAX_RESULT_BYTES": "9000"},
			Config{AnswerWithinSet: true, MaxResultBytesSet: true}, ""},
		{"0 in a variable", nil, map[string]string{"CAD_MCP_ANSWER_WITHIN": "0", "CAD_MCP_MAX_RESULT_BYTES": "0"},
			Config{AnswerWithinSet: true, MaxResultBytesSet: true}, ""},
		{"an empty variable is not set", nil, map[string]string{"CAD_MCP_ANSWER_WITHIN": " ", "CAD_MCP_MAX_RESULT_BYTES": ""}, Config{}, ""},
		{"the smallest values", []string{"--answer-within", "1s", "--max-result-bytes", "1024"}, nil,
			Config{AnswerWithin: time.Second, AnswerWithinSet: true, MaxResultBytes: 1024, MaxResultBytesSet: true}, ""},
		{"one under them", []string{"--answer-within", "999ms", "--max-result-bytes", "1023"}, nil, Config{},
			"--answer-within 999ms: want 0 (no limit) or at least 1s\n--max-result-bytes 1023: want 0 (no limit) or at least 1024, room for the note saying what was left out"},
		{"negative", []string{"--answer-within", "-1s", "--max-result-bytes", "-1"}, nil, Config{},
			"--answer-within -1s: want 0 (no limit) or at least 1s\n--max-result-bytes -1: want 0 (no limit) or at least 1024, room for the note saying what was left out"},
		{"a duration without its unit", nil, map[string]string{"CAD_MCP_ANSWER_WITHIN": "240"}, Config{},
			`CAD_MCP_ANSWER_WITHIN="240": want a duration such as 3m30s or 90s (0: no limit)`},
		{"bytes with a unit", nil, map[string]string{"CAD_MCP_MAX_RESULT_BYTES": "1MiB"}, Config{},
			`CAD_MCP_MAX_RESULT_BYTES="1MiB": want a number of bytes such as 1048576 (0: no limit)`},
		{"a variable under the smallest", nil, map[string]string{"CAD_MCP_MAX_RESULT_BYTES": "10"}, Config{},
			"--max-result-bytes 10: want 0 (no limit) or at least 1024, room for the note saying what was left out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			AddFlags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			got, err := ConfigFrom(fs, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestFlagsRefuseNonsense: pflag refuses what is not a duration or a
// number, before ConfigFrom.
func TestFlagsRefuseNonsense(t *testing.T) {
	for _, args := range [][]string{{"--answer-within", "soon"}, {"--max-result-bytes", "1e6"}} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.SetOutput(new(strings.Builder))
		AddFlags(fs)
		if err := fs.Parse(args); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

// TestFor: the settings over the table, for a known client and for one
// the table does not know.
func TestFor(t *testing.T) {
	desk := Limits{For: "Claude Desktop", AnswerWithin: 4 * time.Minute, MaxResultBytes: 1 << 20, MaxImageSide: 2000, MaxImageBytes: 5 << 20}
	tests := []struct {
		name, client string
		c            Config
		want         Limits
	}{
		{"Claude Desktop, the table", "claude-ai", Config{}, desk},
		{"an unknown client: no limit", "my-agent", Config{}, Limits{}},
		{"a known client without limits", "cursor-vscode", Config{}, Limits{For: "Cursor"}},
		{"both set, for every client", "my-agent", Config{AnswerWithin: 2 * time.Second, AnswerWithinSet: true, MaxResultBytes: 200000, MaxResultBytesSet: true},
			Limits{AnswerWithin: 2 * time.Second, MaxResultBytes: 200000}},
		{"0 lifts the table's limit, not its pictures'", "claude-ai", Config{AnswerWithinSet: true, MaxResultBytesSet: true},
			Limits{For: "Claude Desktop", MaxImageSide: 2000, MaxImageBytes: 5 << 20}},
		{"Claude Code's metadata kept", "claude-code", Config{MaxResultBytes: 4096, MaxResultBytesSet: true},
			Limits{For: "Claude Code", AnswerWithin: 2 * time.Minute, MaxResultBytes: 4096, MaxImageSide: 2000, MaxImageBytes: 5 << 20, ReadsAlwaysLoad: true, DefaultResultChars: 50000, MaxResultSizeChars: 500000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.c.For(tt.client)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if !(Config{}).For("my-agent").None() {
		t.Error("an unknown client's limits are not None")
	}
}

// TestLookupExact: names are matched as the clients write them: another
// case, a space more, is another program.
func TestLookupExact(t *testing.T) {
	for _, name := range []string{"claude-ai", "claude-code", "cursor-vscode", "Visual Studio Code"} {
		if _, ok := Lookup(name); !ok {
			t.Errorf("%q not found", name)
		}
	}
	for _, name := range []string{"Claude-AI", "claude-ai ", "claude", "", "visual studio code"} {
		if c, ok := Lookup(name); ok {
			t.Errorf("%q found as %+v", name, c)
		}
	}
}

func TestJobAfter(t *testing.T) {
	for _, tt := range []struct{ within, want time.Duration }{
		{0, 0},
		{4 * time.Minute, 3*time.Minute + 45*time.Second},
		{2 * time.Minute, 108 * time.Second},
		{2 * time.Second, 1800 * time.Millisecond},
		{time.Hour, time.Hour - 15*time.Second},
	} {
		if got := (Limits{AnswerWithin: tt.within}).JobAfter(); got != tt.want {
			t.Errorf("JobAfter(%s) = %s, want %s", tt.within, got, tt.want)
		}
	}
}

// TestSettings: what doctor shows of the two settings: the value and
// where it came from (the flag, its variable), or, not set, each client's
// own; and the flag's help shows no "(default 0)", which would read as no
// limit.
func TestSettings(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	AddFlags(fs)
	if err := fs.Parse([]string{"--answer-within", "90s"}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"CAD_MCP_MAX_RESULT_BYTES": "200000"}
	c, err := ConfigFrom(fs, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	want := []Setting{{"answer-within", "1m30s", "--answer-within"}, {"max-result-bytes", "200000", "CAD_MCP_MAX_RESULT_BYTES"}}
	if d := cmp.Diff(want, c.Settings(fs)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	want = []Setting{{"answer-within", "each client's own", "default"}, {"max-result-bytes", "each client's own", "default"}}
	if d := cmp.Diff(want, Config{}.Settings(fs)); d != "" {
		t.Errorf("not set (-want +got):\n%s", d)
	}
	fresh := pflag.NewFlagSet("t", pflag.ContinueOnError)
	AddFlags(fresh)
	if def := fresh.Lookup("max-result-bytes").DefValue; def != "" || strings.Contains(fresh.FlagUsages(), "(default 0)") {
		t.Errorf("--max-result-bytes shows a default (%q):\n%s", def, fresh.FlagUsages())
	}
}
