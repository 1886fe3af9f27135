package streamable

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
)

// statsIndex reads the base's execution count from a sim_stats answer: the
// position of that call in the order the base ran them.
func statsIndex(t *testing.T, answer string) int {
	t.Helper()
	text, _ := bridgetest.Field(t, answer, "result.content").([]any)
	if len(text) != 1 {
		t.Fatalf("sim_stats answer: %s", answer)
	}
	var s struct{ Calls int }
	if err := json.Unmarshal([]byte(text[0].(map[string]any)["text"].(string)), &s); err != nil {
		t.Fatalf("sim_stats text: %s", answer)
	}
	return s.Calls
}

// TestHTTPTenClientsShareOneWorker: ten clients, mixed eras, 100 calls
// each. One of them sends its 100 calls in one 2025-03-26 batch, the rest
// one at a time. CAD never sees two requests at once, every call runs
// exactly once, each client's calls run in its order, ping and discover
// are answered while calls queue, and round-robin turns keep the batch
// from starving the others.
func TestHTTPTenClientsShareOneWorker(t *testing.T) {
	const perClient = 100
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) { c.Queue = 256 })

	// The batch client goes first, its first call a long one, so that the
	// other 99 are certainly queued when the others start.
	batchSID := h.initialize("2025-03-26")
	parts := []string{bridgetest.Call(`"b-sleep"`, "fault_sleep", `{"ms":1500}`)}
	for k := range perClient - 1 {
		parts = append(parts, bridgetest.Call(fmt.Sprintf(`"b-%d"`, k), "sim_stats", `{}`))
	}
	batchDone := make(chan answer, 1)
	go func() {
		r, err := h.try(context.Background(), withSession(batchSID), "["+strings.Join(parts, ",")+"]")
		if err != nil {
			t.Errorf("batch: %v", err)
		}
		batchDone <- r
	}()
	bridgetest.WaitFor(t, func() bool { return bridgetest.Field(t, h.health(), "queue") == float64(perClient-1) })

	// ping and server/discover while 99 calls wait behind one in flight.
	pingSID := h.initialize("2025-06-18")
	if r := h.post(withSession(pingSID), `{"jsonrpc":"2.0","id":"p","method":"ping"}`); r.body != `{"jsonrpc":"2.0","id":"p","result":{}}` {
		t.Errorf("ping: %s", r.body)
	}
	if r := h.post(modernHeaders("server/discover", ""), `{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{`+bridgetest.ModernMeta+`}}`); bridgetest.Field(t, r.body, "result.resultType") != "complete" {
		t.Errorf("discover: %s", r.body)
	}
	select {
	case <-batchDone:
		t.Fatal("the batch finished before ping and discover were answered")
	default:
	}

	type seqClient struct {
		name    string
		headers func(tool string) hdr
		body    func(id string) string
	}
	var clients []seqClient
	for i := range 4 {
		version := []string{"2025-06-18", "2025-11-25"}[i%2]
		sid := h.initialize(version)
		clients = append(clients, seqClient{
			name:    fmt.Sprintf("legacy%d", i),
			headers: func(string) hdr { return withSession(sid) },
			body:    func(id string) string { return bridgetest.Call(id, "sim_stats", `{}`) },
		})
	}
	for i := range 5 {
		meta := fmt.Sprintf(`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"modern%d","version":"1"}}`, i)
		clients = append(clients, seqClient{
			name:    fmt.Sprintf("modern%d", i),
			headers: func(tool string) hdr { return modernHeaders("tools/call", tool) },
			body: func(id string) string {
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"sim_stats","arguments":{},%s}}`, id, meta)
			},
		})
	}
	nClients := len(clients) + 1

	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := 0
			for k := range perClient {
				id := fmt.Sprintf(`"%s-%d"`, c.name, k)
				r, err := h.try(context.Background(), c.headers("sim_stats"), c.body(id))
				if err != nil || r.status != 200 {
					t.Errorf("%s call %d: %v %d %s", c.name, k, err, r.status, r.body)
					return
				}
				idx := statsIndex(t, r.body)
				if idx <= last {
					t.Errorf("%s: call %d ran at %d, after call %d at %d", c.name, k, idx, k-1, last)
				}
				if k == 0 && idx > perClient/2 {
					// Its first call was queued behind the batch's 98 (the batch's
					// first call sleeps); first-come-first-served would run it
					// after them all. (TestQueueTurns pins the exact bound.)
					t.Errorf("%s: first call ran %dth: starved by the batch", c.name, idx)
				}
				last = idx
			}
		}()
	}
	wg.Wait()
	r := <-batchDone
	// An answer still owed after KeepAlive goes as an SSE stream (its
	// keep-alive comments first): the batch's, on a slow machine (Wine).
	body := r.body
	if strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
		body = ""
		for line := range strings.SplitSeq(r.body, "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				body = data
			}
		}
	}
	var answers []json.RawMessage
	if err := json.Unmarshal([]byte(body), &answers); err != nil || len(answers) != perClient {
		t.Fatalf("batch answer: %d %.300s", r.status, r.body)
	}
	byID := map[string]int{}
	for _, a := range answers {
		id, _ := bridgetest.Field(t, string(a), "id").(string)
		if id != "b-sleep" {
			byID[id] = statsIndex(t, string(a))
		}
	}
	for k := 1; k < perClient-1; k++ {
		if byID[fmt.Sprintf("b-%d", k)] <= byID[fmt.Sprintf("b-%d", k-1)] {
			t.Errorf("batch call %d ran before call %d", k, k-1)
		}
	}

	if m := h.sim.MaxConcurrent(); m != 1 {
		t.Errorf("the base saw %d requests at once", m)
	}
	if n := h.sim.Calls(); n != int64(nClients*perClient) {
		t.Errorf("the base ran %d calls, want %d", n, nClients*perClient)
	}
	for _, c := range clients {
		for k := range perClient {
			if n := h.sim.CallsFor(fmt.Sprintf(`"%s-%d"`, c.name, k)); n != 1 {
				t.Errorf("%s call %d ran %d times", c.name, k, n)
			}
		}
	}
	for k := range perClient - 1 {
		if n := h.sim.CallsFor(fmt.Sprintf(`"b-%d"`, k)); n != 1 {
			t.Errorf("batch call %d ran %d times", k, n)
		}
	}
}
