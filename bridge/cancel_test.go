package bridge

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

func cancelled(id string) string {
	return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`
}

const pingP = `{"jsonrpc":"2.0","id":"p","method":"ping"}`

const pongP = `{"jsonrpc":"2.0","id":"p","result":{}}`

func TestCancelInFlight(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.send(call("1", "fault_hang", `{}`))
	h.send(call("2", "get_drawing_info", `{}`))
	waitFor(t, func() bool { return h.sim.CallsFor("1") == 1 })
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`)
	// The next line is id 2's answer: nothing was sent for id 1.
	if got := h.recv(); field(t, got, "id") != float64(2) {
		t.Fatalf("after cancelling 1, got %s", got)
	}
	if rest := h.closeAndWait(); len(rest) != 0 {
		t.Fatalf("lines after cancellation: %q", rest)
	}
	h.checkExactlyOnce()
}

func TestCancelQueued(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.send(call("1", "fault_sleep", `{"ms":500}`))
	h.send(call(`"q"`, "draw_line", `{"start":{"x":0,"y":0},"end":{"x":1,"y":1}}`))
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"q"}}`)
	h.skipCount(`"q"`)
	h.expect(textResult("1", "slept 500 ms", false))
	h.send(call("3", "get_drawing_info", `{}`))
	if got := h.recv(); !strings.Contains(got, "0 entities") || field(t, got, "id") != float64(3) {
		t.Fatalf("the cancelled draw_line ran, or an answer came for it: %s", got)
	}
	h.closeAndWait()
	h.checkExactlyOnce()
}

// Cancel, resend with the same id, cancel again: the second cancel reaches
// the second call, even once the first call's end has been handled.
func TestCancelAndResendSameID(t *testing.T) {
	g := newGateBase()
	g.hold = make(chan struct{})
	h := newHarness(t, nil, func(c *Config) { c.Base = g })
	h.send(call("9", "x", `{}`))
	g.waitStarted(t, "9")
	h.send(cancelled("9"), call("9", "x", `{}`), pingP)
	h.expect(pongP) // both handled while the first call is still ending
	close(g.hold)
	g.waitStarted(t, "9") // the first has ended: the worker took the second
	h.send(cancelled("9"), pingP)
	h.expect(pongP)
	g.releaseAll()
	if rest := h.closeAndWait(); len(rest) != 0 {
		t.Fatalf("answers for a cancelled id: %q", rest)
	}
}

// A request whose id is in use by one in progress is refused, as x/tools
// jsonrpc2_v2 does; the first stays cancellable.
func TestDuplicateInFlightIDRefused(t *testing.T) {
	g := newGateBase()
	h := newHarness(t, nil, func(c *Config) { c.Base = g })
	h.send(call("5", "x", `{}`))
	g.waitStarted(t, "5")
	h.send(call("5", "x", `{}`))
	h.expect(`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid Request: id 5 is already in use by a request in progress"}}`)
	h.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	h.expect(`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid Request: id 5 is already in use by a request in progress"}}`)
	h.send(cancelled("5"), pingP)
	h.expect(pongP)
	g.releaseAll()
	if rest := h.closeAndWait(); len(rest) != 0 {
		t.Fatalf("answers for a cancelled id: %q", rest)
	}
	if got := g.seen(); len(got) != 1 {
		t.Fatalf("the base saw %q, want the first call only", got)
	}
}

func TestDuplicateListenIDRefused(t *testing.T) {
	h := newHarness(t, nil, nil)
	listen := `{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + modernMeta + `}}`
	h.send(listen)
	h.expect(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}`)
	h.send(listen)
	h.expect(`{"jsonrpc":"2.0","id":"L","error":{"code":-32600,"message":"Invalid Request: id \"L\" is already in use by a request in progress"}}`)
	h.send(cancelled(`"L"`), pingP)
	h.expect(pongP)
	if rest := h.closeAndWait(); len(rest) != 0 {
		t.Fatalf("after cancelling the listen: %q", rest)
	}
}

// notifications/cancelled names the request by value: 1.0 and 1e0 are the
// number 1, "\u0061" is the string "a".
func TestCancelComparesIDsAsJSONValues(t *testing.T) {
	g := newGateBase()
	h := newHarness(t, nil, func(c *Config) { c.Base = g })
	h.send(call("1", "x", `{}`), call(`"a"`, "x", `{}`), call("100", "x", `{}`), call("7", "x", `{}`))
	g.waitStarted(t, "1")
	h.send(cancelled("1.0"), cancelled(`"\u0061"`), cancelled("1e2"), cancelled(`"7"`), pingP)
	h.expect(pongP)
	g.releaseAll()
	rest := h.closeAndWait()
	// Only 7 is left: the string "7" is not the number 7.
	if len(rest) != 1 || field(t, rest[0], "id") != float64(7) {
		t.Fatalf("got %q, want only id 7's answer", rest)
	}
}

// TestCancelResendSoak mixes, in random order, calls that reuse a few ids,
// duplicates sent while the first is in flight, cancellations naming ids
// by other spellings of the same value (1.0, "\u0061"), and cancel-and-resend
// in one write. Whatever the interleaving: an id never cancelled gets
// exactly one answer per request (a result, or -32600 for a duplicate), a
// cancelled one at most one, every call that reached the base ran once, and
// the bridge ends cleanly with valid stdout (the harness checks each line).
func TestCancelResendSoak(t *testing.T) {
	rounds, rng := soakRNG(t, 400, 2)
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Faults: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	before := runtime.NumGoroutine()
	h := newHarness(t, sim, nil)

	// Each id with the spellings a cancellation may use for it.
	cancellable := map[string][]string{`1`: {`1`, `1.0`, `1e0`}, `"a"`: {`"a"`, `"\u0061"`}, `22`: {`22`, `2.2e1`}}
	var cIDs []string
	for id := range cancellable {
		cIDs = append(cIDs, id)
	}
	slices.Sort(cIDs)
	kept := []string{`"k1"`, `"k2"`, `3`}
	requests := map[string]int{}
	sleep := func(id string) string { return call(id, "fault_sleep", fmt.Sprintf(`{"ms":%d}`, rng.IntN(4))) }
	for range rounds {
		switch rng.IntN(5) {
		case 0, 1:
			id := kept[rng.IntN(len(kept))]
			requests[id]++
			h.send(sleep(id))
		case 2:
			id := cIDs[rng.IntN(len(cIDs))]
			requests[id]++
			h.send(sleep(id))
		case 3:
			spell := cancellable[cIDs[rng.IntN(len(cIDs))]]
			h.send(cancelled(spell[rng.IntN(len(spell))]))
		case 4: // cancel and resend in one write
			id := cIDs[rng.IntN(len(cIDs))]
			requests[id]++
			spell := cancellable[id]
			h.send(cancelled(spell[rng.IntN(len(spell))]) + "\n" + sleep(id))
		}
	}
	rest := h.closeAndWait()
	answers := map[string]int{}
	for _, l := range rest {
		d := rpc.DecodeMessage([]byte(l))
		if r, ok := d.Msg.(*rpc.Response); ok {
			answers[r.ID.String()]++
		}
	}
	t.Logf("requests %v, answers %v", requests, answers)
	for _, id := range kept {
		if answers[id] != requests[id] {
			t.Errorf("id %s: %d answers for %d requests, never cancelled", id, answers[id], requests[id])
		}
	}
	for _, id := range cIDs {
		if answers[id] > requests[id] {
			t.Errorf("id %s: %d answers for %d requests", id, answers[id], requests[id])
		}
	}
	for _, id := range append(kept, cIDs...) {
		if n := h.sim.CallsFor(id); n > requests[id] {
			t.Errorf("id %s ran %d times at the base for %d requests", id, n, requests[id])
		}
	}
	checkNoLeaks(t, before)
}
