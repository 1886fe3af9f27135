package checks

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
	"github.com/mcp-bridge/mcp-bridge/verify/internal/testbin"
	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// foreignBase is a CAD base that is not the simulated one: one frame per
// connection, answered by handle (nil: no answer for a notification).
type foreignBase struct {
	ln     net.Listener
	handle func(method string, id json.RawMessage, params map[string]json.RawMessage) []byte
	mu     sync.Mutex
	called []string // tools/call names, in order
	wg     sync.WaitGroup
}

func startForeign(t *testing.T, handle func(method string, id json.RawMessage, params map[string]json.RawMessage) []byte) *foreignBase {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &foreignBase{ln: ln, handle: handle}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.wg.Add(1)
			go func() { defer b.wg.Done(); b.serve(c) }()
		}
	}()
	t.Cleanup(func() { ln.Close(); b.wg.Wait() })
	return b
}

func (b *foreignBase) serve(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return
	}
	var req struct {
		Method string                     `json:"method"`
		ID     json.RawMessage            `json:"id"`
		Params map[string]json.RawMessage `json:"params"`
	}
	if json.Unmarshal(line, &req) != nil {
		return
	}
	if req.Method == "tools/call" {
		var name string
		_ = json.Unmarshal(req.Params["name"], &name)
		b.mu.Lock()
		b.called = append(b.called, name)
		b.mu.Unlock()
	}
	if req.ID == nil {
		return
	}
	if ans := b.handle(req.Method, req.ID, req.Params); ans != nil {
		_, _ = c.Write(ans)
	}
}

func (b *foreignBase) addr() string { return b.ln.Addr().String() }

func (b *foreignBase) calls() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.called...)
}

// pythonDumps rewrites compact JSON the way Python's json.dumps writes it
// by default: ", " and ": " between tokens, every character past ASCII as
// a \u escape (ensure_ascii).
func pythonDumps(compact []byte) []byte {
	var out []byte
	inString, escaped := false, false
	for _, r := range string(compact) {
		switch {
		case inString && escaped:
			escaped = false
		case inString && r == '\\':
			escaped = true
		case r == '"':
			inString = !inString
		}
		switch {
		case inString && r > 0x7f:
			for _, u := range utf16.Encode([]rune{r}) {
				out = fmt.Appendf(out, `\u%04x`, u)
			}
		case !inString && (r == ',' || r == ':'):
			out = append(out, byte(r), ' ')
		default:
			out = append(out, string(r)...)
		}
	}
	return out
}

// spacedBase is the simulated base behind a Python-style writer: the same
// tools and answers, written as json.dumps writes them.
func spacedBase(t *testing.T) *foreignBase {
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	c := &tcpbase.Client{Addr: sim.Addr(), ConnectTimeout: 3 * time.Second}
	return startForeign(t, func(method string, id json.RawMessage, params map[string]json.RawMessage) []byte {
		req := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
		if params != nil {
			req["params"] = params
		}
		frame, _ := json.Marshal(req)
		ans, err := c.Call(context.Background(), frame)
		if err != nil {
			return nil
		}
		return pythonDumps(ans)
	})
}

// partsBase offers tools none of which the simulated base has, annotated
// the way MCP servers annotate them; the first that needs no arguments is
// destructive, the second writes a file. Its members come in another
// order than the bridge writes them.
func partsBase(t *testing.T) *foreignBase {
	const list = `{"tools":[` +
		`{"name":"reset_document","description":"Discard everything.","inputSchema":{"type":"object","properties":{}},"annotations":{"destructiveHint":true}},` +
		`{"name":"export_step","description":"Write the part to a STEP file.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}},` +
		`{"name":"create_box","description":"Add a box.","inputSchema":{"type":"object","properties":{"size":{"type":"number"}},"required":["size"]}},` +
		`{"name":"part_summary","description":"Bodies and volume.","inputSchema":{"type":"object","properties":{}},"annotations":{"readOnlyHint":true,"title":"Summary"}}]}`
	return startForeign(t, func(method string, id json.RawMessage, params map[string]json.RawMessage) []byte {
		var name string
		_ = json.Unmarshal(params["name"], &name)
		switch {
		case method == "tools/list":
			return fmt.Appendf(nil, `{"result":%s,"id":%s,"jsonrpc":"2.0"}`, list, id)
		case method != "tools/call":
			return fmt.Appendf(nil, `{"error":{"message":"Method not found","code":-32601},"id":%s,"jsonrpc":"2.0"}`, id)
		case name == "part_summary":
			return fmt.Appendf(nil, `{"id":%s,"result":{"isError":false,"content":[{"text":"1 body, volume 1.50e+03 mm³","type":"text"}]},"jsonrpc":"2.0"}`, id)
		case name == "create_box" || name == "reset_document" || name == "export_step":
			return fmt.Appendf(nil, `{"id":%s,"result":{"isError":false,"content":[{"text":"done","type":"text"}]},"jsonrpc":"2.0"}`, id)
		}
		return fmt.Appendf(nil, `{"id":%s,"error":{"data":{"tool":%q},"code":-32602,"message":"Unknown tool: %s"},"jsonrpc":"2.0"}`, id, name, name)
	})
}

// isErrorBase answers every failed tools/call, an unknown tool included,
// with an isError result, never a JSON-RPC error; it ends its answers with
// CRLF.
func isErrorBase(t *testing.T) *foreignBase {
	return startForeign(t, func(method string, id json.RawMessage, params map[string]json.RawMessage) []byte {
		var name string
		_ = json.Unmarshal(params["name"], &name)
		switch {
		case method == "tools/list":
			return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[`+
				`{"name":"extrude","inputSchema":{"type":"object","properties":{"depth":{"type":"number"}},"required":["depth"]}},`+
				`{"name":"status","inputSchema":{"type":"object"}}]}}`+"\r\n", id)
		case method != "tools/call":
			return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"unsupported method %s"}],"isError":true}}`+"\r\n", id, method)
		case name == "status":
			return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"idle, 0 features"}],"isError":false}}`+"\r\n", id)
		}
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"no tool named %s"}],"isError":true}}`+"\r\n", id, name)
	})
}

var foreignBases = []struct {
	name  string
	start func(*testing.T) *foreignBase
	tool  string // the tool verify must choose
}{
	{"spaced JSON (Python json.dumps)", spacedBase, "get_drawing_info"},
	{"other tools, annotated", partsBase, "part_summary"},
	{"errors only as isError results", isErrorBase, "status"},
}

// The checks that compare the bridge with the base: each must pass against
// every base, and say which tool it called.
var comparing = []string{
	"tools/list identical to a direct base call",
	"tools/call round trip equals a direct call",
	"unknown tool: the base's answer passed through",
	"modern: tools/call fields",
}

// TestVerifyAgainstForeignBases runs every check against bases that are
// not the simulated one: no verdict may be FAIL (the bridge is correct),
// the tool called is the one each base offers for reading, and nothing else
// is called.
func TestVerifyAgainstForeignBases(t *testing.T) {
	for _, fb := range foreignBases {
		t.Run(fb.name, func(t *testing.T) {
			base := fb.start(t)
			rep, err := Run(context.Background(), Options{Bridge: bridgeBin, Base: base.addr()}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := results(rep)
			for _, r := range rep.Results {
				if r.Status == Fail {
					t.Errorf("%s: FAIL %s", r.Name, r.Detail)
				}
			}
			for _, name := range comparing {
				if got[name].Status != Pass {
					t.Errorf("%s: %s %s, want pass", name, got[name].Status, got[name].Detail)
				}
			}
			for _, name := range []string{"tools/call round trip equals a direct call", "modern: tools/call fields"} {
				if !strings.Contains(got[name].Detail, "called "+fb.tool+" ") {
					t.Errorf("%s: detail %q does not name %s", name, got[name].Detail, fb.tool)
				}
			}
			for _, c := range base.calls() {
				if c != fb.tool && c != "verify_no_such_tool" {
					t.Errorf("verify called %s on the user's base", c)
				}
			}
			if !rep.OK() {
				t.Errorf("hint: %s", rep.Hint)
			}
		})
	}
}

// TestVerifyCatchesTamperingAgainstForeignBases: the same bases behind a
// bridge that changes what it passes on (testdata/tamperbridge: the real
// bridge with a base that re-encodes answers, or rewrites error answers
// and isError) must fail the comparing checks.
func TestVerifyCatchesTamperingAgainstForeignBases(t *testing.T) {
	tamper, err := testbin.Build(testdir.New(t), "tamperbridge", "./testdata/tamperbridge")
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []struct {
		env   string
		fails map[string]string // base → the check that must fail
	}{
		{"reencode", map[string]string{
			"spaced JSON (Python json.dumps)": "tools/call round trip equals a direct call",
			"other tools, annotated":          "tools/call round trip equals a direct call",
			"errors only as isError results":  "tools/call round trip equals a direct call",
		}},
		{"errors", map[string]string{
			"spaced JSON (Python json.dumps)": "unknown tool: the base's answer passed through",
			"other tools, annotated":          "unknown tool: the base's answer passed through",
			"errors only as isError results":  "unknown tool: the base's answer passed through",
		}},
	} {
		for _, fb := range foreignBases {
			t.Run(mode.env+"/"+fb.name, func(t *testing.T) {
				t.Setenv("MCP_BRIDGE_TAMPER", mode.env)
				base := fb.start(t)
				check := mode.fails[fb.name]
				rep, err := Run(context.Background(), Options{Bridge: tamper, Base: base.addr(), Only: check}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if r := results(rep)[check]; r.Status != Fail {
					t.Errorf("%s: %s %s, want FAIL", check, r.Status, r.Detail)
				}
				if rep.OK() || !strings.Contains(rep.Hint, "the bridge misbehaved") {
					t.Errorf("OK %v, hint %q", rep.OK(), rep.Hint)
				}
			})
		}
	}
}

// TestVerifySkipsWithoutAReadingTool: a base whose only no-argument tools
// may write gets no call at all; the checks that need one are skipped,
// saying how to name one, and --tool (Options.Tool) is used as given.
func TestVerifySkipsWithoutAReadingTool(t *testing.T) {
	base := startForeign(t, func(method string, id json.RawMessage, params map[string]json.RawMessage) []byte {
		if method == "tools/list" {
			return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"regenerate","inputSchema":{"type":"object"}},{"name":"probe_hole","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}]}}`, id)
		}
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"ok"}],"isError":false}}`, id)
	})
	const rt = "tools/call round trip equals a direct call"
	rep, err := Run(context.Background(), Options{Bridge: bridgeBin, Base: base.addr(), Only: "tools/call"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := results(rep)[rt]; r.Status != Skip || !strings.Contains(r.Detail, "--tool NAME --args JSON") {
		t.Errorf("%s: %s %q, want a skip naming --tool", rt, r.Status, r.Detail)
	}
	for _, c := range base.calls() {
		if c != "verify_no_such_tool" {
			t.Errorf("verify called %s though nothing says it only reads", c)
		}
	}
	rep, err = Run(context.Background(), Options{Bridge: bridgeBin, Base: base.addr(), Only: rt, Tool: "probe_hole", Args: `{"id": "h1"}`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := results(rep)[rt]; r.Status != Pass || !strings.Contains(r.Detail, `called probe_hole {"id":"h1"} (--tool)`) {
		t.Errorf("with --tool: %s %q", r.Status, r.Detail)
	}
}
