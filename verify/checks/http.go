package checks

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/verify"
)

// HTTPOptions configure RunHTTP.
type HTTPOptions struct {
	URL   string // the bridge's MCP endpoint, e.g. http://127.0.0.1:8931/mcp
	Token string // bearer token, if the bridge wants one
	// TokenFrom says where Token came from ("CAD_MCP_TOKEN",
	// "--token-file PATH"), for Preflight's words.
	TokenFrom string
	Only      string // run only the checks whose names contain this text
	// Tool and Args: as in Options.
	Tool, Args string
}

// httpT is what an HTTP check gets: a client for the running bridge.
type httpT struct {
	ctx   context.Context
	opts  HTTPOptions
	c     *http.Client
	tools []string  // tool names from tools/list, once known
	tool  *callTool // chosen once, by callTool
	tErr  error
	note  string // what a passing check says it did
}

// callTool is the tool to call (Options.Tool, or chosen from the tool list
// the bridge serves, by the rules of chooseTool; the drawing is the
// user's, so only a reading one).
func (t *httpT) callTool() (callTool, error) {
	if t.tool != nil {
		return *t.tool, t.tErr
	}
	var c callTool
	var err error
	if t.opts.Tool != "" {
		c, err = namedTool(t.opts.Tool, t.opts.Args)
	} else {
		var id string
		if id, err = t.session("2025-11-25"); err == nil {
			var a httpAnswer
			a, err = t.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "Mcp-Session-Id", id)
			t.end(id)
			if err == nil {
				c, err = toolFrom([]byte(raw(a.body, "result")), false)
			}
		}
	}
	t.tool, t.tErr = &c, err
	return c, err
}

// modernCall is a 2026-07-28 tools/call of the chosen tool, with name as
// its Mcp-Name header.
func (t *httpT) modernCall(name string) (httpAnswer, callTool, error) {
	c, err := t.callTool()
	if err != nil {
		return httpAnswer{}, c, err
	}
	if name == "" {
		name = c.name
	}
	q, _ := json.Marshal(c.name)
	a, err := t.modern("tools/call", name, fmt.Sprintf(`"name":%s,"arguments":%s,`, q, c.args))
	return a, c, err
}

type httpAnswer struct {
	status int
	header http.Header
	body   string
}

// post sends one body with the headers a conforming client sends, plus
// extra name/value pairs.
func (t *httpT) post(body string, extra ...string) (httpAnswer, error) {
	return t.do(http.MethodPost, body, append([]string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}, extra...)...)
}

func (t *httpT) do(method, body string, headers ...string) (httpAnswer, error) {
	req, err := http.NewRequestWithContext(t.ctx, method, t.opts.URL, strings.NewReader(body))
	if err != nil {
		return httpAnswer{}, err
	}
	if t.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+t.opts.Token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := t.c.Do(req)
	if err != nil {
		return httpAnswer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return httpAnswer{}, err
	}
	text := strings.TrimSpace(string(b))
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		text = lastEvent(text)
	}
	return httpAnswer{resp.StatusCode, resp.Header, text}, nil
}

// lastEvent is the data of an SSE body's last event: the answer.
func lastEvent(body string) string {
	last := ""
	for _, line := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "data: "); ok {
			last = d
		}
	}
	return last
}

// session initializes a legacy session and returns its id.
func (t *httpT) session(version string) (string, error) {
	a, err := t.post(verify.Initialize("0", version))
	if err != nil {
		return "", err
	}
	id := a.header.Get("Mcp-Session-Id")
	if a.status != 200 || id == "" {
		return "", fmt.Errorf("initialize %s: HTTP %d, Mcp-Session-Id %q: %s", version, a.status, id, verify.Short(a.body))
	}
	return id, nil
}

func (t *httpT) end(id string) { _, _ = t.do(http.MethodDelete, "", "Mcp-Session-Id", id) }

// modern sends a 2026-07-28 request with its headers.
func (t *httpT) modern(method, name, params string) (httpAnswer, error) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s%s}}`, method, params, modernMeta)
	extra := []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method}
	if name != "" {
		extra = append(extra, "Mcp-Name", name)
	}
	return t.post(body, extra...)
}

func want(a httpAnswer, status int, code float64) error {
	got, _ := verify.Get(a.body, "error.code").(float64)
	if a.status != status || got != code {
		return fmt.Errorf("HTTP %d with error code %v, want %d with %v: %s", a.status, got, status, code, verify.Short(a.body))
	}
	return nil
}

type httpCheck struct {
	name string
	run  func(t *httpT) error
}

func httpChecks() []httpCheck {
	negotiate := func(asked, wantV string) func(t *httpT) error {
		return func(t *httpT) error {
			a, err := t.post(verify.Initialize("0", asked))
			if err != nil {
				return err
			}
			defer t.end(a.header.Get("Mcp-Session-Id"))
			if got := verify.Get(a.body, "result.protocolVersion"); got != wantV {
				return fmt.Errorf("asked %s, got %v: %s", asked, got, verify.Short(a.body))
			}
			return nil
		}
	}
	inSession := func(version, body string, check func(a httpAnswer) error) func(t *httpT) error {
		return func(t *httpT) error {
			id, err := t.session(version)
			if err != nil {
				return err
			}
			defer t.end(id)
			a, err := t.post(body, "Mcp-Session-Id", id)
			if err != nil {
				return err
			}
			return check(a)
		}
	}
	return []httpCheck{
		{"healthz answers", func(t *httpT) error {
			u := strings.TrimSuffix(t.opts.URL, "/mcp") + "/healthz"
			save := t.opts.URL
			t.opts.URL = u
			defer func() { t.opts.URL = save }()
			a, err := t.do(http.MethodGet, "")
			if err != nil {
				return err
			}
			// 200: the base answered last (or was not asked yet); 503: the
			// bridge is up and says why CAD cannot be reached.
			if a.status == http.StatusServiceUnavailable && verify.Get(a.body, "status") == "cad_unreachable" {
				return fmt.Errorf("the bridge answers, but says CAD cannot be reached: %v", verify.Get(a.body, "reason"))
			}
			if a.status != 200 || verify.Get(a.body, "base") == nil {
				return fmt.Errorf("HTTP %d: %s", a.status, verify.Short(a.body))
			}
			return nil
		}},
		{"initialize 2025-03-26 (session)", negotiate("2025-03-26", "2025-03-26")},
		{"initialize 2025-06-18 (session)", negotiate("2025-06-18", "2025-06-18")},
		{"initialize 2025-11-25 (session)", negotiate("2025-11-25", "2025-11-25")},
		{"initialize never answers 2026-07-28", negotiate("2026-07-28", lifecycle.LatestLegacy)},
		{"ping in a session", inSession("2025-11-25", `{"jsonrpc":"2.0","id":"p","method":"ping"}`, func(a httpAnswer) error {
			if a.body != `{"jsonrpc":"2.0","id":"p","result":{}}` {
				return fmt.Errorf("HTTP %d: %s", a.status, verify.Short(a.body))
			}
			return nil
		})},
		{"tools/list in a session: object schemas", func(t *httpT) error {
			return inSession("2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, func(a httpAnswer) error {
				var r struct {
					Result struct {
						Tools []struct {
							Name        string
							InputSchema map[string]any
						}
					}
				}
				if err := json.Unmarshal([]byte(a.body), &r); err != nil || a.status != 200 || len(r.Result.Tools) == 0 {
					return fmt.Errorf("HTTP %d: %s", a.status, verify.Short(a.body))
				}
				for _, tl := range r.Result.Tools {
					t.tools = append(t.tools, tl.Name)
					if tl.InputSchema["type"] != "object" {
						return fmt.Errorf("tool %s: inputSchema type %v", tl.Name, tl.InputSchema["type"])
					}
				}
				return nil
			})(t)
		}},
		{"tools/call in a session", func(t *httpT) error {
			c, err := t.callTool()
			if err != nil {
				return err
			}
			return inSession("2025-06-18", c.frame("1"), func(a httpAnswer) error {
				if a.status != 200 || verify.Get(a.body, "result.content") == nil && verify.Get(a.body, "error.code") == nil {
					return fmt.Errorf("%s: HTTP %d: %s", c, a.status, verify.Short(a.body))
				}
				t.note = c.String()
				return nil
			})(t)
		}},
		// Without the base at hand the answer cannot be compared with the
		// base's: it must be one of the two a base gives.
		{"unknown tool: an error or an isError result", inSession("2025-06-18", verify.ToolCall("1", "no_such_tool_mcp_bridge", `{}`), func(a httpAnswer) error {
			if a.status != 200 || verify.Get(a.body, "error.code") == nil && verify.Get(a.body, "result.isError") != true {
				return fmt.Errorf("HTTP %d: %s", a.status, verify.Short(a.body))
			}
			return nil
		})},
		{"no session: 400", func(t *httpT) error {
			a, err := t.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			if err != nil {
				return err
			}
			return want(a, 400, -32600)
		}},
		{"DELETE ends a session; then 404", func(t *httpT) error {
			id, err := t.session("2025-11-25")
			if err != nil {
				return err
			}
			d, err := t.do(http.MethodDelete, "", "Mcp-Session-Id", id)
			if err != nil {
				return err
			}
			if d.status != 204 && d.status != 200 {
				return fmt.Errorf("DELETE: HTTP %d", d.status)
			}
			a, err := t.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Mcp-Session-Id", id)
			if err != nil {
				return err
			}
			if a.status != 404 {
				return fmt.Errorf("after DELETE: HTTP %d, want 404", a.status)
			}
			return nil
		}},
		{"batch in a 2025-03-26 session", inSession("2025-03-26", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, func(a httpAnswer) error {
			var arr []json.RawMessage
			if a.status != 200 || json.Unmarshal([]byte(a.body), &arr) != nil || len(arr) != 2 {
				return fmt.Errorf("HTTP %d: %s", a.status, verify.Short(a.body))
			}
			return nil
		})},
		{"batch refused in a 2025-06-18 session", inSession("2025-06-18", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, func(a httpAnswer) error {
			return want(a, 400, -32600)
		})},
		{"modern server/discover", func(t *httpT) error {
			a, err := t.modern("server/discover", "", "")
			if err != nil {
				return err
			}
			if a.status != 200 || verify.Get(a.body, "result.resultType") != "complete" || a.header.Get("Mcp-Session-Id") != "" {
				return fmt.Errorf("HTTP %d: %s", a.status, verify.Short(a.body))
			}
			return nil
		}},
		{"modern tools/list has cache hints", func(t *httpT) error {
			a, err := t.modern("tools/list", "", "")
			if err != nil {
				return err
			}
			if a.status != 200 || verify.Get(a.body, "result.ttlMs") == nil || verify.Get(a.body, "result.cacheScope") == nil {
				return fmt.Errorf("HTTP %d: %s", a.status, verify.Short(a.body))
			}
			return nil
		}},
		{"modern tools/call", func(t *httpT) error {
			a, c, err := t.modernCall("")
			if err != nil {
				return err
			}
			if a.status != 200 || verify.Get(a.body, "result.resultType") != "complete" {
				return fmt.Errorf("%s: HTTP %d: %s", c, a.status, verify.Short(a.body))
			}
			t.note = c.String()
			return nil
		}},
		{"modern Mcp-Name mismatch: 400 -32020", func(t *httpT) error {
			a, _, err := t.modernCall("something_else_than_the_tool")
			if err != nil {
				return err
			}
			return want(a, 400, -32020)
		}},
		{"modern Base64 Mcp-Name accepted", func(t *httpT) error {
			c, err := t.callTool()
			if err != nil {
				return err
			}
			a, _, err := t.modernCall("=?base64?" + base64.StdEncoding.EncodeToString([]byte(c.name)) + "?=")
			if err != nil {
				return err
			}
			if a.status != 200 || verify.Get(a.body, "result") == nil {
				return fmt.Errorf("%s: HTTP %d: %s", c, a.status, verify.Short(a.body))
			}
			return nil
		}},
		{"modern unsupported version: 400 -32022", func(t *httpT) error {
			body := strings.ReplaceAll(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{%s}}`, modernMeta), "2026-07-28", "2099-01-01")
			a, err := t.post(body, "MCP-Protocol-Version", "2099-01-01", "Mcp-Method", "tools/list")
			if err != nil {
				return err
			}
			if err := want(a, 400, -32022); err != nil {
				return err
			}
			if verify.Get(a.body, "error.data.supported") == nil {
				return fmt.Errorf("no data.supported: %s", verify.Short(a.body))
			}
			return nil
		}},
		{"modern unknown method: 404 -32601", func(t *httpT) error {
			a, err := t.modern("ping", "", "")
			if err != nil {
				return err
			}
			return want(a, 404, -32601)
		}},
		{"modern GET: 405", func(t *httpT) error {
			a, err := t.do(http.MethodGet, "", "Accept", "text/event-stream", "MCP-Protocol-Version", "2026-07-28")
			if err != nil {
				return err
			}
			if a.status != 405 {
				return fmt.Errorf("HTTP %d, want 405", a.status)
			}
			return nil
		}},
		{"foreign Origin: 403", func(t *httpT) error {
			a, err := t.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "Origin", "https://attacker.invalid")
			if err != nil {
				return err
			}
			if a.status != 403 {
				return fmt.Errorf("HTTP %d, want 403", a.status)
			}
			return nil
		}},
	}
}

// RunHTTP runs the checks that apply to a bridge already serving HTTP at
// opts.URL. They only read: tools/list, unknown tools, and one tool chosen
// as chooseTool does (or opts.Tool).
// Preflight asks the bridge at opts.URL once, as a client's first
// request would, whether it can be checked at all: nil when it answers,
// else one sentence of what stands in the way (nothing answers there; it
// wants a token and none was given; it refused the token given), instead
// of a table where every check fails for that one reason.
func Preflight(ctx context.Context, opts HTTPOptions) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	t := &httpT{ctx: ctx, opts: opts, c: &http.Client{}}
	a, err := t.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + lifecycle.LatestLegacy + `","capabilities":{},"clientInfo":{"name":"mcp-bridge verify","version":"1"}}}`)
	switch {
	case err != nil:
		return fmt.Errorf("nothing answers at %s (%v): is the bridge running there with --listen?", opts.URL, errors.Unwrap(err))
	case a.status != http.StatusUnauthorized:
		return nil
	case opts.Token == "":
		return fmt.Errorf("the bridge at %s wants a token (HTTP 401), and none was given: give the file the bridge reads it from, --token-file FILE, or set CAD_MCP_TOKEN to it", opts.URL)
	}
	return fmt.Errorf("the bridge at %s refused the token from %s (HTTP 401): it is not the one in the bridge's --token-file", opts.URL, opts.TokenFrom)
}

// RunHTTP runs the checks against the bridge serving HTTP at opts.URL.
func RunHTTP(ctx context.Context, opts HTTPOptions, progress func(Result)) *Report {
	t := &httpT{opts: opts, c: &http.Client{Timeout: time.Minute}}
	rep := &Report{Bridge: opts.URL, Base: "behind the bridge"}
	for _, c := range httpChecks() {
		if opts.Only != "" && !strings.Contains(c.name, opts.Only) {
			continue
		}
		start := time.Now()
		cctx, cancel := context.WithTimeout(ctx, time.Minute)
		t.ctx = cctx
		t.note = ""
		err := c.run(t)
		cancel()
		r := Result{Name: c.name, Status: Pass, Took: time.Since(start)}
		var sk errSkip
		switch {
		case errors.As(err, &sk):
			r.Status, r.Detail = Skip, sk.why
			rep.Skipped++
		case err != nil:
			r.Status, r.Detail = Fail, err.Error()
			rep.Failed++
		default:
			r.Detail = t.note
			rep.Passed++
		}
		rep.Results = append(rep.Results, r)
		if progress != nil {
			progress(r)
		}
	}
	if rep.Failed > 0 {
		rep.Hint = "check the URL and token, and that the bridge's own checks pass: mcp-bridge verify"
	}
	return rep
}
