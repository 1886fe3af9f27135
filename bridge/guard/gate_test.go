package guard

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// The gate's decisions, each at the edge of its rule, without a bridge.

func testPolicy(t *testing.T, file string, opt policy.Options) *policy.Policy {
	t.Helper()
	p, err := policy.Build("p.json", []byte(file), opt)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func legacyCall(name string) *lifecycle.Request {
	id, _ := rpc.ParseID([]byte(`1`))
	return lifecycle.ReadRequest(id, "tools/call", fmt.Appendf(nil, `{"name":%q,"arguments":{"n":1}}`, name))
}

// modernCall is a 2026-07-28 tools/call; elicits: its client can show a
// form; more: members added to its params (requestState, inputResponses).
func modernCall(name string, elicits bool, more string) *lifecycle.Request {
	caps := `{}`
	if elicits {
		caps = `{"elicitation":{}}`
	}
	id, _ := rpc.ParseID([]byte(`1`))
	return lifecycle.ReadRequest(id, "tools/call", fmt.Appendf(nil,
		`{"name":%q,"arguments":{"n":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s}%s}`,
		name, caps, more))
}

// decided is what a test compares of a decision and the call's state.
type decided struct {
	Verdict  Verdict
	Code     int64 // Err's code
	Confirm  confirm.Outcome
	Why      string
	Refusal  string
	Answer   confirm.Outcome
	Call     Call
	ErrWords string // a part of Err's message
}

func summary(d Decision, c Call, words string) decided {
	s := decided{Verdict: d.Verdict, Confirm: d.Confirm, Why: d.Why, Refusal: d.Refusal, Answer: d.Answer, Call: c}
	if d.Err != nil {
		s.Code = d.Err.Code
		if strings.Contains(d.Err.Message, words) {
			s.ErrWords = words
		}
	}
	return s
}

func TestAcceptPolicy(t *testing.T) {
	g := New(Options{Policy: testPolicy(t, `{"deny":["save_*"],"confirm":["delete_*"]}`, policy.Options{}), Log: zerolog.Nop()})
	ro := New(Options{Policy: testPolicy(t, `{}`, policy.Options{ReadOnly: true}), Log: zerolog.Nop()})
	list := []byte(`{"tools":[{"name":"get_a","annotations":{"readOnlyHint":true}},{"name":"get_b","annotations":{"readOnlyHint":false}}]}`)
	for _, c := range []struct {
		g    *Gate
		name string
		want decided
	}{
		{g, "save_as", decided{Verdict: Error, Code: -32602, Refusal: "denied", Call: Call{Denied: true}, ErrWords: "save_as"}},
		{g, "sav_as", decided{}}, // one character off the pattern: passes
		{g, "Save_as", decided{}},
		{ro, "get_a", decided{}},
		{ro, "get_b", decided{Verdict: Error, Code: -32602, Refusal: "read_only", Call: Call{Denied: true}, ErrWords: "get_b"}},
		{ro, "get_c", decided{Verdict: Error, Code: -32602, Refusal: "read_only", Call: Call{Denied: true}, ErrWords: "get_c"}},
	} {
		var call Call
		d := c.g.Accept(&call, legacyCall(c.name), list, true)
		if diff := cmp.Diff(c.want, summary(d, call, c.name)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestAcceptWhoAsks: a call that needs confirmation goes to the first
// asker the user chose who can ask; refused, saying why, when none can.
func TestAcceptWhoAsks(t *testing.T) {
	p := testPolicy(t, `{"confirm":["delete_*"]}`, policy.Options{})
	gate := func(with []string, desk bool) *Gate {
		return New(Options{Policy: p, ConfirmWith: with, Desktop: desk, DesktopWhyNot: "no display (DISPLAY is not set)", Log: zerolog.Nop()})
	}
	both, deskOnly := []string{policy.AskClient, policy.AskDesktop}, []string{policy.AskDesktop}
	noClient := "it needs your confirmation, and this client cannot ask (it did not declare the elicitation capability), and no dialog can be shown on this machine's desktop: no display (DISPLAY is not set)"
	for _, c := range []struct {
		label     string
		g         *Gate
		req       *lifecycle.Request
		clientCan bool
		want      decided
	}{
		{"needs none", gate(both, false), legacyCall("draw_line"), false, decided{}},
		{"legacy, client can", gate(both, true), legacyCall("delete_all"), true, decided{Call: Call{NeedsConfirm: true, Ask: true, AskedBy: policy.AskClient}}},
		{"legacy, client cannot, desktop", gate(both, true), legacyCall("delete_all"), false, decided{Call: Call{NeedsConfirm: true, Ask: true, AskedBy: policy.AskDesktop}}},
		{"legacy, nobody", gate(both, false), legacyCall("delete_all"), false, decided{Verdict: Refuse, Confirm: confirm.Unsupported, Why: noClient, Call: Call{NeedsConfirm: true}}},
		{"desktop only, none", gate(deskOnly, false), legacyCall("delete_all"), true, decided{Verdict: Refuse, Confirm: confirm.Unsupported,
			Why: "it needs your confirmation, and the client is not asked (--confirm-with desktop), and no dialog can be shown on this machine's desktop: no display (DISPLAY is not set)", Call: Call{NeedsConfirm: true}}},
		{"client only, cannot", gate([]string{policy.AskClient}, true), legacyCall("delete_all"), false, decided{Verdict: Refuse, Confirm: confirm.Unsupported,
			Why: "it needs your confirmation, and this client cannot ask (it did not declare the elicitation capability)", Call: Call{NeedsConfirm: true}}},
		// A 2026-07-28 client says itself whether it can; the handshake's
		// word (clientCan) is not its.
		{"modern, elicits", gate(both, true), modernCall("delete_all", true, ""), false, decided{Verdict: InputRequired, Call: Call{NeedsConfirm: true, AskedBy: policy.AskClient}}},
		{"modern, cannot, desktop", gate(both, true), modernCall("delete_all", false, ""), true, decided{Call: Call{NeedsConfirm: true, Ask: true, AskedBy: policy.AskDesktop}}},
		{"modern, desktop first", gate(deskOnly, true), modernCall("delete_all", true, ""), false, decided{Call: Call{NeedsConfirm: true, Ask: true, AskedBy: policy.AskDesktop}}},
		{"modern, nobody", gate(both, false), modernCall("delete_all", false, ""), true, decided{Verdict: Refuse, Confirm: confirm.Unsupported, Why: noClient, Call: Call{NeedsConfirm: true}}},
	} {
		call := Call{NeedsConfirm: c.g.NeedsConfirm(c.req.Tool.Name)}
		d := c.g.Accept(&call, c.req, nil, c.clientCan)
		if diff := cmp.Diff(c.want, summary(d, call, "")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.label, diff)
		}
	}
}

// TestAcceptAnswerBack: a 2026-07-28 call sent again with the answer and
// the requestState the gate issued: runs only when the state is the
// gate's, for this very call, in time and once, and the answer is yes.
func TestAcceptAnswerBack(t *testing.T) {
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	clock := now
	g := New(Options{Policy: testPolicy(t, `{"confirm":["delete_*"]}`, policy.Options{}), ConfirmTimeout: time.Minute,
		Now: func() time.Time { return clock }, Log: zerolog.Nop()})
	issue := func(name string) string {
		var c Call
		res, refused := g.Question(&c, modernCall(name, true, ""))
		if refused != nil || c.Confirm != confirm.Asked {
			t.Fatalf("no question: %v, %v", refused, c.Confirm)
		}
		var r struct {
			ResultType   string `json:"resultType"`
			RequestState string `json:"requestState"`
		}
		if err := json.Unmarshal(res, &r); err != nil || r.ResultType != "input_required" {
			t.Fatalf("question %s: %v", res, err)
		}
		return r.RequestState
	}
	yes := `"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}`
	back := func(name, answer, state string) *lifecycle.Request {
		return modernCall(name, true, fmt.Sprintf(`,%s,"requestState":%s`, answer, state))
	}
	asked := Call{NeedsConfirm: true, AskedBy: policy.AskClient}
	accepted := asked
	accepted.Confirm = confirm.Accepted
	spent := issue("delete_all")
	var first Call = asked
	g.Accept(&first, back("delete_all", yes, fmt.Sprintf("%q", spent)), nil, false)
	for _, c := range []struct {
		label string
		req   func() *lifecycle.Request
		want  decided
	}{
		{"yes", func() *lifecycle.Request { return back("delete_all", yes, fmt.Sprintf("%q", issue("delete_all"))) },
			decided{Answer: confirm.Accepted, Call: accepted}},
		{"no", func() *lifecycle.Request {
			return back("delete_all", `"inputResponses":{"confirm":{"action":"decline"}}`, fmt.Sprintf("%q", issue("delete_all")))
		}, decided{Verdict: Refuse, Confirm: confirm.Declined, Why: "you declined it", Answer: confirm.Declined, Call: asked}},
		{"yes unticked", func() *lifecycle.Request {
			return back("delete_all", `"inputResponses":{"confirm":{"action":"accept","content":{"confirm":false}}}`, fmt.Sprintf("%q", issue("delete_all")))
		}, decided{Verdict: Refuse, Confirm: confirm.Declined, Why: "you declined it", Answer: confirm.Declined, Call: asked}},
		{"dismissed", func() *lifecycle.Request {
			return back("delete_all", `"inputResponses":{"confirm":{"action":"cancel"}}`, fmt.Sprintf("%q", issue("delete_all")))
		}, decided{Verdict: Refuse, Confirm: confirm.Cancelled, Why: "you cancelled it", Answer: confirm.Cancelled, Call: asked}},
		{"no answer", func() *lifecycle.Request {
			return back("delete_all", `"inputResponses":{}`, fmt.Sprintf("%q", issue("delete_all")))
		}, decided{Verdict: Refuse, Confirm: confirm.Refused, Why: "no answer to the confirmation came back with it", Call: asked}},
		{"state not a string", func() *lifecycle.Request { return back("delete_all", yes, `7`) },
			decided{Verdict: Refuse, Confirm: confirm.Refused, Why: "its requestState is not a string issued by mcp-bridge", Refusal: RefusalRequestState, Call: asked}},
		{"forged", func() *lifecycle.Request { return back("delete_all", yes, `"e30.AAAA"`) },
			decided{Verdict: Refuse, Confirm: confirm.Refused, Why: confirm.ErrForged.Error(), Refusal: RefusalRequestState, Call: asked}},
		{"another tool's", func() *lifecycle.Request { return back("delete_one", yes, fmt.Sprintf("%q", issue("delete_all"))) },
			decided{Verdict: Refuse, Confirm: confirm.Refused, Why: confirm.ErrMismatch.Error(), Refusal: RefusalRequestState, Call: asked}},
		{"spent", func() *lifecycle.Request { return back("delete_all", yes, fmt.Sprintf("%q", spent)) },
			decided{Verdict: Refuse, Confirm: confirm.Refused, Why: confirm.ErrReplayed.Error(), Refusal: RefusalRequestState, Call: asked}},
		// The timeout's edge: a millisecond before it the state is good;
		// at it the question timed out (not a refusal of the state).
		{"just in time", func() *lifecycle.Request {
			r := back("delete_all", yes, fmt.Sprintf("%q", issue("delete_all")))
			clock = now.Add(time.Minute - time.Millisecond)
			return r
		}, decided{Answer: confirm.Accepted, Call: accepted}},
		{"at the timeout", func() *lifecycle.Request {
			r := back("delete_all", yes, fmt.Sprintf("%q", issue("delete_all")))
			clock = now.Add(time.Minute)
			return r
		}, decided{Verdict: Refuse, Confirm: confirm.TimedOut, Why: confirm.ErrExpired.Error(), Call: asked}},
	} {
		clock = now
		req := c.req()
		call := Call{NeedsConfirm: true}
		d := g.Accept(&call, req, nil, false)
		if diff := cmp.Diff(c.want, summary(d, call, "")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.label, diff)
		}
	}
}

// TestListed: under a policy only the exact name the base lists runs.
func TestListed(t *testing.T) {
	p := testPolicy(t, `{"deny":["save_*"]}`, policy.Options{})
	g := New(Options{Policy: p, Log: zerolog.Nop()})
	none := New(Options{Log: zerolog.Nop()})
	list := []byte(`{"tools":[{"name":"layer/delete"}]}`)
	down := &rpc.WireError{Code: -32603, Message: "CAD base 127.0.0.1:8080: unreachable", Data: json.RawMessage(`{"kind":"unreachable"}`)}
	for _, c := range []struct {
		label   string
		g       *Gate
		name    string
		failure *rpc.WireError
		want    decided
	}{
		{"listed", g, "layer/delete", nil, decided{}},
		{"case folded", g, "LAYER/delete", nil, decided{Verdict: Error, Code: -32602, Refusal: RefusalUnlisted, Call: Call{Denied: true}, ErrWords: "LAYER/delete"}},
		{"look-alike slash", g, "layer\u2215delete", nil, decided{Verdict: Error, Code: -32602, Refusal: RefusalUnlisted, Call: Call{Denied: true}, ErrWords: "layer\u2215delete"}},
		{"one character more", g, "layer/delete2", nil, decided{Verdict: Error, Code: -32602, Refusal: RefusalUnlisted, Call: Call{Denied: true}, ErrWords: "layer/delete2"}},
		{"list unread", g, "layer/delete", down, decided{Verdict: Error, Code: -32603, ErrWords: "unreachable"}},
		{"no policy", none, "LAYER/delete", down, decided{}},
	} {
		var call Call
		d := c.g.Listed(&call, legacyCall(c.name), list, c.failure)
		if diff := cmp.Diff(c.want, summary(d, call, c.want.ErrWords)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.label, diff)
		}
	}
	// BeforeSend reads the list only when a policy needs it.
	read := 0
	lister := func() ([]byte, *rpc.WireError) { read++; return list, nil }
	if d := none.BeforeSend(&Call{}, legacyCall("x"), lister); d.Verdict != Pass || read != 0 {
		t.Errorf("without a policy: %v, the list read %d times; want Pass, never", d.Verdict, read)
	}
	if d := g.BeforeSend(&Call{}, legacyCall("x"), lister); d.Verdict != Error || read != 1 {
		t.Errorf("under a policy: %v, the list read %d times; want Error, once", d.Verdict, read)
	}
}

// TestEntry: the journal line says how each call ended.
func TestEntry(t *testing.T) {
	g := New(Options{JournalArgs: true, Log: zerolog.Nop()})
	req := legacyCall("delete_all")
	type line struct {
		Outcome, Confirm, Kind, Message string
		Code                            int64
		Denied, Confirmed, Declined     bool
		IsError                         bool
	}
	werr := &rpc.WireError{Code: -32603, Message: "CAD base down", Data: json.RawMessage(`{"kind":"unreachable"}`)}
	for _, c := range []struct {
		label string
		call  Call
		end   End
		want  line
	}{
		{"ok", Call{}, End{Result: []byte(`{"content":[]}`)}, line{Outcome: "ok"}},
		{"tool error", Call{}, End{Result: []byte(`{"isError":true}`)}, line{Outcome: "tool_error", IsError: true}},
		{"agreed", Call{Confirm: confirm.Accepted}, End{Result: []byte(`{}`)}, line{Outcome: "ok", Confirm: "accepted", Confirmed: true}},
		{"asked", Call{Confirm: confirm.Asked}, End{Result: []byte(`{}`)}, line{Outcome: "input_required", Confirm: "asked"}},
		{"timed out", Call{Confirm: confirm.TimedOut}, End{Result: []byte(`{"isError":true}`)}, line{Outcome: "declined", Confirm: "timed out", Declined: true, IsError: true}},
		{"denied", Call{Denied: true}, End{Err: werr}, line{Outcome: "denied", Kind: "unreachable", Message: "CAD base down", Code: -32603, Denied: true}},
		{"bridge error", Call{}, End{Err: werr}, line{Outcome: "error", Kind: "unreachable", Message: "CAD base down", Code: -32603}},
		{"base error", Call{}, End{RawErr: []byte(`{"code":-32602,"message":"Unknown tool","CODE":1}`)}, line{Outcome: "error", Kind: "base", Message: "Unknown tool", Code: -32602}},
		{"cancelled", Call{Confirm: confirm.Accepted}, End{Cancelled: true}, line{Outcome: "cancelled", Confirm: "accepted", Confirmed: true}},
	} {
		c.end.Req = req
		e := g.Entry(&c.call, c.end, time.Unix(0, 0))
		got := line{e.Outcome, e.Confirm, e.Kind, e.Message, e.Code, e.Denied, e.Confirmed, e.Declined, e.IsError}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.label, diff)
		}
		if string(e.Args) != `{"n":1}` {
			t.Errorf("%s: args %s", c.label, e.Args)
		}
	}
}

// TestEndings: how a question ended decides whether the call runs; only
// a yes that nothing withdrew does.
func TestEndings(t *testing.T) {
	g := New(Options{ConfirmTimeout: 90 * time.Second, Log: zerolog.Nop()})
	type ended struct {
		How confirm.Outcome
		Why string
	}
	e := func(how confirm.Outcome, why string) ended { return ended{how, why} }
	resp := func(line string) *rpc.Response {
		r, ok := rpc.DecodeValidMessage([]byte(line)).Msg.(*rpc.Response)
		if !ok {
			t.Fatalf("not a response: %s", line)
		}
		return r
	}
	broken := errors.New("zenity: exit status 5")
	for _, c := range []struct {
		label string
		got   ended
		want  ended
	}{
		{"client yes", e(Elicited(resp(`{"jsonrpc":"2.0","id":"q","result":{"action":"accept","content":{"confirm":true}}}`))), ended{confirm.Accepted, ""}},
		{"client unticked", e(Elicited(resp(`{"jsonrpc":"2.0","id":"q","result":{"action":"accept","content":{"confirm":false}}}`))), ended{confirm.Declined, "you declined it"}},
		{"client twin keys", e(Elicited(resp(`{"jsonrpc":"2.0","id":"q","result":{"action":"accept","ACTION":"decline","content":{"confirm":true}}}`))),
			ended{confirm.Refused, "the client's answer to the question was not an elicitation result"}},
		{"client error", e(Elicited(resp(`{"jsonrpc":"2.0","id":"q","error":{"code":-32601,"message":"no forms here"}}`))), ended{confirm.Refused, "the client could not ask you (no forms here)"}},
		{"dialog run", e(g.Dialog(desktop.Run, nil, false)), ended{confirm.Accepted, ""}},
		{"dialog run, withdrawn", e(g.Dialog(desktop.Run, nil, true)), ended{confirm.Cancelled, "it was cancelled or mcp-bridge stopped while waiting for your answer"}},
		{"dialog don't run", e(g.Dialog(desktop.DontRun, nil, false)), ended{confirm.Declined, "you declined it on the desktop"}},
		{"dialog timed out", e(g.Dialog(desktop.TimedOut, nil, false)), ended{confirm.TimedOut, "nobody answered the question on the desktop within 1m30s"}},
		{"dialog broken", e(g.Dialog(desktop.DontRun, broken, false)), ended{confirm.Refused, "the question could not be shown on the desktop (zenity: exit status 5)"}},
		{"dialog broken, withdrawn", e(g.Dialog(desktop.Cancelled, broken, true)), ended{confirm.Cancelled, "it was cancelled or mcp-bridge stopped while waiting for your answer"}},
		{"client timed out", e(g.TimedOut(policy.AskClient)), ended{confirm.TimedOut, "nobody answered the question within 1m30s"}},
		{"before asking", e(Withdrawn(false)), ended{confirm.Cancelled, "it was cancelled or mcp-bridge stopped before you were asked"}},
		{"stream closed", e(StreamClosed()), ended{confirm.Cancelled, "the stream carrying the question closed before you answered"}},
		{"not sent", e(NotSent()), ended{confirm.Refused, "the question could not be sent to the client"}},
	} {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.label, diff)
		}
	}
}
