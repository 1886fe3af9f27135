package confirm

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestRequestState(t *testing.T) {
	s := NewSigner(time.Minute)
	now := time.Unix(1_800_000_000, 0)
	s.Now = func() time.Time { return now }
	args := []byte(`{"handles":["1A","2B"],"layer":"0"}`)
	tok := s.Issue("delete_entities", args)

	if err := s.Redeem(tok, "delete_entities", []byte(`{"layer":"0", "handles":["1A","2B"]}`)); err != nil {
		t.Fatalf("the genuine token, arguments re-ordered and re-spaced: %v", err)
	}
	if err := s.Redeem(tok, "delete_entities", args); !errors.Is(err, ErrReplayed) {
		t.Errorf("second use: %v; want ErrReplayed", err)
	}

	cases := []struct {
		name string
		tok  func() string
		tool string
		args string
		want error
	}{
		{"other arguments", func() string { return s.Issue("delete_entities", args) }, "delete_entities", `{"handles":["*"],"layer":"0"}`, ErrMismatch},
		{"other tool", func() string { return s.Issue("delete_entities", args) }, "delete_layer", string(args), ErrMismatch},
		{"garbage", func() string { return "not-a-token" }, "delete_entities", string(args), ErrForged},
		{"another process's key", func() string { return NewSigner(time.Minute).Issue("delete_entities", args) }, "delete_entities", string(args), ErrForged},
		{"payload edited to another tool, signature kept", func() string {
			tok := s.Issue("delete_layer", args)
			payload, sig, _ := strings.Cut(tok, ".")
			raw, _ := base64.RawURLEncoding.DecodeString(payload)
			raw = []byte(strings.Replace(string(raw), "delete_layer", "delete_entities", 1))
			return base64.RawURLEncoding.EncodeToString(raw) + "." + sig
		}, "delete_entities", string(args), ErrForged},
		{"expired", func() string {
			tok := s.Issue("delete_entities", args)
			now = now.Add(time.Minute)
			return tok
		}, "delete_entities", string(args), ErrExpired},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := s.Redeem(c.tok(), c.tool, []byte(c.args)); !errors.Is(err, c.want) {
				t.Errorf("Redeem = %v; want %v", err, c.want)
			}
		})
	}
}

// TestRequestStateBindsExactStrings: a requestState is bound to the
// arguments' exact strings. A lone surrogate is a string of its own:
// \ud800 is not \udbff, nor U+FFFD (written escaped or not), in a value
// or in a key, though encoding/json reads every one of them as U+FFFD. The
// same string spelt otherwise (an escape for a character written plainly,
// a surrogate pair for its character, upper-case hex), members in another
// order, other spacing: the same arguments.
func TestRequestStateBindsExactStrings(t *testing.T) {
	for _, c := range []struct {
		issued, redeemed string
		same             bool
	}{
		{`{"text":"\ud800"}`, `{"text":"\udbff"}`, false},
		{`{"text":"\ud800"}`, `{"text":"\udc00"}`, false},
		{`{"text":"\ud800"}`, `{"text":"\ufffd"}`, false},
		{`{"text":"\ud800"}`, `{"text":"�"}`, false},
		{`{"text":"\ud800"}`, `{"text":"\ud800\ud800"}`, false},
		{`{"text":"x\ud800y"}`, `{"text":"x\udbffy"}`, false},
		{`{"\ud800":1}`, `{"\udbff":1}`, false},
		{`{"a":[{"b":"\ud800"}]}`, `{"a":[{"b":"\udfff"}]}`, false},
		{`{"text":"\ud800"}`, `{"text":"\uD800"}`, true},
		{`{"text":"\ud83d\ude00"}`, `{"text":"😀"}`, true},
		{`{"text":"\ud800\u0041"}`, `{"text":"\ud800A"}`, true},
		{`{"text":"é\n\/"}`, `{"text":"\u00e9\u000a/"}`, true},
		{`{"\ud800":1,"b":[1, 2]}`, ` { "b" : [1,2] , "\uD800" : 1 } `, true},
		{`{"n":1}`, `{"n":1.0}`, false},
		{`{"n":1}`, `{"n":"1"}`, false},
	} {
		s := NewSigner(time.Minute)
		tok := s.Issue("write_text", []byte(c.issued))
		err := s.Redeem(tok, "write_text", []byte(c.redeemed))
		if c.same && err != nil || !c.same && !errors.Is(err, ErrMismatch) {
			t.Errorf("issued for %s, sent back with %s: %v; want the same arguments: %v", c.issued, c.redeemed, err, c.same)
		}
	}
}

// TestRedeemAtOnce: one requestState sent back by many calls at the same
// moment is spent by exactly one of them; the others are refused as
// replayed, and the bridge goes on (the spent tokens are one map, written
// under the signer's lock: without it, a concurrent map write crashed the
// whole process). Run under -race, as make test does.
func TestRedeemAtOnce(t *testing.T) {
	s := NewSigner(time.Minute)
	args := []byte(`{"handles":["1A"]}`)
	for round := range 20 {
		toks := []string{s.Issue("delete_entities", args), s.Issue("delete_entities", args)}
		start := make(chan struct{})
		errs := make(chan error, 16)
		for i := range 16 {
			go func() {
				<-start
				errs <- s.Redeem(toks[i%2], "delete_entities", args)
			}()
		}
		close(start)
		ok := 0
		for range 16 {
			switch err := <-errs; {
			case err == nil:
				ok++
			case !errors.Is(err, ErrReplayed):
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if ok != 2 {
			t.Fatalf("round %d: two tokens spent %d times, want once each", round, ok)
		}
	}
}

func TestMessageNamesToolAndArguments(t *testing.T) {
	got, _ := Message("delete_entities", []byte(`{"layer":"0","handles":["1A", "2B"]}`))
	want := "The assistant wants to run delete_entities on your drawing. Allow it?\n\nArguments:\n  handles: [\"1A\",\"2B\"]\n  layer: \"0\""
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("message (-want +got):\n%s", d)
	}
	long, _ := Message("add_text", []byte(`{"text":"`+strings.Repeat("x", 5000)+`"}`))
	if n := len([]rune(long)); n > maxMessage {
		t.Errorf("message of %d characters", n)
	}
	if none, _ := Message("undo", nil); !strings.Contains(none, "(no arguments)") {
		t.Error("no arguments not said")
	}
}

func TestParamsAreAnElicitationForm(t *testing.T) {
	var p struct {
		Mode            string `json:"mode"`
		Message         string `json:"message"`
		RequestedSchema struct {
			Type       string                    `json:"type"`
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		} `json:"requestedSchema"`
	}
	params, _ := Params("save_drawing", []byte(`{"path":"a.dwg"}`))
	if err := json.Unmarshal(params, &p); err != nil {
		t.Fatal(err)
	}
	if p.Mode != "form" || p.RequestedSchema.Type != "object" || p.RequestedSchema.Properties["confirm"]["type"] != "boolean" ||
		!strings.Contains(p.Message, `path: "a.dwg"`) {
		t.Errorf("params: %+v", p)
	}
	if legacy, _ := LegacyParams("x", nil); strings.Contains(string(legacy), `"mode"`) {
		t.Error("2025-06-18 params carry mode")
	}
}

func TestRead(t *testing.T) {
	cases := map[string]Answer{
		`{"action":"accept","content":{"confirm":true}}`:  Accepted,
		`{"action":"accept","content":{"confirm":false}}`: Declined,
		`{"action":"accept"}`:                             Declined,
		`{"action":"decline"}`:                            Declined,
		`{"action":"cancel"}`:                             Cancelled,
		`{"action":"maybe"}`:                              Invalid,
		`[]`:                                              Invalid,
	}
	for in, want := range cases {
		if got := Read([]byte(in)); got != want {
			t.Errorf("Read(%s) = %v; want %v", in, got, want)
		}
	}
}

// In a value, markup is escaped inside strings only: outside them [ and ]
// are arrays, and an escaped quote does not end a string.
func TestValueMarkupEscapedInStrings(t *testing.T) {
	got := escape(`{"a":["x[y]~"],"b":"q\"[<&\\","c":[[1],{"d":"]"}]}`, true, markup)
	want := `{"a":["x\u005by\u005d\u007e"],"b":"q\"\u005b\u003c\u0026\\","c":[[1],{"d":"\u005d"}]}`
	if got != want {
		t.Errorf("visible:\n got %s\nwant %s", got, want)
	}
	var v any
	if err := json.Unmarshal([]byte(got), &v); err != nil {
		t.Errorf("not JSON any more: %v", err)
	}
}

// TestRunsThatFakeLines: a dialog wraps at spaces, so a run of them pushes
// what follows onto a line of its own where it passes for an argument; and
// stacked combining marks draw over the lines around. One space, and one
// mark on a letter, are shown as written; the second of either is escaped.
func TestRunsThatFakeLines(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{`{"a":"x y"}`, `  a: "x y"`},
		{`{"a":"x  y"}`, `  a: "x \u0020y"`},
		{`{"a":"x   y"}`, `  a: "x \u0020\u0020y"`},
		{`{"a":"e` + "\u0301" + `"}`, "  a: \"e\u0301\""},
		{`{"a":"e` + "\u0301\u0301" + `"}`, "  a: \"e\u0301\\u0301\""},
		{`{"x  y":1}`, `  "x \u0020y": 1`},
		{`{"x y":1}`, `  "x y": 1`},
		{`{"e` + "\u0301\u0301" + `":1}`, "  \"e\u0301\\u0301\": 1"},
		{`{"e` + "\u0301" + `":1}`, "  e\u0301: 1"},
	} {
		for _, f := range []func(string, string, []byte) (string, error){Text, func(h, tl string, a []byte) (string, error) { return text(h, tl, a, markup) }} {
			got, err := f("head", "", []byte(c.args))
			if err != nil || !strings.HasSuffix(got, "\n"+c.want) {
				t.Errorf("%s: %q %v; want it to end %q", c.args, got, err, c.want)
			}
		}
	}
}

// TestLongLabelCut: a name of any length is cut to maxName with its mark,
// escaped or not.
func TestLongLabelCut(t *testing.T) {
	for _, name := range []string{strings.Repeat("a b", 100000), strings.Repeat("x", maxName+1), strings.Repeat("\u202e", 500)} {
		got := Label(name)
		if n := utf8.RuneCountInString(got); n > maxName+2 || !strings.HasSuffix(got, "…\"") && !strings.HasSuffix(got, "…") {
			t.Errorf("%d runes in, %q out (%d runes)", utf8.RuneCountInString(name), got, n)
		}
	}
}
