package streamable

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/bridge/policy"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// Attacks on SEP-2243's header check (issue 42 review): each test shows a
// call whose Mcp-Param-* header says one value while CAD gets another,
// or a cost a client can impose on CAD.

// baseFunc is a base made of a function, in front of the simulated base.
type baseFunc func(ctx context.Context, frame []byte) ([]byte, error)

func (f baseFunc) Call(ctx context.Context, frame []byte) ([]byte, error) { return f(ctx, frame) }

// attackHarness serves the simulated base with its conformance tools
// through wrap (which gets the simulated base to pass frames on to), every
// frame recorded.
func attackHarness(t *testing.T, wrap func(next bridgetest.Base) bridgetest.Base) (*httpHarness, *bridgetest.Recorder) {
	t.Helper()
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Conformance: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	var next bridgetest.Base = &tcpbase.Client{Addr: sim.Addr(), ConnectTimeout: time.Second}
	rec := &bridgetest.Recorder{Next: wrap(next)}
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) { c.Base, c.BaseAddr = rec, sim.Addr() })
	return h, rec
}

func modernList(h *httpHarness, cursor string) answer {
	params := bridgetest.ModernMeta
	if cursor != "" {
		params = fmt.Sprintf(`"cursor":%q,%s`, cursor, params)
	}
	return h.post(modernHeaders("tools/list", ""), `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+params+`}}`)
}

func lists(rec *bridgetest.Recorder) int {
	n := 0
	for _, f := range rec.All() {
		if strings.Contains(f, `"method":"tools/list"`) {
			n++
		}
	}
	return n
}

// TestAttackParamHeadersSecondPage: a base that pages its tool list
// (nextCursor) has the declaring tool on page 2. A 2026-07-28 client reads
// both pages and mirrors region into Mcp-Param-Region; the bridge holds
// page 1 only (a list asked for without a cursor is taken as complete, and
// the worker's re-read asks for page 1 again), finds no such tool, and lets
// the call through unchecked: a gateway routes on "us", CAD runs "eu".
func TestAttackParamHeadersSecondPage(t *testing.T) {
	h, rec := attackHarness(t, func(next bridgetest.Base) bridgetest.Base {
		return baseFunc(func(ctx context.Context, frame []byte) ([]byte, error) {
			req, ok := rpc.DecodeMessage(bytes.TrimSpace(frame)).Msg.(*rpc.Request)
			if !ok || req.Method != "tools/list" {
				return next.Call(ctx, frame)
			}
			full, err := next.Call(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n"))
			if err != nil {
				return nil, err
			}
			var all struct {
				Result struct {
					Tools []json.RawMessage `json:"tools"`
				} `json:"result"`
			}
			if err := json.Unmarshal(full, &all); err != nil {
				return nil, err
			}
			var page1, page2 []json.RawMessage
			for _, tool := range all.Result.Tools {
				if bytes.Contains(tool, []byte(`"x-mcp-header"`)) {
					page2 = append(page2, tool)
				} else {
					page1 = append(page1, tool)
				}
			}
			var res []byte
			if rpc.Field(req.Params, "cursor") == nil {
				res, _ = json.Marshal(map[string]any{"tools": page1, "nextCursor": "p2"})
			} else {
				res, _ = json.Marshal(map[string]any{"tools": page2})
			}
			return rpc.AppendResult(nil, req.ID, res), nil
		})
	})
	// The client lists both pages, as a client must.
	if r := modernList(h, ""); r.status != 200 || !strings.Contains(r.body, `"nextCursor":"p2"`) {
		t.Fatalf("page 1: %d %s", r.status, r.body)
	}
	if r := modernList(h, "p2"); r.status != 200 || !strings.Contains(r.body, `"x-mcp-header":"Region"`) {
		t.Fatalf("page 2: %d %s", r.status, r.body)
	}
	r := h.postHeaders(mirroredTool, hv("Mcp-Param-Region", "us"), mirroredCall(`{"region":"eu"}`))
	if r.status != 400 || errCode(t, r.body) != -32020 || calls(rec) != 0 {
		t.Fatalf("Mcp-Param-Region: us with \"region\":\"eu\" for a tool on page 2: want 400 with -32020 and no call, got %d (base got %d calls) %s", r.status, calls(rec), r.body)
	}
}

// TestAttackParamHeadersFoldedName: a base that matches tool names without
// case (the policy's unlisted check exists for such bases, listed.go) runs
// test_x_mcp_header for "TEST_X_MCP_HEADER". The bridge finds no tool of
// that exact name in the list, so nothing is checked: the gateway read
// Mcp-Param-Region "us", CAD runs region "eu".
func TestAttackParamHeadersFoldedName(t *testing.T) {
	h, rec := attackHarness(t, func(next bridgetest.Base) bridgetest.Base {
		return baseFunc(func(ctx context.Context, frame []byte) ([]byte, error) {
			return next.Call(ctx, bytes.Replace(frame, []byte(`"TEST_X_MCP_HEADER"`), []byte(`"test_x_mcp_header"`), 1))
		})
	})
	if r := modernList(h, ""); r.status != 200 {
		t.Fatalf("tools/list: %d %s", r.status, r.body)
	}
	const folded = "TEST_X_MCP_HEADER"
	body := strings.Replace(mirroredCall(`{"region":"eu"}`), mirroredTool, folded, 1)
	r := h.postHeaders(folded, hv("Mcp-Param-Region", "us"), body)
	if r.status != 400 || errCode(t, r.body) != -32020 || calls(rec) != 0 {
		t.Fatalf("Mcp-Param-Region: us with \"region\":\"eu\" for a tool name the base folds: want 400 with -32020 and no call, got %d (base got %d calls) %s", r.status, calls(rec), r.body)
	}
}

// TestAttackParamHeadersRereadEveryCall: a header of a name the held list
// does not declare (a gateway's own Mcp-Param-Tenant, which docs/http.md
// says is none of the bridge's business), or a call of a tool the list
// does not have, makes the worker read the whole tool list from CAD before
// every such call, though the list has not changed: each call costs CAD
// two round trips, and any client can impose it.
func TestAttackParamHeadersRereadEveryCall(t *testing.T) {
	for _, c := range []struct{ name, tool, args string }{
		{"foreign header", mirroredTool, `{"region":"eu"}`},
		{"unknown tool", "no_such_tool", `{}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, rec := attackHarness(t, func(next bridgetest.Base) bridgetest.Base { return next })
			if r := modernList(h, ""); r.status != 200 {
				t.Fatalf("tools/list: %d %s", r.status, r.body)
			}
			before := lists(rec)
			const n = 5
			for i := range n {
				body := strings.Replace(mirroredCall(c.args), mirroredTool, c.tool, 1)
				r := h.postHeaders(c.tool, hv("Mcp-Param-Region", "eu", "Mcp-Param-Tenant", "acme"), body)
				if r.status != 200 {
					t.Fatalf("call %d: %d %s", i, r.status, r.body)
				}
			}
			if got := lists(rec) - before; got > 1 {
				t.Fatalf("%d calls (the list unchanged) made the bridge read the tool list from CAD %d times", n, got)
			}
		})
	}
}

// TestAttackParamHeadersLegacyBatch: a 2026-07-28 tools/call inside a
// JSON-RPC batch on a 2025-03-26 session is served by the core (eras are
// per message), but the transport's header rules are applied only on the
// stateless path: Mcp-Param-Region, Mcp-Name, Mcp-Method are not checked
// at all, and CAD gets region "eu" while the request's headers said "us".
// A 2026-07-28 request in a batch with MCP-Protocol-Version: 2026-07-28 is
// refused (ModernBatch); with the session's version it runs.
func TestAttackParamHeadersLegacyBatch(t *testing.T) {
	h, rec := attackHarness(t, func(next bridgetest.Base) bridgetest.Base { return next })
	sid := h.initialize("2025-03-26")
	hs := append(withSession(sid), "MCP-Protocol-Version", "2025-03-26",
		"Mcp-Method", "tools/call", "Mcp-Name", mirroredTool, "Mcp-Param-Region", "us")
	r := h.post(hs, "["+mirroredCall(`{"region":"eu"}`)+"]")
	if calls(rec) != 0 {
		t.Fatalf("a 2026-07-28 tools/call in a legacy batch reached CAD unchecked (Mcp-Param-Region: us, body region eu): %d %s", r.status, r.body)
	}
}

// rawPost sends one POST as bytes, headers as given, and returns the
// status line and body.
func rawPostBytes(t *testing.T, h *httpHarness, headers string, body string) string {
	t.Helper()
	u := strings.TrimPrefix(h.url, "http://")
	host := u[:strings.Index(u, "/")]
	c, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
		"Connection: close\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n" + headers +
		fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)) + body
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	return string(b)
}

// TestAttackParamHeadersUnderscoreTwin: Mcp_Param_Region beside
// Mcp-Param-Region. net/http keys them apart and the bridge checks only the
// hyphenated one; a gateway that maps "_" to "-" (CGI/WSGI-style header
// environments, some proxies with underscores_in_headers on) reads "us"
// (or both) while CAD runs "eu". Same for Mcp_Name. Low: depends on the
// gateway; refusing any header whose name with "_" as "-" is an Mcp-*
// header the bridge checks closes it.
func TestAttackParamHeadersUnderscoreTwin(t *testing.T) {
	h, rec := attackHarness(t, func(next bridgetest.Base) bridgetest.Base { return next })
	out := rawPostBytes(t, h, "Mcp-Name: test_x_mcp_header\r\nMcp_Param_Region: us\r\nMcp-Param-Region: eu\r\n", mirroredCall(`{"region":"eu"}`))
	if !strings.HasPrefix(out, "HTTP/1.1 400") || calls(rec) != 0 {
		t.Fatalf("Mcp_Param_Region: us beside Mcp-Param-Region: eu, body region eu: want 400 and no call, got (base got %d calls)\n%s", calls(rec), out)
	}
}

// simLauncher starts the simulated base at addr when asked: a CAD
// program that is not running until the bridge starts it (--launch).
type simLauncher struct {
	t      *testing.T
	addr   string
	starts int
}

func (l *simLauncher) Ensure(ctx context.Context, progress func(string)) error {
	if c, err := net.Dial("tcp", l.addr); err == nil {
		c.Close()
		return nil
	}
	sim, err := simbase.Start(l.addr, simbase.Options{})
	if err != nil {
		return err
	}
	l.starts++
	l.t.Cleanup(func() { sim.Close() })
	return nil
}

// TestAttackParamHeadersLaunch: with --launch and CAD not running, the
// first 2026-07-28 tools/call over HTTP (here of a tool that declares no
// header, sent with none) should start CAD and run, as the same call does
// from stdio or a handshake-era client. The bridge holds no tool list yet,
// so the worker reads the list first (mirroredLate) after launchIfDown
// passed (the base not yet known down): the base is unreachable, the call
// fails with "Mcp-Param headers are checked ..." and CAD is not started.
func TestAttackParamHeadersLaunch(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	l := &simLauncher{t: t, addr: addr}
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) {
		c.Base, c.BaseAddr = &tcpbase.Client{Addr: addr, ConnectTimeout: time.Second}, addr
		c.Launch = l
		c.Retries = -1
	})
	body := strings.Replace(mirroredCall(`{}`), mirroredTool, "get_drawing_info", 1)
	r := h.postHeaders("get_drawing_info", nil, body)
	if r.status != 200 || errCode(t, r.body) != 0 || l.starts != 1 {
		t.Fatalf("first 2026-07-28 call over HTTP with CAD not running: want CAD started and the call run, got %d (CAD started %d times) %s", r.status, l.starts, r.body)
	}
}

// TestAttackParamHeadersStaleListOmitted: the base starts declaring Region
// on test_x_mcp_header (a plugin loaded) after the bridge last read its
// list. A client that leaves the header out, the value in the body, is
// checked against the held list, which declares nothing for the tool, and
// no foreign header makes the worker read it again: the call runs, though
// the base's tool now says region travels in Mcp-Param-Region ("client
// omits header but value is in body" must be refused). The reverse case
// (a header the held list does not declare) is read again and refused
// (TestHTTPParamHeadersListChanges). Low: needs the base's list to change
// and nobody to have listed since; only a fresh read per call (or per
// short TTL) closes it.
func TestAttackParamHeadersStaleListOmitted(t *testing.T) {
	h, rec, sw := mirrorHarness(t, nil)
	declaring := modernList(h, "").body
	plain := []byte(strings.ReplaceAll(string(rpc.Field([]byte(declaring), "result")), `"x-mcp-header"`, `"x-other"`))
	sw.set(plain)
	if r := modernList(h, ""); strings.Contains(r.body, `"x-mcp-header":`) {
		t.Fatalf("the list did not change: %s", r.body)
	}
	sw.set(nil) // the base declares Region again; nobody lists
	r := h.postHeaders(mirroredTool, nil, mirroredCall(`{"region":"eu"}`))
	if r.status != 400 || errCode(t, r.body) != -32020 || calls(rec) != 0 {
		t.Fatalf("no Mcp-Param-Region, body region eu, the base declaring Region: want 400 with -32020 and no call, got %d (base got %d calls) %s", r.status, calls(rec), r.body)
	}
}

// TestAttackParamHeadersAskedFirst: docs/http.md says the header check
// comes "before anything else (the policy, a question, the journal, the
// queue)". A call whose check is left to the worker (here: a foreign
// Mcp-Param-Tenant beside a lying Mcp-Param-Region) meets the policy's
// confirmation first: the client gets input_required (the user is asked
// to agree to region "eu" while the gateway routed "us"), and the journal
// gets an input_required line, for a call the check refuses once the
// user agreed. Low: nothing reaches CAD; the user is asked for nothing.
func TestAttackParamHeadersAskedFirst(t *testing.T) {
	p := bridgetest.Policy(t, `{"confirm": ["test_x_*"]}`, policy.Options{})
	jpath, jw := bridgetest.NewJournal(t)
	h, rec, _ := mirrorHarness(t, func(c *bridge.Config) { c.Policy, c.Journal = p, jw })
	modernList(h, "")
	body := strings.Replace(mirroredCall(`{"region":"eu"}`), `clientCapabilities":{}`, `clientCapabilities":{"elicitation":{}}`, 1)
	r := h.postHeaders(mirroredTool, hv("Mcp-Param-Region", "us", "Mcp-Param-Tenant", "acme"), body)
	data, _ := os.ReadFile(jpath)
	if r.status != 400 || errCode(t, r.body) != -32020 || strings.Contains(string(data), `"tools/call"`) || calls(rec) != 0 {
		t.Fatalf("Mcp-Param-Region: us, body region eu, confirmation on: want 400 with -32020 before any question and no journal line, got %d %s\njournal:\n%s", r.status, r.body, data)
	}
}
