package streamable

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
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
	jpath, jw := bridgetest.NewJournal(t)
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
