package connect

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// mirrorMeta is a 2026-07-28 request's _meta.
const mirrorMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`

func modernList(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":{` + mirrorMeta + `}}`
}

func modernCallOf(id, tool, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `,` + mirrorMeta + `}}`
}

// swappedList is a base whose tools/list answer the test may replace, in
// front of the simulated base.
type swappedList struct {
	next interface {
		Call(context.Context, []byte) ([]byte, error)
	}
	mu   sync.Mutex
	list []byte
}

func (s *swappedList) Call(ctx context.Context, frame []byte) ([]byte, error) {
	s.mu.Lock()
	list := s.list
	s.mu.Unlock()
	if req, ok := rpc.DecodeMessage(bytes.TrimSpace(frame)).Msg.(*rpc.Request); ok && req.Method == "tools/list" && list != nil {
		return rpc.AppendResult(nil, req.ID, list), nil
	}
	return s.next.Call(ctx, frame)
}

// conformanceRemote is a remote bridge in front of the simulated base with
// its conformance tools (test_x_mcp_header: region string Region, count
// integer Count, flag boolean Flag, target.layer string Layer).
func conformanceRemote(t *testing.T) (*remote, *simbase.Server, *swappedList) {
	t.Helper()
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Conformance: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	sw := &swappedList{next: &tcpbase.Client{Addr: sim.Addr(), ConnectTimeout: time.Second}}
	r := newRemoteWith(t, func(c *bridge.Config) { c.Base, c.BaseAddr = sw, sim.Addr() })
	return r, sim, sw
}

// sentHeaders are the Mcp-Param-* headers of the POST whose JSON-RPC id
// is id, as the remote read them (nil: no such POST; empty: none sent),
// and how many POSTs carried that id.
func (r *remote) sentHeaders(id string) (http.Header, int) {
	r.mu.Lock()
	conns := append([]*recConn(nil), r.conns...)
	r.mu.Unlock()
	var got http.Header
	n := 0
	for _, c := range conns {
		br := bufio.NewReader(bytes.NewReader(c.bytes()))
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				break
			}
			body, _ := io.ReadAll(req.Body)
			var m struct{ ID json.RawMessage }
			if json.Unmarshal(body, &m) != nil || string(m.ID) != id {
				continue
			}
			n++
			got = http.Header{}
			for k, v := range req.Header {
				if strings.HasPrefix(k, "Mcp-Param-") {
					got[k] = v
				}
			}
		}
	}
	return got, n
}

// TestConnectParamHeaders: connect mirrors a call's arguments into the
// Mcp-Param-* headers the remote's tool list declares, each value at the
// edge of the encoding rules written as the rules say (one character more
// and it must be Base64; Base64 whose padding is one or two "="; anything
// that starts with "=?", which a gateway may decode by that prefix alone,
// in Base64, "=" alone and "=?" further in as they are), and the
// remote bridge, which checks strictly, runs each call with the
// arguments as sent. A tool that declares none gets no header.
func TestConnectParamHeaders(t *testing.T) {
	r, sim, _ := conformanceRemote(t)
	c := startConnect(t, r.config(t))
	c.send(modernList("1"))
	if res := c.answer("1"); res["result"] == nil {
		t.Fatalf("tools/list: %v", res)
	}
	cases := []struct {
		id, tool, args string
		want           map[string]string // the headers sent; "" values are sent empty
		base           string            // the base's answer holds this
	}{
		{"10", "test_x_mcp_header", `{"region":"us-west1"}`, map[string]string{"Mcp-Param-Region": "us-west1"}, `region=\"us-west1\"`},
		{"11", "test_x_mcp_header", `{"region":"~"}`, map[string]string{"Mcp-Param-Region": "~"}, `region=\"~\"`},
		{"12", "test_x_mcp_header", `{"region":"\u007f"}`, map[string]string{"Mcp-Param-Region": "=?base64?fw==?="}, "region=\\\"\x7f\\\""},
		{"13", "test_x_mcp_header", `{"region":"us west"}`, map[string]string{"Mcp-Param-Region": "us west"}, `region=\"us west\"`},
		{"14", "test_x_mcp_header", `{"region":" a"}`, map[string]string{"Mcp-Param-Region": "=?base64?IGE=?="}, `region=\" a\"`},
		{"15", "test_x_mcp_header", `{"region":"a "}`, map[string]string{"Mcp-Param-Region": "=?base64?YSA=?="}, `region=\"a \"`},
		{"16", "test_x_mcp_header", `{"region":" "}`, map[string]string{"Mcp-Param-Region": "=?base64?IA==?="}, `region=\" \"`},
		{"17", "test_x_mcp_header", `{"region":"a\tb"}`, map[string]string{"Mcp-Param-Region": "=?base64?YQli?="}, `region=\"a\\tb\"`},
		{"18", "test_x_mcp_header", `{"region":"日本語"}`, map[string]string{"Mcp-Param-Region": "=?base64?5pel5pys6Kqe?="}, `region=\"日本語\"`},
		{"19", "test_x_mcp_header", `{"region":"=?base64?x?="}`, map[string]string{"Mcp-Param-Region": "=?base64?PT9iYXNlNjQ/eD89?="}, `region=\"=?base64?x?=\"`},
		{"20", "test_x_mcp_header", `{"region":"=?base64?x?"}`, map[string]string{"Mcp-Param-Region": "=?base64?PT9iYXNlNjQ/eD8=?="}, `region=\"=?base64?x?\"`},
		{"25", "test_x_mcp_header", `{"region":"=?base64?ZXU="}`, map[string]string{"Mcp-Param-Region": "=?base64?PT9iYXNlNjQ/WlhVPQ==?="}, `region=\"=?base64?ZXU=\"`},
		{"26", "test_x_mcp_header", `{"region":"=?"}`, map[string]string{"Mcp-Param-Region": "=?base64?PT8=?="}, `region=\"=?\"`},
		{"27", "test_x_mcp_header", `{"region":"="}`, map[string]string{"Mcp-Param-Region": "="}, `region=\"=\"`},
		{"28", "test_x_mcp_header", `{"region":"a=?b"}`, map[string]string{"Mcp-Param-Region": "a=?b"}, `region=\"a=?b\"`},
		{"21", "test_x_mcp_header", `{"region":""}`, map[string]string{"Mcp-Param-Region": ""}, `region=\"\"`},
		{"22", "test_x_mcp_header", `{"region":"r","count":4.2e1,"flag":false,"target":{"layer":"L"}}`,
			map[string]string{"Mcp-Param-Region": "r", "Mcp-Param-Count": "42", "Mcp-Param-Flag": "false", "Mcp-Param-Layer": "L"}, `count=42`},
		{"23", "test_x_mcp_header", `{"region":"r","query":"not mirrored"}`, map[string]string{"Mcp-Param-Region": "r"}, `query=\"not mirrored\"`},
		{"24", "get_drawing_info", `{}`, map[string]string{}, `Drawing1`},
	}
	for _, tc := range cases {
		c.send(modernCallOf(tc.id, tc.tool, tc.args))
		res := c.answer(tc.id)
		if msg, _ := errorOf(res); msg != "" {
			t.Errorf("%s %s: refused: %s", tc.id, tc.args, msg)
			continue
		}
		if b, _ := json.Marshal(res["result"]); !strings.Contains(string(b), tc.base) {
			t.Errorf("%s %s: the base answered %s, want %s", tc.id, tc.args, b, tc.base)
		}
		got, n := r.sentHeaders(tc.id)
		if n != 1 {
			t.Errorf("%s: the call reached the remote %d times", tc.id, n)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s %s: headers %v, want %v", tc.id, tc.args, got, tc.want)
		}
		for k, v := range tc.want {
			if vs := got[k]; len(vs) != 1 || vs[0] != v {
				t.Errorf("%s %s: %s = %q, want %q", tc.id, tc.args, k, vs, v)
			}
		}
	}
	if n := sim.Calls(); n != int64(len(cases)) {
		t.Errorf("the base ran %d calls, want %d", n, len(cases))
	}
}

// TestConnectParamHeadersUnlisted: a client that calls before it lists
// tools gets its call sent without headers (connect has no schema yet);
// the remote refuses it, running nothing, as a missing header with the
// value in the body; connect then reads the tool list and sends the call
// once more, with the header. The base runs it once.
func TestConnectParamHeadersUnlisted(t *testing.T) {
	r, sim, _ := conformanceRemote(t)
	c := startConnect(t, r.config(t))
	c.send(modernCallOf("5", "test_x_mcp_header", `{"region":"us-west1"}`))
	res := c.answer("5")
	if msg, _ := errorOf(res); msg != "" {
		t.Fatalf("refused: %s", msg)
	}
	got, n := r.sentHeaders("5")
	if n != 2 || got.Get("Mcp-Param-Region") != "us-west1" {
		t.Errorf("the call went %d times, the last with %v", n, got)
	}
	if _, lists := r.sentHeaders(`"mcp-bridge-connect-relist"`); lists != 1 {
		t.Errorf("connect read the list %d times", lists)
	}
	if sim.Calls() != 1 {
		t.Errorf("the base ran %d calls", sim.Calls())
	}
	// A HeaderMismatch that a fresh list does not cure is the client's
	// answer: sent once more at most, never in a loop.
	c.send(modernCallOf("6", "test_x_mcp_header", `{"region":{"an":"object"}}`))
	if msg, _ := errorOf(c.answer("6")); !strings.Contains(msg, "Header mismatch") {
		t.Errorf("an argument no header can carry: %q", msg)
	}
	if _, n := r.sentHeaders("6"); n != 1 {
		t.Errorf("a call the list cannot cure went %d times", n)
	}
	if sim.Calls() != 1 {
		t.Errorf("the base ran %d calls", sim.Calls())
	}
}

// TestConnectParamHeadersRelistPages: when the remote refuses a call's
// headers, connect reads the remote's whole tool list again, every page of
// it: the declaring tool on the last page is found, and the call sent once
// more with its header, run once. Pages that loop are no list: the refusal
// is the client's answer, the call sent once, the pages read at most
// lifecycle.MaxListPages times.
func TestConnectParamHeadersRelistPages(t *testing.T) {
	for _, loop := range []bool{false, true} {
		t.Run(fmt.Sprintf("loop=%v", loop), func(t *testing.T) {
			sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Conformance: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sim.Close() })
			next := &tcpbase.Client{Addr: sim.Addr(), ConnectTimeout: time.Second}
			own := &bridgetest.Paged{Next: next, Later: `"x-mcp-header"`}                 // the remote bridge's own reads
			relayed := &bridgetest.Paged{Next: next, Later: `"x-mcp-header"`, Loop: loop} // what connect reads through it
			base := bridgeBase(func(ctx context.Context, frame []byte) ([]byte, error) {
				if bytes.Contains(frame, []byte(`"mcp-bridge-probe"`)) {
					return own.Call(ctx, frame)
				}
				return relayed.Call(ctx, frame)
			})
			r := newRemoteWith(t, func(c *bridge.Config) { c.Base, c.BaseAddr = base, sim.Addr() })
			c := startConnect(t, r.config(t))
			c.send(modernCallOf("5", "test_x_mcp_header", `{"region":"us-west1"}`))
			res := c.answer("5")
			msg, _ := errorOf(res)
			_, pages := r.sentHeaders(`"mcp-bridge-connect-relist"`)
			got, n := r.sentHeaders("5")
			switch {
			case !loop && (msg != "" || n != 2 || got.Get("Mcp-Param-Region") != "us-west1" || sim.Calls() != 1 || pages < 3):
				t.Fatalf("refused %q; the call went %d times, the last with %v; the base ran %d; %d pages read", msg, n, got, sim.Calls(), pages)
			case loop && (!strings.Contains(msg, "Header mismatch") || n != 1 || sim.Calls() != 0 || pages > lifecycle.MaxListPages):
				t.Fatalf("answer %q; the call went %d times; the base ran %d; %d pages read", msg, n, sim.Calls(), pages)
			}
		})
	}
}

// bridgeBase is a base made of a function.
type bridgeBase func(ctx context.Context, frame []byte) ([]byte, error)

func (f bridgeBase) Call(ctx context.Context, frame []byte) ([]byte, error) { return f(ctx, frame) }

// TestConnectDropsInvalidTools: a 2026-07-28 tool list relayed to the
// client leaves out the tools whose x-mcp-header declarations break the
// rules, as a client of the transport must; the handshake era's list is
// relayed as it is. A call of such a tool is refused by the remote.
func TestConnectDropsInvalidTools(t *testing.T) {
	r, sim, sw := conformanceRemote(t)
	sw.mu.Lock()
	sw.list = []byte(`{"tools":[{"name":"get_drawing_info","inputSchema":{"type":"object"}},` +
		`{"name":"test_x_mcp_header","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"other":{"type":"string","x-mcp-header":"REGION"}}}}]}`)
	sw.mu.Unlock()
	c := startConnect(t, r.config(t))
	c.send(modernList("1"))
	b, _ := json.Marshal(c.answer("1")["result"])
	if !strings.Contains(string(b), "get_drawing_info") || strings.Contains(string(b), "test_x_mcp_header") {
		t.Errorf("modern list: %s", b)
	}
	c.handshake("2025-11-25")
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if b, _ := json.Marshal(c.answer("2")["result"]); !strings.Contains(string(b), "test_x_mcp_header") {
		t.Errorf("legacy list: %s", b)
	}
	c.send(modernCallOf("3", "test_x_mcp_header", `{"region":"eu"}`))
	if msg, _ := errorOf(c.answer("3")); !strings.Contains(msg, "declarations are invalid") {
		t.Errorf("a call of the invalid tool: %q", msg)
	}
	if sim.Calls() != 0 {
		t.Errorf("the base ran %d calls", sim.Calls())
	}
}
