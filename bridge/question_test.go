package bridge

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
)

// The confirmation question must show what would run. The arguments come
// from the assistant, and so do their names: a name that writes lines of
// its own, or that is long enough to push the real arguments past the end
// of the message, or invisible characters in a value, must not make the
// user agree to something other than what the base would get. Either the
// question names every argument, each on a line of its own, or the call is
// refused without a question and nothing reaches CAD.
func TestQuestionShowsEveryArgument(t *testing.T) {
	const real = `"path":"C:/plans/master.dwg"`
	const shown = `  path: "C:/plans/master.dwg"`
	var many, tooMany strings.Builder
	for i := range 60 {
		fmt.Fprintf(&many, `"!a%02d":%q,`, i, strings.Repeat("x", 200))
	}
	for i := range 300 {
		fmt.Fprintf(&tooMany, `"!a%03d":0,`, i)
	}
	cases := []struct {
		name, args string
		want       string // a line the question must have
		refuse     bool   // no question: too much to show
	}{
		{"a name that writes lines", `{` + real + `,"!\n  path: \"C:/scratch/tmp.dwg\"\n` + strings.Repeat(" ", 1990) + `":0}`, shown, false},
		{"a long name sorted first", `{"!` + strings.Repeat("x", 1990) + `":0,` + real + `}`, shown, false},
		{"many long arguments sorted first", `{` + many.String() + real + `}`, shown, false},
		{"a carriage return in a name", `{` + real + `,"!\r  path: \"C:/scratch/tmp.dwg\"":0}`, shown, false},
		{"bidi and zero-width characters", `{"path":"C:/plans/` + "\u202e" + `gwd.txt","p` + "\u200b" + `ath":1,"path` + "\u3164" + `":"` + "\ufe0f" + `"}`, "", false},
		// Should the client render the message as Markdown: an HTML
		// comment or tag would hide the lines between.
		{"an HTML comment in names", `{"<!--":0,` + real + `,"~-->":0}`, shown, false},
		{"an HTML comment in values", `{"a":"<!--",` + real + `,"z":"-->"}`, shown, false},
		{"an image whose text is the lines between", `{"a":"![",` + real + `,"z":"](http://x/y.png)"}`, shown, false},
		{"a link in names", `{"[":0,` + real + `,"](http://x)":0}`, shown, false},
		{"struck through", `{"a":"~~",` + real + `,"z":"~~"}`, shown, false},
		{"too many arguments to name", `{` + tooMany.String() + real + `}`, "", true},
	}
	check := func(t *testing.T, msg, want string) {
		t.Helper()
		if want != "" && !strings.Contains(msg+"\n", "\n"+want+"\n") {
			t.Errorf("the question does not show %q:\n%q", want, msg)
		}
		if n := len([]rune(msg)); n > 2000 {
			t.Errorf("a question of %d characters", n)
		}
		for _, l := range strings.Split(msg, "\n") {
			if strings.HasPrefix(l, `  path: "C:/scratch`) {
				t.Errorf("an argument's name wrote a line of its own: %q", l)
			}
		}
		for _, markup := range []string{"<", ">", "![", "](", "~~"} {
			if strings.Contains(msg, markup) {
				t.Errorf("the question holds %q, with which a client rendering Markdown may hide or strike lines:\n%q", markup, msg)
			}
		}
		for _, r := range msg {
			if r != '\n' && (unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)) {
				t.Errorf("the question holds %U, which the user cannot see:\n%q", r, msg)
			}
		}
	}
	// refused: no question was asked, and the client was told why.
	refused := func(t *testing.T, line string) bool {
		t.Helper()
		if field(t, line, "result.isError") == true && strings.Contains(line, "cannot all be shown") && strings.Contains(line, "Nothing was sent to CAD") {
			return true
		}
		return false
	}

	t.Run("handshake era", func(t *testing.T) {
		h := newHarness(t, nil, withPolicy(t, `{"confirm":["save_drawing"]}`, policy.Options{}))
		h.send(initElicit)
		h.recv()
		for i, tc := range cases {
			id := fmt.Sprint(i + 1)
			h.send(call(id, "save_drawing", tc.args))
			h.skipCount(id)
			line := h.recv()
			if field(t, line, "method") != "elicitation/create" || tc.refuse {
				if !refused(t, line) {
					t.Errorf("%s: got %.300s, want %s", tc.name, line, map[bool]string{false: "a question or a refusal", true: "a refusal"}[tc.refuse])
				}
				continue
			}
			qid, _ := field(t, line, "id").(string)
			msg, _ := field(t, line, "params.message").(string)
			t.Run(tc.name, func(t *testing.T) { check(t, msg, tc.want) })
			h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"result":{"action":"decline"}}`, qid))
			h.recv()
		}
		h.closeAndWait()
		h.checkExactlyOnce()
	})
	t.Run("2026-07-28", func(t *testing.T) {
		h := newHarness(t, nil, withPolicy(t, `{"confirm":["save_drawing"]}`, policy.Options{}))
		for i, tc := range cases {
			id := fmt.Sprint(i + 1)
			h.send(modernCall(id, "save_drawing", tc.args, `{"elicitation":{}}`, ""))
			h.skipCount(id)
			line := h.recv()
			if field(t, line, "result.resultType") != "input_required" || tc.refuse {
				if !refused(t, line) {
					t.Errorf("%s: got %.300s, want %s", tc.name, line, map[bool]string{false: "a question or a refusal", true: "a refusal"}[tc.refuse])
				}
				continue
			}
			msg, _ := field(t, line, "result.inputRequests.confirm.params.message").(string)
			t.Run(tc.name, func(t *testing.T) { check(t, msg, tc.want) })
		}
		h.closeAndWait()
		h.checkExactlyOnce()
	})
}

// One value per argument name, at every depth: two names that a
// case-insensitive decoder (Go's encoding/json into a struct,
// Newtonsoft.Json) takes for one, or one name given twice inside a nested
// object, would let the question show one value while the base runs the
// other. Such arguments are refused with -32602 and never reach the base.
func TestArgumentsHoldOneValuePerName(t *testing.T) {
	h := newHarness(t, nil, withPolicy(t, `{"confirm":["draw_polyline"]}`, policy.Options{}))
	h.send(initElicit)
	h.recv()
	for i, args := range []string{
		`{"points":[{"x":0,"y":0},{"x":1,"y":1}],"layer":"0","LAYER":"walls"}`,
		`{"points":[{"x":0,"y":0},{"x":1,"y":1}],"layer":"0","Layer":"walls"}`,
		`{"points":[{"x":0,"y":0},{"x":1,"y":1}],"cloſed":true,"closed":false}`, // ſ folds to s
		`{"points":[{"x":0,"y":0,"x":500},{"x":1,"y":1}]}`,
		`{"points":[{"x":0,"y":0,"X":500},{"x":1,"y":1}]}`,
		`{"points":[{"x":0,"y":0},{"x":1,"y":1}],"meta":{"a":{"k":1,"K":2}}}`,              // K is the Kelvin sign
		"{\"points\":[{\"x\":0,\"y\":0},{\"x\":1,\"y\":1}],\"\xcf\":\"a\",\"\xce\":\"b\"}", // both U+FFFD to a UTF-8 decoder
	} {
		id := fmt.Sprint(i + 1)
		h.send(call(id, "draw_polyline", args))
		h.skipCount(id)
		if line := h.recv(); field(t, line, "error.code") != float64(-32602) || !strings.Contains(line, "nothing was sent to CAD") {
			t.Errorf("arguments %s: got %.300s, want -32602 before any question", args, line)
		}
	}
	// Names that differ by more than case are separate arguments.
	h.send(call(`"ok"`, "draw_polyline", `{"points":[{"x":0,"y":0},{"x":1,"y":1}],"layer":"0"}`))
	h.skipCount(`"ok"`)
	qid, msg := question(t, h)
	if !strings.Contains(msg, `layer: "0"`) {
		t.Errorf("an honest call's question: %q", msg)
	}
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"decline"}}`, qid))
	h.recv()
	h.closeAndWait()
	h.checkExactlyOnce()
}

// The user's answer is read by its exact keys, as every message is: an
// answer that says "accept" only under another spelling ("Action"), or
// says two things in two spellings of one key, or one key twice, is no
// agreement, and the call does not run. (A case-insensitive decoder took
// the last of them.)
func TestAnswerIsReadByExactKeys(t *testing.T) {
	answers := []string{
		`{"Action":"accept","content":{"confirm":true}}`,
		`{"action":"decline","ACTION":"accept","content":{"confirm":true}}`,
		`{"action":"accept","content":{"Confirm":true}}`,
		`{"action":"accept","content":{"confirm":false,"CONFIRM":true}}`,
		`{"ACTION":"decline","action":"accept","content":{"confirm":true}}`,
		`{"action":"accept","content":{"CONFIRM":false,"confirm":true}}`,
		`{"action":"accept","action":"accept","content":{"confirm":true}}`,
	}
	t.Run("handshake era", func(t *testing.T) {
		h := newHarness(t, nil, withPolicy(t, `{"confirm":["new_drawing"]}`, policy.Options{}))
		h.send(initElicit)
		h.recv()
		for i, a := range answers {
			id := fmt.Sprint(i + 1)
			h.send(call(id, "new_drawing", `{"name":"pwned"}`))
			h.skipCount(id)
			qid, _ := question(t, h)
			h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, qid, a))
			if line := h.recv(); field(t, line, "result.isError") != true {
				t.Errorf("answer %s: got %.300s, want a refusal", a, line)
			}
		}
		h.closeAndWait()
		h.checkExactlyOnce()
	})
	t.Run("2026-07-28", func(t *testing.T) {
		h := newHarness(t, nil, withPolicy(t, `{"confirm":["new_drawing"]}`, policy.Options{}))
		caps := `{"elicitation":{}}`
		for i, a := range answers {
			ask, resend := fmt.Sprintf(`"a%d"`, i), fmt.Sprintf(`"b%d"`, i)
			h.send(modernCall(ask, "new_drawing", `{"name":"pwned"}`, caps, ""))
			h.skipCount(ask)
			state, _ := field(t, h.recv(), "result.requestState").(string)
			h.send(modernCall(resend, "new_drawing", `{"name":"pwned"}`, caps, fmt.Sprintf(`,"inputResponses":{"confirm":%s},"requestState":%q`, a, state)))
			h.skipCount(resend)
			if line := h.recv(); field(t, line, "result.isError") != true {
				t.Errorf("answer %s: got %.300s, want a refusal", a, line)
			}
		}
		// Two answers to the one question.
		h.send(modernCall(`"a"`, "new_drawing", `{"name":"pwned"}`, caps, ""))
		h.skipCount(`"a"`)
		state, _ := field(t, h.recv(), "result.requestState").(string)
		h.send(modernCall(`"b"`, "new_drawing", `{"name":"pwned"}`, caps, fmt.Sprintf(`,"inputResponses":{"CONFIRM":{"action":"decline"},"confirm":{"action":"accept","content":{"confirm":true}}},"requestState":%q`, state)))
		h.skipCount(`"b"`)
		if line := h.recv(); field(t, line, "result.isError") != true {
			t.Errorf("two answers: got %.300s, want a refusal", line)
		}
		h.closeAndWait()
		h.checkExactlyOnce()
	})
}
