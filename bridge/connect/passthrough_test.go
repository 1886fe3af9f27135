package connect

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

const modernMeta = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}`

// TestProgressAndCancel: progress from the remote reaches the client, and
// the client's cancellation reaches the remote (the base's connection
// for the call is closed, nothing is answered for it), in both eras.
func TestProgressAndCancel(t *testing.T) {
	r := newRemoteWith(t, func(c *bridge.Config) { c.ProgressInterval = 5 * time.Millisecond })
	c := startConnect(t, r.config(t))
	c.handshake("2025-06-18")
	for _, era := range []struct{ name, callMeta, cancelMeta string }{
		{"legacy", "", ""},
		{"modern", "," + modernMeta, `,"_meta":{` + modernMeta + `}`},
	} {
		t.Run(era.name, func(t *testing.T) {
			c.send(`{"jsonrpc":"2.0","id":"h","method":"tools/call","params":{"name":"fault_hang","arguments":{},"_meta":{"progressToken":"tok"` + era.callMeta + `}}}`)
			for {
				l := c.recv()
				if strings.Contains(l, `"notifications/progress"`) && strings.Contains(l, `"tok"`) {
					break
				}
				if strings.Contains(l, `"id":"h"`) {
					t.Fatalf("answered before any progress: %s", l)
				}
			}
			waitFor(t, "the call to hold a base connection", func() bool { return r.sim.OpenConns() == 1 })
			c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"h"` + era.cancelMeta + `}}`)
			waitFor(t, "the cancellation to close the call's base connection", func() bool { return r.sim.OpenConns() == 0 })
			c.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
			for {
				l := c.recv()
				if strings.Contains(l, `"id":"h"`) {
					t.Fatalf("an answer for the cancelled request: %s", l)
				}
				if strings.Contains(l, `"id":"after"`) {
					break
				}
			}
		})
	}
}

// TestConfirmation: a call the remote's policy wants confirmed asks the
// client through connect: the legacy question (elicitation/create) and
// its answer travel both ways; the modern input_required result comes
// back and the re-sent call with the answer runs.
func TestConfirmation(t *testing.T) {
	p, err := policy.Build("p.json", []byte(`{"confirm":["delete_entities"]}`), policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := newRemoteWith(t, func(c *bridge.Config) { c.Policy = p })
	c := startConnect(t, r.config(t))
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	c.answer("0")
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	c.send(call("1", "delete_entities", `{"handles":["9"]}`))
	var q map[string]any
	if err := json.Unmarshal([]byte(c.recv()), &q); err != nil || q["method"] != "elicitation/create" {
		t.Fatalf("want the question first, got %v", q)
	}
	qid, _ := json.Marshal(q["id"])
	c.send(`{"jsonrpc":"2.0","id":` + string(qid) + `,"result":{"action":"accept","content":{"confirm":true}}}`)
	if m := c.answer("1"); !strings.Contains(toJSON(m), "no entity with handle") {
		t.Errorf("after the user agreed, want CAD's answer, got %v", m)
	}

	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_entities","arguments":{"handles":["9"]},"_meta":{` + modernMeta + `}}}`)
	m := c.answer("2")
	res, _ := m["result"].(map[string]any)
	state, _ := res["requestState"].(string)
	if res["resultType"] != "input_required" || state == "" {
		t.Fatalf("want input_required, got %v", m)
	}
	before := r.sim.Calls()
	stateJSON, _ := json.Marshal(state)
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"delete_entities","arguments":{"handles":["9"]},"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}},"requestState":` + string(stateJSON) + `,"_meta":{` + modernMeta + `}}}`)
	if m := c.answer("3"); !strings.Contains(toJSON(m), "no entity with handle") {
		t.Errorf("the confirmed modern call: %v", m)
	}
	if n := r.sim.Calls() - before; n != 1 {
		t.Errorf("the confirmed call ran %d times", n)
	}
}

func toJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestGETStream: what the remote sends on the session's GET stream
// reaches the client: the base goes away and comes back, and the remote
// (never unreachable itself) announces the tool list on that stream.
func TestGETStream(t *testing.T) {
	r := newRemoteWith(t, func(c *bridge.Config) { c.ProbeInterval = 5 * time.Millisecond })
	c := startConnect(t, r.config(t))
	c.handshake("2025-06-18")
	c.send(call("1", "measure_distance", measure))
	checkMeasured(t, c.answer("1"))
	waitFor(t, "the session's GET stream", func() bool {
		for _, q := range r.requests() {
			if q.Method == "GET" {
				return true
			}
		}
		return false
	})
	addr := r.sim.Addr()
	r.sim.Close()
	c.send(call("2", "measure_distance", measure))
	if msg, _ := errorOf(c.answer("2")); !strings.Contains(msg, "CAD base") {
		t.Fatalf("with the base down: %q", msg)
	}
	sim, err := simbase.Start(addr, simbase.Options{Faults: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	for {
		if l := c.recv(); strings.Contains(l, `"notifications/tools/list_changed"`) {
			break
		}
	}
}

// TestEOFWithListen: a modern client's listen stream does not hold
// connect open after stdin ends (the TypeScript SDK 2.x probes in a
// process it then closes).
func TestEOFWithListen(t *testing.T) {
	r := newRemote(t)
	cfg := r.config(t)
	cfg.ExitGrace = time.Hour
	c := startConnect(t, cfg)
	c.send(`{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{` + modernMeta + `}}}`)
	if l := c.recv(); !strings.Contains(l, "notifications/subscriptions/acknowledged") {
		t.Fatalf("want the acknowledgement, got %s", l)
	}
	if err := c.wait(); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// TestCancelBeforeSent: a request the client cancelled before it got a
// connection is owed nothing, and its failed attempt does not make the
// remote look unreachable (which would answer ping here).
func TestCancelBeforeSent(t *testing.T) {
	var out strings.Builder
	r := newRelay(Config{URL: "https://127.0.0.1:1/mcp", Log: zerolog.Nop()}, &out)
	p, _ := r.track(rpc.ID{}, true)
	p.cancelled.Store(true)
	p.cancel()
	r.failed(&outgoing{method: "tools/call", modern: true, pending: []*pending{p}, ids: []rpc.ID{p.id}}, attempt{err: context.Canceled})
	if r.down.Load() || out.Len() != 0 {
		t.Errorf("down %v, wrote %q", r.down.Load(), out.String())
	}
	r.shutdown()
}
