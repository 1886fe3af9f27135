package bridge

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// Each test here catches a change to the code that once passed every test,
// and that a user would see.

// A requestState the client made up, with an empty signature or a cut one,
// never lets a call skip the question.
func TestRequestStateSignatureComparedWhole(t *testing.T) {
	h := newHarness(t, nil, withPolicy(t, `{"confirm":["delete_*"]}`, policy.Options{}))
	caps := `{"elicitation":{}}`
	args := `{"handles":["1"]}`
	h.send(modernCall("0", "delete_entities", args, caps, ""))
	h.skipCount("0")
	real := inputRequired(t, h.recv())
	payload, sig, _ := strings.Cut(real, ".")

	sum := sha256.Sum256([]byte(args))
	forged := base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, `{"v":1,"tool":"delete_entities","args":%q,"exp":%d,"nonce":"forged"}`,
		base64.RawURLEncoding.EncodeToString(sum[:]), time.Now().Add(time.Hour).UnixMilli()))
	for i, state := range []string{forged + ".", payload + ".", payload + "." + sig[:len(sig)/2], payload + "." + sig + "A"} {
		id := fmt.Sprint(i + 1)
		h.send(modernCall(id, "delete_entities", args, caps, fmt.Sprintf(acceptState, state)))
		h.skipCount(id)
		if line := h.recv(); field(t, line, "result.isError") != true || !strings.Contains(line, "not issued by this mcp-bridge") {
			t.Errorf("requestState %q: %s", state, line)
		}
	}
	h.closeAndWait()
	h.checkExactlyOnce()
}

// "readOnly": true in a policy file applies, as --read-only does.
func TestPolicyFileReadOnlyApplied(t *testing.T) {
	h := newHarness(t, nil, withPolicy(t, `{"readOnly": true, "annotations": {"get_*": {"readOnlyHint": true}}}`, policy.Options{}))
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var names []string
	for n := range listed(t, h.recv()) {
		names = append(names, n)
	}
	for _, n := range names {
		if !strings.HasPrefix(n, "get_") {
			t.Errorf("%s listed under a read-only policy file", n)
		}
	}
	h.send(call("2", "draw_line", `{"start":{"x":0,"y":0},"end":{"x":1,"y":1}}`))
	h.skipCount("2")
	if line := h.recv(); field(t, line, "error.code") != float64(-32602) || !strings.Contains(line, "allows only read-only tools (test-policy.json)") {
		t.Errorf("draw_line under a read-only policy file: %s", line)
	}
	h.closeAndWait()
	h.checkExactlyOnce()
}

// Where two annotation rules set one field, the later in the file wins,
// whichever is the more specific.
func TestLaterAnnotationRuleWins(t *testing.T) {
	for _, tc := range []struct {
		file string
		want map[string]any
	}{
		{`{"annotations":{"*":{"title":"any","readOnlyHint":false},"get_*":{"title":"a getter"}}}`,
			map[string]any{"title": "a getter", "readOnlyHint": false}},
		{`{"annotations":{"get_*":{"title":"a getter","readOnlyHint":true},"*":{"title":"any"}}}`,
			map[string]any{"title": "any", "readOnlyHint": true}},
	} {
		h := newHarness(t, nil, withPolicy(t, tc.file, policy.Options{}))
		h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		if d := cmp.Diff(tc.want, listed(t, h.recv())["get_entity"]); d != "" {
			t.Errorf("%s: get_entity annotations (-want +got):\n%s", tc.file, d)
		}
		h.closeAndWait()
	}
}

// A policy file with nothing but confirm rules is a policy: the calls it
// names are asked about.
func TestConfirmOnlyPolicyFile(t *testing.T) {
	h := newHarness(t, nil, withPolicy(t, `{"confirm": ["delete_*"]}`, policy.Options{}))
	h.send(modernCall("1", "delete_entities", `{"handles":["1"]}`, `{"elicitation":{}}`, ""))
	h.skipCount("1")
	inputRequired(t, h.recv())
	h.send(initElicit)
	h.recv()
	h.send(call("2", "delete_entities", `{"handles":["1"]}`))
	h.skipCount("2")
	qid, _ := question(t, h)
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"decline"}}`, qid))
	if line := h.recv(); !strings.Contains(line, "you declined it") {
		t.Errorf("declined: %s", line)
	}
	h.closeAndWait()
	h.checkExactlyOnce()
}

// The call's timeout starts when the user agrees: a user who takes longer
// to answer than --call-timeout still gets the call run, not a failure.
func TestCallTimeoutStartsWhenTheUserAgrees(t *testing.T) {
	const callTimeout = 300 * time.Millisecond
	// The base fails as tcpbase.Client does when its deadline has passed.
	base := baseFunc(func(ctx context.Context, frame []byte) ([]byte, error) {
		if ctx.Err() != nil {
			return nil, &tcpbase.Error{Kind: tcpbase.ErrTimeout, Addr: "fake", Err: ctx.Err()}
		}
		if string(rpc.Field(frame, "method")) == `"tools/list"` {
			return []byte(`{"jsonrpc":"2.0","id":"x","result":{"tools":[{"name":"delete_entities","inputSchema":{"type":"object"}}]}}`), nil
		}
		return []byte(`{"jsonrpc":"2.0","id":"x","result":{"content":[{"type":"text","text":"deleted"}],"isError":false}}`), nil
	})
	h := newHarness(t, nil, both(withPolicy(t, `{"confirm": ["delete_*"]}`, policy.Options{}),
		func(c *Config) { c.Base = base; c.CallTimeout = callTimeout }))
	h.send(initElicit)
	h.recv()
	h.send(call("1", "delete_entities", `{"handles":["1"]}`))
	qid, _ := question(t, h)
	time.Sleep(2 * callTimeout) // the user reads the question
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"confirm":true}}}`, qid))
	h.expect(textResult("1", "deleted", false))
	h.closeAndWait()
}
