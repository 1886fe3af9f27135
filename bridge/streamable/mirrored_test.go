package streamable

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// The tool whose arguments a 2026-07-28 client mirrors into headers
// (simbase's conformance set): region (string, Region, required), count
// (integer, Count), flag (boolean, Flag), target.layer (string, Layer).
const mirroredTool = "test_x_mcp_header"

// listSwitch is a base whose tools/list answer the test may replace (a
// CAD program that loads a plugin), in front of the simulated base.
type listSwitch struct {
	next bridgetest.Base
	mu   sync.Mutex
	list []byte // nil: the simulated base's own
}

func (l *listSwitch) Call(ctx context.Context, frame []byte) ([]byte, error) {
	l.mu.Lock()
	list := l.list
	l.mu.Unlock()
	if req, ok := rpc.DecodeMessage(bytes.TrimSpace(frame)).Msg.(*rpc.Request); ok && req.Method == "tools/list" && list != nil {
		return rpc.AppendResult(nil, req.ID, list), nil
	}
	return l.next.Call(ctx, frame)
}

func (l *listSwitch) set(list []byte) {
	l.mu.Lock()
	l.list = list
	l.mu.Unlock()
}

// mirrorHarness serves the simulated base with its conformance tools,
// through a listSwitch, every frame the base gets recorded.
func mirrorHarness(t *testing.T, tweak func(*bridge.Config)) (*httpHarness, *bridgetest.Recorder, *listSwitch) {
	t.Helper()
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Conformance: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	sw := &listSwitch{next: &tcpbase.Client{Addr: sim.Addr(), ConnectTimeout: time.Second}}
	rec := &bridgetest.Recorder{Next: sw}
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) {
		c.Base, c.BaseAddr = rec, sim.Addr()
		if tweak != nil {
			tweak(c)
		}
	})
	return h, rec, sw
}

// calls counts the tools/call frames the base got.
func calls(rec *bridgetest.Recorder) int {
	n := 0
	for _, f := range rec.All() {
		if strings.Contains(f, `"method":"tools/call"`) {
			n++
		}
	}
	return n
}

// postHeaders POSTs body with a modern client's headers for a tools/call of
// tool plus extra, each added (a name given twice is sent twice).
func (h *httpHarness) postHeaders(tool string, extra http.Header, body string) answer {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	hs := modernHeaders("tools/call", tool)
	for i := 0; i+1 < len(hs); i += 2 {
		req.Header.Set(hs[i], hs[i+1])
	}
	for k, vs := range extra {
		for _, v := range vs {
			req.Header[k] = append(req.Header[k], v) // as written: no canonical form forced
		}
	}
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, strings.TrimSpace(string(b))}
}

func mirroredCall(args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":%q,"arguments":%s,%s}}`, mirroredTool, args, bridgetest.ModernMeta)
}

func hv(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h[kv[i]] = append(h[kv[i]], kv[i+1])
	}
	return h
}

// TestHTTPParamHeaders: each rule of SEP-2243's custom headers at its
// edge, as a client of `--listen` sees it: a call whose Mcp-Param-*
// headers say what its arguments say runs, and the base gets those
// arguments; any other gets 400 with -32020 and nothing reaches the base.
// Each case runs on a bridge that holds the tool list (a client listed
// tools first) and on a fresh one (the worker reads the list first).
func TestHTTPParamHeaders(t *testing.T) {
	cases := []struct {
		name    string
		tool    string
		args    string
		headers http.Header
		want    string // the base's answer holds this; "" when refused
	}{
		{"literal", mirroredTool, `{"region":"us-west1"}`, hv("Mcp-Param-Region", "us-west1"), `region=\"us-west1\"`},
		{"Base64", mirroredTool, `{"region":"Hello"}`, hv("Mcp-Param-Region", "=?base64?SGVsbG8=?="), `region=\"Hello\"`},
		{"Base64 of UTF-8", mirroredTool, `{"region":"日本語"}`, hv("Mcp-Param-Region", "=?base64?5pel5pys6Kqe?="), `region=\"日本語\"`},
		{"name in lower case", mirroredTool, `{"region":"eu"}`, hv("mcp-param-region", "eu"), `region=\"eu\"`},
		{"name in upper case", mirroredTool, `{"region":"eu"}`, hv("MCP-PARAM-REGION", "eu"), `region=\"eu\"`},
		{"integer", mirroredTool, `{"region":"eu","count":42}`, hv("Mcp-Param-Region", "eu", "Mcp-Param-Count", "42"), `count=42`},
		{"integer as 42.0", mirroredTool, `{"region":"eu","count":42}`, hv("Mcp-Param-Region", "eu", "Mcp-Param-Count", "42.0"), `count=42`},
		{"boolean", mirroredTool, `{"region":"eu","flag":true}`, hv("Mcp-Param-Region", "eu", "Mcp-Param-Flag", "true"), `flag=true`},
		{"nested", mirroredTool, `{"region":"eu","target":{"layer":"A"}}`, hv("Mcp-Param-Region", "eu", "Mcp-Param-Layer", "A"), `target={\"layer\":\"A\"}`},
		{"null, no header", mirroredTool, `{"region":"eu","count":null}`, hv("Mcp-Param-Region", "eu"), `'count' must be a number`}, // the base's own check
		{"a header the tool does not declare", mirroredTool, `{"region":"eu"}`, hv("Mcp-Param-Region", "eu", "Mcp-Param-Tenant", "=?base64?!!?="), `region=\"eu\"`},
		{"a header for a tool that declares none", "get_drawing_info", `{}`, hv("Mcp-Param-Region", "=?base64?SGVsbG8?="), `Drawing1`},

		{"one character off", mirroredTool, `{"region":"us-west1"}`, hv("Mcp-Param-Region", "us-west2"), ""},
		{"value in another case", mirroredTool, `{"region":"eu"}`, hv("Mcp-Param-Region", "EU"), ""},
		{"padding error", mirroredTool, `{"region":"Hello"}`, hv("Mcp-Param-Region", "=?base64?SGVsbG8?="), ""},
		{"alphabet error", mirroredTool, `{"region":"Hello"}`, hv("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?="), ""},
		{"missing header, value in body", mirroredTool, `{"region":"us-west1"}`, nil, ""},
		{"missing header, empty string in body", mirroredTool, `{"region":""}`, nil, ""},
		{"header without value in body", mirroredTool, `{"region":"eu"}`, hv("Mcp-Param-Region", "eu", "Mcp-Param-Count", "42"), ""},
		{"header with null in body", mirroredTool, `{"region":"eu","count":null}`, hv("Mcp-Param-Region", "eu", "Mcp-Param-Count", "null"), ""},
		{"header twice", mirroredTool, `{"region":"eu"}`, hv("Mcp-Param-Region", "eu", "Mcp-Param-Region", "eu"), ""},
		{"header twice in two cases", mirroredTool, `{"region":"eu"}`, hv("Mcp-Param-Region", "eu", "mcp-param-region", "eu"), ""},
		{"integer one off", mirroredTool, `{"region":"eu","count":42}`, hv("Mcp-Param-Region", "eu", "Mcp-Param-Count", "43"), ""},
		{"integer with a plus", mirroredTool, `{"region":"eu","count":42}`, hv("Mcp-Param-Region", "eu", "Mcp-Param-Count", "+42"), ""},
		{"boolean as True", mirroredTool, `{"region":"eu","flag":true}`, hv("Mcp-Param-Region", "eu", "Mcp-Param-Flag", "True"), ""},
		{"non-ASCII literal", mirroredTool, `{"region":"Région"}`, hv("Mcp-Param-Region", "Région"), ""},
		{"leading space lost", mirroredTool, `{"region":" eu"}`, hv("Mcp-Param-Region", " eu"), ""},
		{"nested one off", mirroredTool, `{"region":"eu","target":{"layer":"A"}}`, hv("Mcp-Param-Region", "eu", "Mcp-Param-Layer", "B"), ""},
	}
	for _, listed := range []bool{true, false} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("listed=%v/%s", listed, c.name), func(t *testing.T) {
				h, rec, _ := mirrorHarness(t, nil)
				if listed {
					if r := h.post(modernHeaders("tools/list", ""), `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+bridgetest.ModernMeta+`}}`); r.status != 200 || !strings.Contains(r.body, `"x-mcp-header":`) {
						t.Fatalf("tools/list: %d %s", r.status, r.body)
					}
				}
				body := mirroredCall(c.args)
				if c.tool != mirroredTool {
					body = strings.Replace(body, mirroredTool, c.tool, 1)
				}
				r := h.postHeaders(c.tool, c.headers, body)
				if c.want == "" {
					if r.status != 400 || errCode(t, r.body) != -32020 || r.header.Get("Content-Type") != "application/json" {
						t.Fatalf("want 400 with -32020, got %d %s", r.status, r.body)
					}
					if n := calls(rec); n != 0 {
						t.Fatalf("the base got %d calls", n)
					}
					return
				}
				if r.status != 200 || errCode(t, r.body) != 0 || !strings.Contains(r.body, c.want) {
					t.Fatalf("want 200 with %s, got %d %s", c.want, r.status, r.body)
				}
			})
		}
	}
}

// TestHTTPParamHeadersListChanges: the base's tool list changes under the
// bridge. A call whose client read a schema the bridge does not hold (a
// header the held list does not declare) is checked against the list read
// again: a gateway routing on that header cannot be fooled by the
// bridge's older list. And a call checked against a list that no longer
// holds the declaration is refused until the client lists again, as the
// specification tells it to.
func TestHTTPParamHeadersListChanges(t *testing.T) {
	h, rec, sw := mirrorHarness(t, nil)
	list := func() answer {
		return h.post(modernHeaders("tools/list", ""), `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+bridgetest.ModernMeta+`}}`)
	}
	declaring := list().body
	result, _ := bridgetest.Field(t, declaring, "result").(map[string]any)
	if result == nil {
		t.Fatalf("tools/list: %s", declaring)
	}
	// The base drops its declarations; the bridge lists that.
	plain := []byte(strings.ReplaceAll(string(rpc.Field([]byte(declaring), "result")), `"x-mcp-header"`, `"x-other"`))
	sw.set(plain)
	if r := list(); strings.Contains(r.body, `"x-mcp-header":`) {
		t.Fatalf("the list did not change: %s", r.body)
	}
	// The base declares Region again (a plugin loaded), and a client that
	// knows sends a header that lies about the body.
	sw.set(nil)
	if r := h.postHeaders(mirroredTool, hv("Mcp-Param-Region", "eu"), mirroredCall(`{"region":"us"}`)); r.status != 400 || errCode(t, r.body) != -32020 {
		t.Fatalf("a header the held list does not declare let through: %d %s", r.status, r.body)
	}
	if n := calls(rec); n != 0 {
		t.Fatalf("the base got %d calls", n)
	}
	if r := h.postHeaders(mirroredTool, hv("Mcp-Param-Region", "us"), mirroredCall(`{"region":"us"}`)); r.status != 200 || errCode(t, r.body) != 0 {
		t.Fatalf("the true header: %d %s", r.status, r.body)
	}
	// The base drops them again: a call without the header is refused by
	// the list the bridge holds, then runs once the client listed again.
	sw.set(plain)
	if r := h.postHeaders(mirroredTool, nil, mirroredCall(`{"region":"us"}`)); r.status != 400 || errCode(t, r.body) != -32020 {
		t.Fatalf("checked against the held list: %d %s", r.status, r.body)
	}
	list()
	if r := h.postHeaders(mirroredTool, nil, mirroredCall(`{"region":"us"}`)); r.status != 200 || errCode(t, r.body) != 0 {
		t.Fatalf("after listing again: %d %s", r.status, r.body)
	}
}

// TestHTTPParamHeadersStatus: a refusal is 400 and JSON also for a call
// that asked for progress (its answer planned as an SSE stream); a base
// that cannot be reached to read the list refuses the call unsent, saying
// so.
func TestHTTPParamHeadersStatus(t *testing.T) {
	h, rec, _ := mirrorHarness(t, func(c *bridge.Config) { c.ProgressInterval = 10 * time.Millisecond })
	body := strings.Replace(mirroredCall(`{"region":"us"}`), `"_meta":{`, `"_meta":{"progressToken":"p1",`, 1)
	r := h.postHeaders(mirroredTool, hv("Mcp-Param-Region", "eu"), body)
	if r.status != 400 || errCode(t, r.body) != -32020 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("with a progress token: %d %v %s", r.status, r.header, r.body)
	}
	if n := calls(rec); n != 0 {
		t.Fatalf("the base got %d calls", n)
	}

	down := newHTTPHarness(t, func(c *bridge.Config, _ *Config) {
		c.Base = &tcpbase.Client{Addr: "127.0.0.1:1", ConnectTimeout: time.Second}
		c.Retries = -1
	})
	r = down.postHeaders(mirroredTool, hv("Mcp-Param-Region", "eu"), mirroredCall(`{"region":"us"}`))
	if r.status != 200 || errCode(t, r.body) != -32603 || !strings.Contains(r.body, "Mcp-Param headers are checked") {
		t.Fatalf("base down: %d %s", r.status, r.body)
	}
}

// TestHTTPParamHeadersJournal: the journal records the call as its
// arguments said, which its header said too; a refused call has no line
// (nothing ran).
func TestHTTPParamHeadersJournal(t *testing.T) {
	jpath, jw := newJournal(t)
	h, _, _ := mirrorHarness(t, func(c *bridge.Config) { c.Journal, c.JournalArgs = jw, true })
	if r := h.postHeaders(mirroredTool, hv("Mcp-Param-Region", "eu"), mirroredCall(`{"region":"us"}`)); r.status != 400 {
		t.Fatalf("mismatch: %d %s", r.status, r.body)
	}
	if r := h.postHeaders(mirroredTool, hv("Mcp-Param-Region", "=?base64?dXM=?="), mirroredCall(`{"region":"us"}`)); r.status != 200 {
		t.Fatalf("match: %d %s", r.status, r.body)
	}
	data, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], `"args":{"region":"us"}`) {
		t.Fatalf("journal:\n%s", data)
	}
}

// TestHTTPStandardHeadersOnce: the standard headers are held to the same
// rules: each once (a gateway reading the first of two and one reading the
// last would route one request two ways), Mcp-Name's Base64 form strictly.
func TestHTTPStandardHeadersOnce(t *testing.T) {
	h, rec, _ := mirrorHarness(t, nil)
	body := strings.Replace(mirroredCall(`{}`), mirroredTool, "get_drawing_info", 1)
	for name, extra := range map[string]http.Header{
		"Mcp-Name twice":                 hv("Mcp-Name", "get_drawing_info"),
		"Mcp-Method twice":               hv("Mcp-Method", "tools/call"),
		"MCP-Protocol-Version twice":     hv("Mcp-Protocol-Version", "2026-07-28"),
		"Mcp-Name in Base64 without pad": hv("Mcp-Name", "=?base64?Z2V0X2RyYXdpbmdfaW5mbw?="),
	} {
		t.Run(name, func(t *testing.T) {
			tool := "get_drawing_info"
			if strings.Contains(name, "Base64") {
				tool = ""
			}
			r := h.postHeaders(tool, extra, body)
			if r.status != 400 || errCode(t, r.body) != -32020 {
				t.Fatalf("got %d %s", r.status, r.body)
			}
		})
	}
	if n := calls(rec); n != 0 {
		t.Fatalf("the base got %d calls", n)
	}
}

// baseFunc is a base made of a function.
type baseFunc func(ctx context.Context, frame []byte) ([]byte, error)

func (f baseFunc) Call(ctx context.Context, frame []byte) ([]byte, error) { return f(ctx, frame) }

// wrappedHarness serves the simulated base with its conformance tools
// through wrap (which gets the simulated base to pass frames on to), every
// frame the base gets recorded.
func wrappedHarness(t *testing.T, wrap func(next bridgetest.Base) bridgetest.Base, tweak func(*bridge.Config)) (*httpHarness, *bridgetest.Recorder) {
	t.Helper()
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Conformance: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	var next bridgetest.Base = &tcpbase.Client{Addr: sim.Addr(), ConnectTimeout: time.Second}
	rec := &bridgetest.Recorder{Next: wrap(next)}
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) {
		c.Base, c.BaseAddr = rec, sim.Addr()
		if tweak != nil {
			tweak(c)
		}
	})
	return h, rec
}

// modernList lists tools as a 2026-07-28 client, from cursor ("" for the
// first page).
func modernList(h *httpHarness, cursor string) answer {
	params := bridgetest.ModernMeta
	if cursor != "" {
		params = fmt.Sprintf(`"cursor":%q,%s`, cursor, params)
	}
	return h.post(modernHeaders("tools/list", ""), `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+params+`}}`)
}

// lists counts the tools/list frames the base got.
func lists(rec *bridgetest.Recorder) int {
	n := 0
	for _, f := range rec.All() {
		if strings.Contains(f, `"method":"tools/list"`) {
			n++
		}
	}
	return n
}

// TestHTTPParamHeadersPages: a base that pages its tool list (nextCursor)
// has the declaring tool on its last page. The bridge checks against the
// whole list, read page by page: a lying header is refused and a true one
// runs, whether the client listed every page first or nothing at all (the
// worker reads them all). A list whose pages loop is no list: the call is
// refused unsent, saying so.
func TestHTTPParamHeadersPages(t *testing.T) {
	paged := func(loop bool) func(bridgetest.Base) bridgetest.Base {
		return func(next bridgetest.Base) bridgetest.Base {
			return &bridgetest.Paged{Next: next, Later: `"x-mcp-header"`, Loop: loop}
		}
	}
	for _, listed := range []bool{true, false} {
		t.Run(fmt.Sprintf("listed=%v", listed), func(t *testing.T) {
			h, rec := wrappedHarness(t, paged(false), nil)
			if listed { // every page, as a client must
				pages, cursor := 0, ""
				for ; pages == 0 || cursor != ""; pages++ {
					r := modernList(h, cursor)
					if r.status != 200 || pages > 64 {
						t.Fatalf("page %d: %d %s", pages, r.status, r.body)
					}
					cursor, _ = bridgetest.Field(t, r.body, "result.nextCursor").(string)
					if cursor == "" && !strings.Contains(r.body, `"x-mcp-header":"Region"`) {
						t.Fatalf("the last page has no declaration: %s", r.body)
					}
				}
				if pages < 3 {
					t.Fatalf("%d pages", pages)
				}
			}
			r := h.postHeaders(mirroredTool, hv("Mcp-Param-Region", "us"), mirroredCall(`{"region":"eu"}`))
			if r.status != 400 || errCode(t, r.body) != -32020 || calls(rec) != 0 {
				t.Fatalf("Mcp-Param-Region: us, body region eu, the tool on the last page: want 400 with -32020 and no call, got %d (base got %d calls) %s", r.status, calls(rec), r.body)
			}
			if r := h.postHeaders(mirroredTool, hv("Mcp-Param-Region", "eu"), mirroredCall(`{"region":"eu"}`)); r.status != 200 || !strings.Contains(r.body, `region=\"eu\"`) {
				t.Fatalf("the true header: %d %s", r.status, r.body)
			}
		})
	}
	h, rec := wrappedHarness(t, paged(true), nil)
	r := h.postHeaders(mirroredTool, hv("Mcp-Param-Region", "eu"), mirroredCall(`{"region":"eu"}`))
	if r.status != 200 || errCode(t, r.body) != -32603 || !strings.Contains(r.body, "pages loop") || calls(rec) != 0 {
		t.Fatalf("pages that loop: want -32603 saying so, and no call; got %d (base got %d calls) %s", r.status, calls(rec), r.body)
	}
}

// TestHTTPParamHeadersFoldedNames: a base that matches tool names without
// case runs test_x_mcp_header for a call of TEST_X_MCP_HEADER (the policy's
// unlisted rule exists for such bases). Such a call's headers are checked
// against the declarations of every tool whose name folds to it: a lying
// header is refused, a missing one too, a true one runs; a name one
// character away that does not fold is a tool the list does not have.
func TestHTTPParamHeadersFoldedNames(t *testing.T) {
	h, rec := wrappedHarness(t, func(next bridgetest.Base) bridgetest.Base {
		return baseFunc(func(ctx context.Context, frame []byte) ([]byte, error) {
			if req, ok := rpc.DecodeMessage(bytes.TrimSpace(frame)).Msg.(*rpc.Request); ok && req.Method == "tools/call" {
				if name, _ := rpc.String(rpc.Field(req.Params, "name")); strings.EqualFold(name, mirroredTool) {
					frame = bytes.Replace(frame, []byte(`"`+name+`"`), []byte(`"`+mirroredTool+`"`), 1)
				}
			}
			return next.Call(ctx, frame)
		})
	}, nil)
	if r := modernList(h, ""); r.status != 200 {
		t.Fatalf("tools/list: %d %s", r.status, r.body)
	}
	cases := []struct {
		tool    string
		headers http.Header
		code    float64 // 0: run
	}{
		{"TEST_X_MCP_HEADER", hv("Mcp-Param-Region", "us"), -32020},
		{"TEST_X_MCP_HEADER", nil, -32020},
		{"Test_X_Mcp_Header", hv("Mcp-Param-Region", "eu"), 0},
		{"test_x_mcp_headeR", hv("Mcp-Param-Region", "eu", "Mcp-Param-Count", "1"), -32020}, // no count in the body
		{"test_x_mcp_header_", hv("Mcp-Param-Region", "us"), -32602},                        // not listed: the base's unknown tool
	}
	for _, c := range cases {
		before := calls(rec)
		body := strings.Replace(mirroredCall(`{"region":"eu"}`), mirroredTool, c.tool, 1)
		r := h.postHeaders(c.tool, c.headers, body)
		switch {
		case c.code == -32020 && (r.status != 400 || errCode(t, r.body) != -32020 || calls(rec) != before):
			t.Errorf("%s %v: want 400 with -32020 and no call, got %d (%d calls) %s", c.tool, c.headers, r.status, calls(rec)-before, r.body)
		case c.code == 0 && (r.status != 200 || !strings.Contains(r.body, `region=\"eu\"`)):
			t.Errorf("%s %v: want it run, got %d %s", c.tool, c.headers, r.status, r.body)
		case c.code == -32602 && (r.status != 200 || errCode(t, r.body) != -32602 || calls(rec) != before+1):
			t.Errorf("%s %v: want the base's unknown tool, got %d %s", c.tool, c.headers, r.status, r.body)
		}
	}
}

// TestHTTPParamHeadersReadAgainOnce: a header the list the bridge holds
// does not declare (a gateway's own Mcp-Param-Tenant, which is none of the
// bridge's business), or a call of a tool the list does not have, has the
// list read from CAD again once: the same call again reads nothing, until
// the base next answers tools/list; a call with other undeclared headers
// has it read once more.
func TestHTTPParamHeadersReadAgainOnce(t *testing.T) {
	for _, c := range []struct{ name, tool, args string }{
		{"undeclared header", mirroredTool, `{"region":"eu"}`},
		{"unknown tool", "no_such_tool", `{}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, rec, _ := mirrorHarness(t, nil)
			if r := modernList(h, ""); r.status != 200 {
				t.Fatalf("tools/list: %d %s", r.status, r.body)
			}
			call := func(extra ...string) func() {
				return func() {
					body := strings.Replace(mirroredCall(c.args), mirroredTool, c.tool, 1)
					if r := h.postHeaders(c.tool, hv(append([]string{"Mcp-Param-Region", "eu"}, extra...)...), body); r.status != 200 {
						t.Fatalf("%v: %d %s", extra, r.status, r.body)
					}
				}
			}
			for _, step := range []struct {
				what  string
				do    func()
				reads int
			}{
				{"a call with Mcp-Param-Tenant", call("Mcp-Param-Tenant", "acme"), 1},
				{"the same call", call("Mcp-Param-Tenant", "acme"), 0},
				{"the same call, another value", call("Mcp-Param-Tenant", "other"), 0},
				{"the same call, the name in another case", call("MCP-PARAM-tenant", "acme"), 0},
				{"a call with Mcp-Param-Zone", call("Mcp-Param-Zone", "z"), 1},
				{"a call with both", call("Mcp-Param-Tenant", "acme", "Mcp-Param-Zone", "z"), 1},
				{"the same call", call("Mcp-Param-Tenant", "acme", "Mcp-Param-Zone", "z"), 0},
				{"the client lists tools (its own read)", func() { modernList(h, "") }, 1},
				{"the first call, on the new list", call("Mcp-Param-Tenant", "acme"), 1},
				{"the same call", call("Mcp-Param-Tenant", "acme"), 0},
			} {
				before := lists(rec)
				step.do()
				if got := lists(rec) - before; got != step.reads {
					t.Fatalf("%s: the base's list was read %d times, want %d", step.what, got, step.reads)
				}
			}
		})
	}
}

// simLauncher starts the simulated base at addr when asked: a CAD program
// that is not running until the bridge starts it (--launch).
type simLauncher struct {
	t      *testing.T
	addr   string
	mu     sync.Mutex
	starts int
}

func (l *simLauncher) Ensure(ctx context.Context, progress func(string)) error {
	if c, err := net.Dial("tcp", l.addr); err == nil {
		c.Close()
		return nil
	}
	sim, err := simbase.Start(l.addr, simbase.Options{Conformance: true})
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.starts++
	l.mu.Unlock()
	l.t.Cleanup(func() { sim.Close() })
	return nil
}

func (l *simLauncher) started() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.starts
}

// TestHTTPParamHeadersLaunch: with --launch and CAD not running, the
// first 2026-07-28 call over HTTP, no tool list held yet, starts CAD to
// read the list its headers are checked with, and runs, as the same call
// does in a 2025-11-25 session; a lying header is then refused, CAD
// started and nothing sent.
func TestHTTPParamHeadersLaunch(t *testing.T) {
	cases := []struct {
		name string
		call func(h *httpHarness) answer
		ran  bool
	}{
		{"2026-07-28, a tool that declares none", func(h *httpHarness) answer {
			return h.postHeaders("get_drawing_info", nil, strings.Replace(mirroredCall(`{}`), mirroredTool, "get_drawing_info", 1))
		}, true},
		{"2026-07-28, the true header", func(h *httpHarness) answer {
			return h.postHeaders(mirroredTool, hv("Mcp-Param-Region", "eu"), mirroredCall(`{"region":"eu"}`))
		}, true},
		{"2026-07-28, a lying header", func(h *httpHarness) answer {
			return h.postHeaders(mirroredTool, hv("Mcp-Param-Region", "us"), mirroredCall(`{"region":"eu"}`))
		}, false},
		{"2025-11-25", func(h *httpHarness) answer {
			return h.post(withSession(h.initialize("2025-11-25")), bridgetest.Call("7", "get_drawing_info", `{}`))
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
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
			r := c.call(h)
			switch {
			case l.started() != 1:
				t.Fatalf("CAD started %d times: %d %s", l.started(), r.status, r.body)
			case c.ran && (r.status != 200 || errCode(t, r.body) != 0):
				t.Fatalf("want it run, got %d %s", r.status, r.body)
			case !c.ran && (r.status != 400 || errCode(t, r.body) != -32020):
				t.Fatalf("want 400 with -32020, got %d %s", r.status, r.body)
			}
		})
	}
}

// TestHTTPParamHeadersBeforeAsking: the headers are checked before anyone
// is asked about the call, also when their check waits for the list to be
// read again (a foreign Mcp-Param-Tenant beside Mcp-Param-Region): a lying
// Region gets 400 with -32020, no question (input_required) and no journal
// line; the true one is asked about. Whether the client listed tools or
// only the bridge did (at start, for its policy).
func TestHTTPParamHeadersBeforeAsking(t *testing.T) {
	for _, c := range []struct {
		name   string
		listed bool
		region string
		asked  bool
	}{
		{"listed by the client, lying", true, "us", false},
		{"listed by the client, true", true, "eu", true},
		{"read by the bridge for its policy, lying", false, "us", false},
		{"read by the bridge for its policy, true", false, "eu", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := bridgetest.Policy(t, `{"confirm": ["test_x_*"]}`, policy.Options{})
			jpath, jw := newJournal(t)
			h, rec, _ := mirrorHarness(t, func(c *bridge.Config) { c.Policy, c.Journal = p, jw })
			if c.listed {
				modernList(h, "")
			}
			body := strings.Replace(mirroredCall(`{"region":"eu"}`), `clientCapabilities":{}`, `clientCapabilities":{"elicitation":{}}`, 1)
			r := h.postHeaders(mirroredTool, hv("Mcp-Param-Region", c.region, "Mcp-Param-Tenant", "acme"), body)
			data, _ := os.ReadFile(jpath)
			journaled := strings.Contains(string(data), `"tools/call"`)
			switch {
			case calls(rec) != 0:
				t.Fatalf("the base got %d calls", calls(rec))
			case c.asked && (r.status != 200 || !strings.Contains(r.body, `"input_required"`) || !journaled):
				t.Fatalf("want input_required and its journal line, got %d %s\njournal:\n%s", r.status, r.body, data)
			case !c.asked && (r.status != 400 || errCode(t, r.body) != -32020 || journaled):
				t.Fatalf("want 400 with -32020 before any question, no journal line; got %d %s\njournal:\n%s", r.status, r.body, data)
			}
		})
	}
}

// rawCall sends one 2026-07-28 tools/call POST as bytes, headers as
// written (net/http would not send some spellings), and returns the status
// line, headers and body.
func rawCall(t *testing.T, h *httpHarness, headers string, body string) string {
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

// TestHTTPUnderscoreTwins: a header whose name, "_" read as "-", is one
// the transport checks but is not spelled with hyphens is refused (400,
// -32020), beside the hyphenated one or alone: a gateway that maps "_" to
// "-" would read it as that header, which the bridge does not. A name that
// is one character more or less than such a header is none of its
// business.
func TestHTTPUnderscoreTwins(t *testing.T) {
	h, rec, _ := mirrorHarness(t, nil)
	const name = "Mcp-Name: test_x_mcp_header\r\n"
	for _, c := range []struct {
		headers string
		refused bool
	}{
		{name + "Mcp-Param-Region: eu\r\n", false},
		{name + "Mcp_Param_Region: us\r\nMcp-Param-Region: eu\r\n", true},
		{name + "Mcp-Param-Region: eu\r\nMcp_Param_Region: eu\r\n", true},
		{name + "Mcp_Param_Region: eu\r\n", true},
		{name + "mcp_param_region: eu\r\nMcp-Param-Region: eu\r\n", true},
		{name + "Mcp-Param_Region: eu\r\nMcp-Param-Region: eu\r\n", true},
		{name + "Mcp_Param-Region: eu\r\nMcp-Param-Region: eu\r\n", true},
		{name + "Mcp_Name: test_x_mcp_header\r\nMcp-Param-Region: eu\r\n", true},
		{name + "Mcp_Method: tools/call\r\nMcp-Param-Region: eu\r\n", true},
		{name + "MCP_Protocol_Version: 2026-07-28\r\nMcp-Param-Region: eu\r\n", true},
		{name + "Mcp_Session_Id: x\r\nMcp-Param-Region: eu\r\n", true},
		// One character more or less.
		{name + "Mcp_Param_: x\r\nMcp-Param-Region: eu\r\n", false},
		{name + "Mcp_Names: x\r\nMcp-Param-Region: eu\r\n", false},
		{name + "X_Mcp_Name: x\r\nMcp-Param-Region: eu\r\n", false},
		{name + "Mcp-Param-Tenant_Id: x\r\nMcp-Param-Region: eu\r\n", false}, // a name that may be declared so
	} {
		before := calls(rec)
		out := rawCall(t, h, c.headers, mirroredCall(`{"region":"eu"}`))
		refused := strings.HasPrefix(out, "HTTP/1.1 400") && strings.Contains(out, `"code":-32020`)
		if refused != c.refused || refused && calls(rec) != before {
			t.Errorf("%q: refused %v, base got %d calls\n%s", c.headers, refused, calls(rec)-before, out)
		}
	}
}
