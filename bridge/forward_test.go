package bridge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// recordedHarness is newHarness with a recorder between the bridge and a
// simulated base of its own.
func recordedHarness(t *testing.T, tweak func(*Config)) (*harness, *bridgetest.Recorder) {
	t.Helper()
	sim := bridgetest.StartSim(t)
	rec := &bridgetest.Recorder{Next: &tcpbase.Client{Addr: sim.Addr()}}
	return newHarness(t, sim, func(c *Config) {
		c.Base = rec
		if tweak != nil {
			tweak(c)
		}
	}), rec
}

// acceptState is the extra params of a 2026-07-28 call re-sent with the
// user's yes and the requestState (%q).
const acceptState = `,"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}},"requestState":%q`

// drawingName asks the base (through the bridge) what the open drawing is
// called: the simulated base's new_drawing changes it.
func drawingName(t *testing.T, h *harness, id string) string {
	t.Helper()
	h.send(call(id, "get_drawing_info", `{}`))
	line := h.recv()
	text, _ := field(t, line, "result.content").([]any)
	if len(text) == 0 {
		t.Fatalf("get_drawing_info: %s", line)
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(text[0].(map[string]any)["text"].(string), `Drawing "`), `"`)
	return name
}

// The simulated base decodes params with Go's encoding/json, which matches
// keys case-insensitively (as Newtonsoft.Json does): a "NAME" beside the
// checked "name" would make it run another tool. The bridge refuses such
// params with -32602, and the base never runs anything for them.
func TestBaseRunsWhatWasChecked(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy policy.Options
		file   string
	}{
		{"deny-tools", policy.Options{Deny: []string{"new_drawing"}}, ""},
		{"read-only", policy.Options{ReadOnly: true}, `{"annotations":{"get_*":{"readOnlyHint":true}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, withPolicy(t, tc.file, tc.policy))
			for i, params := range []string{
				`{"name":"get_drawing_info","NAME":"new_drawing","arguments":{"name":"pwned"}}`,
				`{"name":"get_drawing_info","Name":"new_drawing","arguments":{"name":"pwned"}}`,
				`{"NAME":"new_drawing","name":"get_drawing_info","arguments":{"name":"pwned"}}`,
				`{"name":"get_drawing_info","name":"new_drawing","arguments":{"name":"pwned"}}`,
				`{"name":"new_drawing","name":"get_drawing_info","arguments":{"name":"pwned"}}`,
				// 2026-07-28
				`{"name":"get_drawing_info","NAME":"new_drawing","arguments":{"name":"pwned"},` + fmt.Sprintf(wireMeta, `{}`) + `}`,
			} {
				id := fmt.Sprint(i + 1)
				h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":%s}`, id, params))
				h.skipCount(id)
				line := h.recv()
				if field(t, line, "error.code") != float64(-32602) || !strings.Contains(line, "nothing was sent to CAD") {
					t.Errorf("params %s: got %s, want -32602", params, line)
				}
			}
			if got := drawingName(t, h, `"info"`); got != "Drawing1" {
				t.Errorf("the base ran new_drawing: the drawing is now %q", got)
			}
			h.closeAndWait()
			h.checkExactlyOnce()
		})
	}
}

// Members the bridge does not know never reach the base; a member that
// differs from a known one only in case is refused, Unicode folding
// included ("ſ" folds to "s" in encoding/json); tools/list params follow the
// same rule.
func TestBaseFrameHoldsOnlyWhatWasRead(t *testing.T) {
	h2, rec := recordedHarness(t, nil)
	h2.send(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_drawing_info","arguments":{},"extra":{"name":"new_drawing"},"_meta":{"progressToken":"p"},"task":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_drawing_info"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"c1","_meta":{},"other":1}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"x":1}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`,
	)
	for range 5 {
		h2.recv()
	}
	refused := []string{
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"new_drawing","arguments":{"name":"a"},"argumentſ":{"name":"pwned"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"new_drawing","arguments":{"name":"a","name":"pwned"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"x","_META":{}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x","RequestState":"s"}}`,
		`{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"cursor":"a","Cursor":"b"}}`,
		`{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"cursor":1}}`,
		`{"jsonrpc":"2.0","id":12,"method":"tools/list","params":{"cursor":"a","cursor":"b"}}`,
	}
	for _, l := range refused {
		h2.send(l)
		if line := h2.recv(); field(t, line, "error.code") != float64(-32602) {
			t.Errorf("%s\ngot %.200s, want -32602", l, line)
		}
	}
	h2.closeAndWait()
	want := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_drawing_info","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_drawing_info"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"c1"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`,
	}
	if d := cmp.Diff(want, rec.All()); d != "" {
		t.Errorf("frames the base received (-want +got):\n%s", d)
	}
}

// 2026-07-28 confirmation: the base runs the tool and arguments the user
// confirmed, whatever else the re-sent call carries.
func TestConfirmModernRunsWhatWasConfirmed(t *testing.T) {
	h := newHarness(t, nil, withPolicy(t, `{"confirm":["*"]}`, policy.Options{}))
	caps := `{"elicitation":{}}`
	for i, extra := range []string{
		// other arguments beside the confirmed ones
		`,"Arguments":{"name":"pwned"}`,
		// another tool after a harmless one was confirmed
		`,"NAME":"new_drawing"`,
		`,"NAME":"new_drawing","ARGUMENTS":{"name":"pwned"}`,
	} {
		tool, args := "new_drawing", `{"name":"benign"}`
		if strings.Contains(extra, "NAME") {
			tool, args = "get_drawing_info", `{}`
		}
		ask, resend := fmt.Sprintf(`"a%d"`, i), fmt.Sprintf(`"b%d"`, i)
		h.send(modernCall(ask, tool, args, caps, ""))
		h.skipCount(ask)
		state, _ := field(t, h.recv(), "result.requestState").(string)
		h.send(modernCall(resend, tool, args, caps, fmt.Sprintf(acceptState, state)+extra))
		h.skipCount(resend)
		if line := h.recv(); field(t, line, "error.code") != float64(-32602) {
			t.Errorf("re-sent with %s: got %s, want -32602", extra, line)
		}
	}
	h.closeAndWait()
	h.checkExactlyOnce()
	if h.sim.Calls() != 0 {
		t.Errorf("the base ran %d calls", h.sim.Calls())
	}
}

// Handshake-era confirmation: the question shows what would run; a call
// whose params could make a base run something else is refused before any
// question.
func TestConfirmLegacyAsksAboutWhatRuns(t *testing.T) {
	h := newHarness(t, nil, withPolicy(t, `{"confirm":["new_drawing"]}`, policy.Options{}))
	h.send(initElicit)
	h.recv()
	h.send(call(`"first"`, "get_drawing_info", `{}`))
	h.recv()
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"new_drawing","arguments":{"name":"benign"},"ARGUMENTS":{"name":"pwned"}}}`)
	h.skipCount("1")
	if line := h.recv(); field(t, line, "error.code") != float64(-32602) {
		t.Fatalf("got %s, want -32602 and no question", line)
	}
	// The honest call: the question shows its arguments, and they run.
	h.send(call("2", "new_drawing", `{"name":"benign"}`))
	qid, msg := question(t, h)
	if !strings.Contains(msg, `name: "benign"`) {
		t.Errorf("question: %q", msg)
	}
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"confirm":true}}}`, qid))
	if line := h.recv(); field(t, line, "result.isError") != false {
		t.Fatalf("accepted: %s", line)
	}
	if got := drawingName(t, h, `"info"`); got != "benign" {
		t.Errorf("the drawing is %q, want the confirmed %q", got, "benign")
	}
	h.closeAndWait()
}

// The journal records the tool and arguments of the frame the base got.
func TestJournalRecordsTheFrameSent(t *testing.T) {
	jpath, jw := newJournal(t)
	h2, rec := recordedHarness(t, func(c *Config) { c.Journal = jw; c.JournalArgs = true })
	h2.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"name":"n1"},"name":"new_drawing","unknown":{"name":"x"}}}`)
	h2.recv()
	h2.closeAndWait()
	var got []string
	_ = journal.Each(jpath, func(l journal.Line) bool {
		got = append(got, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":{"name":%q,"arguments":%s}}`, l.Entry.ID, l.Entry.Method, l.Entry.Tool, l.Entry.Args))
		return true
	})
	if d := cmp.Diff(rec.All(), got); d != "" {
		t.Errorf("journal vs frames sent (-sent +journal):\n%s", d)
	}
}

// The base reads a request as a line (its framing is undocumented: the
// bridge ends each frame with "\n"). A line break that is whitespace inside
// the arguments ("\r" on a stdio line, "\n" too in an HTTP body) would
// reach the base inside the frame, and a base that reads line after line
// (.NET's ReadLine ends one at "\r" as at "\n") would take what follows it
// for a request of its own: here a call to a tool the policy denies, never
// checked. The frame the base gets is one line, the request that was
// checked.
//
// Over HTTP: bridge/streamable's TestFrameIsOneLine.
func TestFrameIsOneLine(t *testing.T) {
	deny := policy.Options{Deny: []string{"new_drawing"}}
	h, rec := recordedHarness(t, withPolicy(t, "", deny))
	h.send(call("1", "get_drawing_info", bridgetest.SmuggledArgs("\r\t \r")))
	h.recv()
	h.closeAndWait()
	bridgetest.OneLine(t, rec.All())
}
