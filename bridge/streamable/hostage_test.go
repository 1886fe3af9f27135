package streamable

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
)

// rawPost sends a POST on a connection of its own and never reads the
// answer: a client that asked and stopped reading.
func rawPost(t *testing.T, h *httpHarness, headers hdr, body string) net.Conn {
	t.Helper()
	addr := strings.TrimSuffix(strings.TrimPrefix(h.url, "http://"), "/mcp")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096) // so that the answer cannot hide in the socket buffers
	}
	var req strings.Builder
	fmt.Fprintf(&req, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", addr, len(body))
	for i := 0; i+1 < len(headers); i += 2 {
		fmt.Fprintf(&req, "%s: %s\r\n", headers[i], headers[i+1])
	}
	req.WriteString("\r\n")
	req.WriteString(body)
	if _, err := conn.Write([]byte(req.String())); err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestUnreadAnswerHoldsNobody: client A asks for a 15 MiB answer and never
// reads it; client B's call is answered while A's answer is still unread
// (the worker hands A's answer to A's own writer and goes on). Before, the
// worker wrote A's answer itself and B waited for A's write timeout.
func TestUnreadAnswerHoldsNobody(t *testing.T) {
	h := newHTTPHarness(t, nil) // the write timeout is the default minute
	a := h.initialize("2025-06-18")
	b := h.initialize("2025-06-18")
	conn := rawPost(t, h, withSession(a), bridgetest.Call(`"big"`, "fault_big", `{"mib":15}`))
	bridgetest.WaitFor(t, func() bool { return h.sim.CallsFor(`"big"`) == 1 })
	if r := h.post(withSession(b), bridgetest.Call(`"small"`, "get_drawing_info", `{}`)); r.status != http.StatusOK || bridgetest.Field(t, r.body, "result.isError") != false {
		t.Fatalf("B's call: %d %s", r.status, r.body)
	}
	// A has not read its answer; B was answered all the same. A goes away:
	// its answer is dropped and the bridge goes on.
	conn.Close()
	if r := h.post(withSession(b), bridgetest.Call(`"after"`, "get_drawing_info", `{}`)); r.status != http.StatusOK {
		t.Fatalf("after A left: %d %s", r.status, r.body)
	}
}

// confirmHarness serves the test policy (delete_entities needs the user's
// confirmation) with a journal and a confirmation timeout far beyond any
// test's patience: a question ends only by an answer or a withdrawal.
func confirmHarness(t *testing.T) (*httpHarness, string) {
	t.Helper()
	p := bridgetest.Policy(t, bridgetest.TestPolicy, policy.Options{})
	jpath, jw := newJournal(t)
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) {
		c.Policy = p
		c.Journal, c.ConfirmTimeout = jw, time.Hour
	})
	return h, jpath
}

// askingSession opens a session whose client can ask, and sends a call
// that needs confirmation; it returns the session, the events of the
// call's stream (the question already read) and a function that drops
// that stream.
func askingSession(t *testing.T, h *httpHarness, id string) (string, <-chan string, func()) {
	t.Helper()
	r := h.post(jsonHeaders, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"asker","version":"1"}}}`)
	sid := r.header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	status, _, events, drop := h.stream(http.MethodPost, withSession(sid), bridgetest.Call(id, "delete_entities", `{"handles":["1"]}`))
	if status != http.StatusOK {
		t.Fatalf("the call to confirm: status %d", status)
	}
	if q := next(t, events); bridgetest.Field(t, q, "method") != "elicitation/create" {
		t.Fatalf("want the question, got %s", q)
	}
	return sid, events, drop
}

// TestQuestionHoldsOnlyItsClient: while A's question is out, B's calls are
// answered and A's own later call waits (its order is kept); when A's
// stream drops, nobody can answer, so the question is withdrawn at once:
// the call is refused as cancelled (journal), never sent to CAD, and A's
// later call runs. Before, the question was asked by the one worker: B
// waited for the confirmation timeout.
func TestQuestionHoldsOnlyItsClient(t *testing.T) {
	h, jpath := confirmHarness(t)
	a, _, drop := askingSession(t, h, `"q"`)
	later := othersGoOn(t, h, a)

	drop()
	if r := within(t, later); r.status != http.StatusOK || bridgetest.Field(t, r.body, "result.isError") != false {
		t.Fatalf("A's later call after the question was withdrawn: %d %s", r.status, r.body)
	}
	bridgetest.WaitFor(t, func() bool {
		return slices.Contains(bridgetest.JournalLines(jpath), `"q" delete_entities declined cancelled`)
	})
	if n := h.sim.CallsFor(`"q"`); n != 0 {
		t.Errorf("the call whose question was withdrawn ran %d times", n)
	}
}

// TestDeleteWithdrawsTheQuestion: A's DELETE ends A's question at once;
// the call is refused as cancelled and never sent to CAD, and A's call
// queued behind it runs 0 times.
func TestDeleteWithdrawsTheQuestion(t *testing.T) {
	h, jpath := confirmHarness(t)
	a, events, drop := askingSession(t, h, `"q"`)
	defer drop()
	queued := bridgetest.Field(t, h.health(), "queue").(float64)
	later := h.postAsync(withSession(a), bridgetest.Call(`"a-later"`, "get_drawing_info", `{}`))
	bridgetest.WaitFor(t, func() bool { return bridgetest.Field(t, h.health(), "queue") == queued+1 })
	if r := h.do(context.Background(), http.MethodDelete, h.url, withSession(a), ""); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	bridgetest.WaitFor(t, func() bool {
		return slices.Contains(bridgetest.JournalLines(jpath), `"q" delete_entities declined cancelled`)
	})
	if r := within(t, later); r.status != http.StatusNotFound {
		t.Errorf("A's later call's POST after DELETE: %d %s", r.status, r.body)
	}
	for e := range events { // the stream ends; at most the withdrawal made it out first
		if bridgetest.Field(t, e, "method") != "notifications/cancelled" && bridgetest.Field(t, e, "result.isError") != true {
			t.Errorf("an event after DELETE: %s", e)
		}
	}
	// The worker has passed the point where they would have run.
	b := h.initialize("2025-06-18")
	if r := h.post(withSession(b), bridgetest.Call(`"b"`, "get_drawing_info", `{}`)); r.status != http.StatusOK {
		t.Fatalf("B: %d %s", r.status, r.body)
	}
	for _, id := range []string{`"q"`, `"a-later"`} {
		if n := h.sim.CallsFor(id); n != 0 {
			t.Errorf("%s ran %d times", id, n)
		}
	}
}

// TestDeleteDropsQueuedCalls: a session's call queued behind another
// client's slow call runs 0 times once the session is deleted (as when it
// expires). Before, DELETE forgot the session but its queued call still
// ran in CAD after the 204.
func TestDeleteDropsQueuedCalls(t *testing.T) {
	h := newHTTPHarness(t, nil)
	x := h.initialize("2025-06-18")
	slow := h.postAsync(withSession(x), bridgetest.Call(`"hang"`, "fault_hang", `{}`))
	bridgetest.WaitFor(t, func() bool { return h.sim.CallsFor(`"hang"`) == 1 })
	s := h.initialize("2025-06-18")
	queued := h.postAsync(withSession(s), bridgetest.Call(`"queued"`, "get_drawing_info", `{}`))
	bridgetest.WaitFor(t, func() bool { return bridgetest.Field(t, h.health(), "queue") == float64(1) })
	if r := h.do(context.Background(), http.MethodDelete, h.url, withSession(s), ""); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	if r := within(t, queued); r.status != http.StatusNotFound {
		t.Errorf("the deleted session's POST: %d %s", r.status, r.body)
	}
	h.post(withSession(x), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"hang"}}`)
	<-slow
	// X's next call runs after the place the deleted call had in line.
	if r := h.post(withSession(x), bridgetest.Call(`"next"`, "get_drawing_info", `{}`)); r.status != http.StatusOK {
		t.Fatalf("X's next call: %d %s", r.status, r.body)
	}
	if n := h.sim.CallsFor(`"queued"`); n != 0 {
		t.Errorf("the deleted session's queued call ran %d times", n)
	}
}

// within is the answer on ch, which must come within the test's patience.
func within(t *testing.T, ch <-chan answer) answer {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(bridgetest.WaitLimit):
		t.Fatal("no answer")
	}
	return answer{}
}

// TestDeleteDuringDispatchRunsNothing: a call that arrives on a session
// while DELETE ends it (the POST found the session just before) is not
// sent to CAD. Before, a request the reader took after the session's
// requests were cancelled was queued and ran after the 204, while its POST
// was told that the session had ended.
func TestDeleteDuringDispatchRunsNothing(t *testing.T) {
	h := newHTTPHarness(t, nil)
	s := h.used("2025-06-18")
	testHookDispatch = func(msgs []bridge.Message) {
		if req := msgs[0].Req; req != nil && string(req.ID.Raw()) == `"race"` {
			if a := h.do(context.Background(), http.MethodDelete, h.url, withSession(s), ""); a.status != http.StatusNoContent {
				t.Errorf("DELETE: %d %s", a.status, a.body)
			}
		}
	}
	defer func() { testHookDispatch = nil }()
	// Its answer: 404, or the refusal saying nothing was sent.
	if r := h.post(withSession(s), bridgetest.Call(`"race"`, "get_drawing_info", `{}`)); r.status != http.StatusNotFound &&
		!(r.status == http.StatusOK && strings.Contains(r.body, `"error"`) && strings.Contains(r.body, "not sent to CAD")) {
		t.Errorf("the POST whose session ended: %d %s", r.status, r.body)
	}
	testHookDispatch = nil
	// One worker: once another client's call is answered, the raced call
	// had its turn.
	other := h.used("2025-06-18")
	if r := h.post(withSession(other), bridgetest.Call(`"next"`, "get_drawing_info", `{}`)); r.status != http.StatusOK {
		t.Fatalf("another client's call: %d %s", r.status, r.body)
	}
	if n := h.sim.CallsFor(`"race"`); n != 0 {
		t.Errorf("the call of the deleted session ran %d times", n)
	}
}

// TestFullQueueHoldsOnlyItsClient: a client that keeps the queue full
// (its calls queued behind its own slow call, or behind a question nobody
// answers) does not get the next client's call refused: that call takes
// the place of the first client's latest one, which is refused unsent.
// Before, every other client got "too many requests queued" for as long
// as the first kept the queue full (two sessions of it were enough even
// with a per-client share).
func TestFullQueueHoldsOnlyItsClient(t *testing.T) {
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) { c.Queue = 4 })
	a, b := h.used("2025-06-18"), h.used("2025-06-18")
	hang := h.postAsync(withSession(a), bridgetest.Call(`"hang"`, "fault_hang", `{}`))
	bridgetest.WaitFor(t, func() bool { return h.sim.CallsFor(`"hang"`) == 1 })
	var queued []<-chan answer
	for i := range 4 {
		queued = append(queued, h.postAsync(withSession(a), bridgetest.Call(fmt.Sprintf(`"a%d"`, i), "get_drawing_info", `{}`)))
		bridgetest.WaitFor(t, func() bool { return bridgetest.Field(t, h.health(), "queue") == float64(i+1) })
	}
	bCall := h.postAsync(withSession(b), bridgetest.Call(`"b"`, "get_drawing_info", `{}`))
	select {
	case r := <-bCall:
		t.Fatalf("the other client's call was answered while CAD was busy: %d %s", r.status, r.body)
	case r := <-queued[3]:
		if !strings.Contains(r.body, "too many requests queued") {
			t.Errorf("the first client's latest call, once the other client's took its place: %d %s", r.status, r.body)
		}
	case <-time.After(bridgetest.WaitLimit):
		t.Fatal("no answer")
	}
	h.post(withSession(a), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"hang"}}`)
	<-hang
	if r := within(t, bCall); r.status != http.StatusOK || !strings.Contains(r.body, `"result"`) {
		t.Errorf("the other client's call: %d %s", r.status, r.body)
	}
	for _, q := range queued[:3] {
		if r := within(t, q); !strings.Contains(r.body, `"result"`) {
			t.Errorf("a queued call of the first client: %d %s", r.status, r.body)
		}
	}
	if n := h.sim.CallsFor(`"a3"`); n != 0 {
		t.Errorf("the call refused to make room ran %d times", n)
	}
}

// TestFullQueuePushOutEdgeHTTP: three sessions on a full queue of 8 (the
// one worker held by a hanging call), as their clients see it. Holding 4,
// 2 and 2, the third client's next call takes the place of the first
// client's latest, which is answered at once "too many requests queued",
// unsent. Then holding 3, 2 and 3, the second client's next call is the
// one refused: nobody holds two more than it, and taking the first
// client's latest would only start the same swap again in turn. Every
// other call runs once the hanging one ends.
func TestFullQueuePushOutEdgeHTTP(t *testing.T) {
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) { c.Queue = 8 })
	sessions := map[byte]string{'a': h.used("2025-06-18"), 'b': h.used("2025-06-18"), 'c': h.used("2025-06-18")}
	hang := h.postAsync(withSession(sessions['a']), bridgetest.Call(`"hang"`, "fault_hang", `{}`))
	bridgetest.WaitFor(t, func() bool { return h.sim.CallsFor(`"hang"`) == 1 })

	type named struct {
		id string
		answer
	}
	answers := make(chan named, 16)
	queued := 0
	send := func(id string) {
		t.Helper()
		ch := h.postAsync(withSession(sessions[id[0]]), bridgetest.Call(`"`+id+`"`, "get_drawing_info", `{}`))
		go func() { answers <- named{id, <-ch} }()
	}
	enqueue := func(ids ...string) {
		t.Helper()
		for _, id := range ids {
			send(id)
			queued++
			bridgetest.WaitFor(t, func() bool { return bridgetest.Field(t, h.health(), "queue") == float64(queued) })
		}
	}
	first := func() named {
		t.Helper()
		select {
		case r := <-answers:
			return r
		case <-time.After(bridgetest.WaitLimit):
			t.Fatal("no answer")
		}
		return named{}
	}
	refused := `{"jsonrpc":"2.0","id":%q,"error":{"code":-32603,"message":"too many requests queued (8) waiting for the CAD base; tools/call was not sent, try again when earlier calls have finished"}}`

	enqueue("a0", "a1", "a2", "a3", "b0", "b1", "c0", "c1")
	send("c2")
	if r := first(); r.id != "a3" || r.status != http.StatusOK || r.body != fmt.Sprintf(refused, "a3") {
		t.Fatalf("4, 2, 2 queued, the third client's next call: %s answered first: %d %s; want a3 refused", r.id, r.status, r.body)
	}
	send("b2")
	if r := first(); r.id != "b2" || r.status != http.StatusOK || r.body != fmt.Sprintf(refused, "b2") {
		t.Fatalf("3, 2, 3 queued, the second client's next call: %s answered first: %d %s; want b2 refused", r.id, r.status, r.body)
	}
	h.post(withSession(sessions['a']), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"hang"}}`)
	within(t, hang)
	ran := map[string]bool{}
	for range 8 {
		r := first()
		if !strings.Contains(r.body, `"result"`) {
			t.Errorf("%s: %d %s; want its result", r.id, r.status, r.body)
		}
		ran[r.id] = true
	}
	for _, id := range []string{"a0", "a1", "a2", "b0", "b1", "c0", "c1", "c2"} {
		if !ran[id] || h.sim.CallsFor(`"`+id+`"`) != 1 {
			t.Errorf("%s: answered %v, ran %d times; want once", id, ran[id], h.sim.CallsFor(`"`+id+`"`))
		}
	}
	for _, id := range []string{"a3", "b2"} {
		if n := h.sim.CallsFor(`"` + id + `"`); n != 0 {
			t.Errorf("%s, refused unsent, ran %d times", id, n)
		}
	}
}

// othersGoOn queues session a's next call behind its open question and
// checks that another client's three calls run meanwhile while a's does
// not; it returns a's call, still waiting.
func othersGoOn(t *testing.T, h *httpHarness, a string) <-chan answer {
	t.Helper()
	queued := bridgetest.Field(t, h.health(), "queue").(float64)
	later := h.postAsync(withSession(a), bridgetest.Call(`"a-later"`, "get_drawing_info", `{}`))
	bridgetest.WaitFor(t, func() bool { return bridgetest.Field(t, h.health(), "queue") == queued+1 })
	b := h.initialize("2025-06-18")
	for i := range 3 {
		if r := h.post(withSession(b), bridgetest.Call(fmt.Sprintf(`"b-%d"`, i), "get_drawing_info", `{}`)); r.status != http.StatusOK || bridgetest.Field(t, r.body, "result.isError") != false {
			t.Fatalf("B's call %d while A's question is open: %d %s", i, r.status, r.body)
		}
	}
	if n := h.sim.CallsFor(`"a-later"`); n != 0 {
		t.Fatalf("A's later call ran before A's question was answered (%d)", n)
	}
	return later
}
