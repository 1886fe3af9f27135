package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/clientfit"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// Issue 40's picture: 2600×1700 of noise, 4.6 MB of PNG; and a strip of
// it, 2600×400 (1.4 MB as it travels: over 1 MiB and 2000 px too), where
// the size does not matter, as reducing the first takes seconds under the
// race detector.
const (
	issuePicture = `{"width":2600,"height":1700}`
	stripPicture = `{"width":2600,"height":400}`
)

// recvLarge is recv for an answer of megabytes, or whose picture the
// bridge reduces: under the race detector, on a loaded machine, that may
// take longer than the wait limit for a line.
func (h *harness) recvLarge() string {
	h.t.Helper()
	select {
	case l, ok := <-h.lines:
		if !ok {
			h.t.Fatal("stdout closed while waiting for a line")
		}
		return l
	case <-time.After(4 * waitLimit):
		h.t.Fatal("no answer from the bridge within four times the wait limit")
	}
	return ""
}

// TestFitPictureToClaudeDesktop: Claude Desktop (clientInfo "claude-ai")
// gets issue 40's picture at most 2000 px a side, its aspect ratio kept,
// a valid PNG, said in a note, the whole message within 1 MiB, in both
// eras (the 2026-07-28 one with a strip of it); a client whose name only
// looks like it ("claude-ai " with a trailing space, "Claude-ai"), one
// the table does not know, and one that never named itself get the base's
// bytes.
func TestFitPictureToClaudeDesktop(t *testing.T) {
	sim := bridgetest.StartLimitSim(t)
	base := bridgetest.BaseResult(t, sim, "sim_picture", issuePicture)
	t.Run("handshake era", func(t *testing.T) {
		h := newHarness(t, sim, nil)
		h.send(bridgetest.InitializeAs("0", "claude-ai"))
		h.recv()
		pixels := clientfit.Decodes("pixels")
		h.send(call("1", "sim_picture", issuePicture))
		bridgetest.CheckReducedPicture(t, h.recvLarge(), 1<<20, 2000, 2600, 1700)
		if clientfit.Decodes("pixels") == pixels {
			t.Error("the picture was reduced without being decoded: the decode counter counts nothing")
		}
		h.closeAndWait()
	})
	for _, name := range []string{"claude-ai ", "Claude-ai", "some-client", ""} {
		t.Run(fmt.Sprintf("%q gets the base's bytes", name), func(t *testing.T) {
			h := newHarness(t, sim, nil)
			if name != "" {
				h.send(bridgetest.InitializeAs("0", name))
				h.recv()
			}
			h.send(call("1", "sim_picture", issuePicture))
			if got := bridgetest.ResultOf(t, h.recvLarge()); !bytes.Equal(got, base) {
				t.Errorf("the result (%d bytes) is not the base's (%d bytes)", len(got), len(base))
			}
			h.closeAndWait()
		})
	}
	t.Run("2026-07-28", func(t *testing.T) {
		h := newHarness(t, sim, nil)
		h.send(bridgetest.ModernAs("1", "claude-ai", "tools/call", `"name":"sim_picture","arguments":`+stripPicture))
		line := h.recvLarge()
		bridgetest.CheckReducedPicture(t, line, 1<<20, 2000, 2600, 400)
		if field(t, line, "result.resultType") != "complete" {
			t.Errorf("the 2026-07-28 decoration is lost: %.200s", line)
		}
		h.closeAndWait()
	})
}

// listingAt finds the size of sim_listing whose answer to id, as the
// bridge writes it (without its newline), is exactly want bytes.
func listingAt(t *testing.T, sim *simbase.Server, id string, want int) (args string, result []byte) {
	t.Helper()
	rid, _ := rpc.ParseID([]byte(id))
	size := func(n int) int {
		result = bridgetest.BaseResult(t, sim, "sim_listing", fmt.Sprintf(`{"bytes":%d}`, n))
		return rpc.EncodeResult(rid, result).Len()
	}
	n := want - 200
	for range 20 {
		got := size(n)
		if got == want {
			return fmt.Sprintf(`{"bytes":%d}`, n), result
		}
		n += want - got
	}
	for d := -4; d <= 4; d++ { // an escaped newline may skip a size: a neighbour
		if size(n+d) == want {
			return fmt.Sprintf(`{"bytes":%d}`, n+d), result
		}
	}
	t.Fatalf("no listing answers in exactly %d bytes", want)
	return "", nil
}

// TestFitAtTheLimit: Claude Desktop's limit is on the whole message: an
// answer of exactly 1 MiB goes out byte for byte, one of a byte more is
// cut to fit, saying so.
func TestFitAtTheLimit(t *testing.T) {
	sim := bridgetest.StartLimitSim(t)
	for _, tt := range []struct {
		size int
		cut  bool
	}{{1 << 20, false}, {1<<20 + 1, true}} {
		t.Run(fmt.Sprint(tt.size), func(t *testing.T) {
			args, base := listingAt(t, sim, "7", tt.size)
			h := newHarness(t, sim, nil)
			h.send(bridgetest.InitializeAs("0", "claude-ai"))
			h.recv()
			h.send(call("7", "sim_listing", args))
			line := h.recv()
			switch {
			case len(line) > 1<<20:
				t.Errorf("the answer is %d bytes, over 1 MiB", len(line))
			case tt.cut != !bytes.Equal(bridgetest.ResultOf(t, line), base):
				t.Errorf("an answer of %d bytes: cut %v, want %v", tt.size, !tt.cut, tt.cut)
			case tt.cut && !strings.Contains(line, `mcp-bridge: the text above was cut: `):
				t.Errorf("no note on the cut: %.300s", line[len(line)-400:])
			}
			h.closeAndWait()
		})
	}
}

// TestFitMaxResultBytes: --max-result-bytes 200000 holds for any client,
// one the table does not know included, in both eras: a 1 MiB listing
// comes as an answer of at most 200000 bytes saying it was cut, and the
// journal records what the base answered.
func TestFitMaxResultBytes(t *testing.T) {
	sim := bridgetest.StartLimitSim(t)
	const args = `{"bytes":1048576}`
	for _, era := range []string{"handshake era", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			jpath, jw := newJournal(t)
			h := newHarness(t, sim, func(c *Config) {
				c.Fit = clientfit.Config{MaxResultBytes: 200000, MaxResultBytesSet: true}
				c.Journal = jw
			})
			if era == "2026-07-28" {
				h.send(bridgetest.ModernAs("1", "some-client", "tools/call", `"name":"sim_listing","arguments":`+args))
			} else {
				h.send(bridgetest.InitializeAs("0", "some-client"))
				h.recv()
				h.send(call("1", "sim_listing", args))
			}
			line := h.recv()
			if len(line) > 200000 || !strings.Contains(line, `mcp-bridge: the text above was cut: `) || !strings.Contains(line, "200,000 bytes a result") {
				t.Errorf("%d bytes: %.200s … %s", len(line), line, line[max(0, len(line)-400):])
			}
			h.closeAndWait()
			var bytes []int
			_ = journal.Each(jpath, func(l journal.Line) bool { bytes = append(bytes, l.Entry.Bytes); return true })
			if len(bytes) != 1 || bytes[0] <= 1<<20 {
				t.Errorf("the journal records %v bytes; want one line of the base's answer, over 1 MiB", bytes)
			}
		})
	}
}

// TestFitDecodesNothing: nothing is decoded for a client without limits
// (a 1 MB picture), nor for a result under a client's limits (a
// listing; a small picture, of which only the header is read for its
// size), and each goes out byte for byte.
func TestFitDecodesNothing(t *testing.T) {
	sim := bridgetest.StartLimitSim(t)
	kinds := []string{"header", "base64", "pixels", "json"}
	counts := func() map[string]int64 {
		m := map[string]int64{}
		for _, k := range kinds {
			m[k] = clientfit.Decodes(k)
		}
		return m
	}
	for _, tt := range []struct {
		client, tool, args string
		header             int64
	}{
		{"some-client", "sim_picture", stripPicture, 0},
		{"claude-ai", "sim_listing", `{"bytes":1000,"unicode":true}`, 0},
		{"claude-ai", "sim_picture", `{"width":2000,"height":100}`, 1},
	} {
		t.Run(tt.client+" "+tt.args, func(t *testing.T) {
			base := bridgetest.BaseResult(t, sim, tt.tool, tt.args)
			h := newHarness(t, sim, nil)
			h.send(bridgetest.InitializeAs("0", tt.client))
			h.recv()
			before := counts()
			h.send(call("1", tt.tool, tt.args))
			got := bridgetest.ResultOf(t, h.recv())
			after := counts()
			want := map[string]int64{"header": tt.header}
			diff := map[string]int64{}
			for _, k := range kinds {
				if d := after[k] - before[k]; d != 0 {
					diff[k] = d
				}
				if want[k] == 0 {
					delete(want, k)
				}
			}
			if d := cmp.Diff(want, diff); d != "" {
				t.Errorf("decodes (-want +got):\n%s", d)
			}
			if !bytes.Equal(got, base) {
				t.Errorf("the result is not the base's")
			}
			h.closeAndWait()
		})
	}
}

// toolsMeta is each tool's _meta in a tools/list answer line, by name.
func toolsMeta(t *testing.T, line string) map[string]map[string]any {
	t.Helper()
	var r struct {
		Result struct {
			Tools []struct {
				Name string
				Meta map[string]any `json:"_meta"`
			}
		}
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil || r.Result.Tools == nil {
		t.Fatalf("not a tools/list answer: %.300s", line)
	}
	out := map[string]map[string]any{}
	for _, tl := range r.Result.Tools {
		out[tl.Name] = tl.Meta
	}
	return out
}

// TestListMetaForClaudeCode: Claude Code's tools carry
// anthropic/alwaysLoad and anthropic/maxResultSizeChars, in both eras;
// another client on the same bridge, before and after, gets the list
// byte for byte as a client that never named itself does; the tool cache
// holds the base's list.
func TestListMetaForClaudeCode(t *testing.T) {
	sim := bridgetest.StartLimitSim(t)
	dir := tempDir(t)
	h := newHarness(t, sim, func(c *Config) { c.CacheDir = dir })
	const list = `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`
	h.send(fmt.Sprintf(list, 1))
	h.recv() // a client that never named itself: no limits
	wantMeta := map[string]any{"anthropic/alwaysLoad": true, "anthropic/maxResultSizeChars": float64(500000)}
	// Claude Code and Claude Desktop wait a limited time: their lists have
	// the bridge's wait_for_cad after the base's 29 (jobs.go), and Claude
	// Code's carries the metadata on it too.
	check := func(what, line string, meta bool) {
		t.Helper()
		got := toolsMeta(t, line)
		if _, ok := got["wait_for_cad"]; len(got) != 30 || !ok {
			t.Fatalf("%s: %d tools (wait_for_cad %v), want the base's 29 and wait_for_cad", what, len(got), ok)
		}
		for name, m := range got {
			switch {
			case meta && !cmp.Equal(wantMeta, m):
				t.Errorf("%s: %s's _meta %v, want %v", what, name, m, wantMeta)
			case !meta && m != nil:
				t.Errorf("%s: %s has _meta %v", what, name, m)
			}
		}
	}
	modernPlain := func(id int, name string) []byte {
		h.send(bridgetest.ModernAs(fmt.Sprint(id), name, "tools/list", ""))
		return bridgetest.ResultOf(t, h.recv())
	}
	aiBefore := modernPlain(2, "claude-ai")
	h.send(bridgetest.ModernAs("3", "claude-code", "tools/list", ""))
	check("2026-07-28 claude-code", h.recv(), true)
	if aiAfter := modernPlain(4, "claude-ai"); !bytes.Equal(aiBefore, aiAfter) || strings.Contains(string(aiAfter), "anthropic/") {
		t.Errorf("claude-ai's list changed after claude-code's:\n%s\n%s", aiBefore, aiAfter)
	}
	if other, unknown := modernPlain(5, "claude-code "), modernPlain(8, "some-client"); !bytes.Equal(other, unknown) || bytes.Contains(other, []byte("wait_for_cad")) {
		t.Errorf("\"claude-code \" is not Claude Code, but its list differs from an unknown client's")
	}
	h.send(bridgetest.InitializeAs("6", "claude-code"))
	h.recv()
	h.send(fmt.Sprintf(list, 7))
	check("handshake-era claude-code", h.recv(), true)
	h.closeAndWait()

	// A handshake-era claude-ai, on a bridge of its own, gets what a client
	// that never named itself got.
	h2 := newHarness(t, sim, func(c *Config) { c.CacheDir = dir })
	h2.send(bridgetest.InitializeAs("0", "claude-ai"))
	h2.recv()
	h2.send(fmt.Sprintf(list, 1))
	line := h2.recv()
	check("claude-ai", line, false)
	h2.closeAndWait()

	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	cached := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(b, []byte("sim_listing")) {
			continue
		}
		cached++
		if bytes.Contains(b, []byte("anthropic/")) {
			t.Errorf("the tool cache %s holds a client's metadata", f)
		}
	}
	if cached == 0 {
		t.Errorf("no tool cache in %s (%v)", dir, files)
	}
}

// TestListMetaEdges: listMeta at the edges of its rules, on lists made
// here: alwaysLoad on 30 tools, not on 31 nor on a page; the base's own
// _meta members kept, one that is not an object left alone;
// maxResultSizeChars only where the bridge lets results be larger than
// Claude Code's 50,000 characters, at most its 500,000.
func TestListMetaEdges(t *testing.T) {
	tools := func(n int, extra string) string {
		var b strings.Builder
		b.WriteString(`{"tools":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":"t%d","inputSchema":{"type":"object"}}`, i)
		}
		b.WriteString(`]` + extra + `}`)
		return b.String()
	}
	type metas = map[string]any
	first := func(res []byte) metas {
		var r struct {
			Tools []struct {
				Meta metas `json:"_meta"`
			}
		}
		if err := json.Unmarshal(res, &r); err != nil {
			t.Fatalf("%v: %s", err, res)
		}
		return r.Tools[0].Meta
	}
	for _, tt := range []struct {
		what   string
		client string
		fit    clientfit.Config
		list   string
		cursor bool
		want   metas
	}{
		{"30 tools", "claude-code", clientfit.Config{}, tools(30, ""), false, metas{"anthropic/alwaysLoad": true, "anthropic/maxResultSizeChars": 500000.0}},
		{"31 tools", "claude-code", clientfit.Config{}, tools(31, ""), false, metas{"anthropic/maxResultSizeChars": 500000.0}},
		{"a first page", "claude-code", clientfit.Config{}, tools(3, `,"nextCursor":"p2"`), false, metas{"anthropic/maxResultSizeChars": 500000.0}},
		{"a later page", "claude-code", clientfit.Config{}, tools(3, ""), true, metas{"anthropic/maxResultSizeChars": 500000.0}},
		{"--max-result-bytes 50000", "claude-code", clientfit.Config{MaxResultBytes: 50000, MaxResultBytesSet: true}, tools(3, ""), false, metas{"anthropic/alwaysLoad": true}},
		{"--max-result-bytes 50001", "claude-code", clientfit.Config{MaxResultBytes: 50001, MaxResultBytesSet: true}, tools(3, ""), false, metas{"anthropic/alwaysLoad": true, "anthropic/maxResultSizeChars": 50001.0}},
		{"--max-result-bytes 0", "claude-code", clientfit.Config{MaxResultBytesSet: true}, tools(3, ""), false, metas{"anthropic/alwaysLoad": true, "anthropic/maxResultSizeChars": 500000.0}},
		{"the base's _meta", "claude-code", clientfit.Config{}, `{"tools":[{"name":"a","_meta":{"x":1,"anthropic/alwaysLoad":false}}]}`, false, metas{"x": 1.0, "anthropic/alwaysLoad": false, "anthropic/maxResultSizeChars": 500000.0}},
		{"a _meta not an object", "claude-code", clientfit.Config{}, `{"tools":[{"name":"a","_meta":[1]}]}`, false, nil},
		{"claude-ai", "claude-ai", clientfit.Config{}, tools(3, ""), false, nil},
		{"unknown, --max-result-bytes 0", "x", clientfit.Config{MaxResultBytesSet: true}, tools(3, ""), false, nil},
	} {
		t.Run(tt.what, func(t *testing.T) {
			b := &bridge{cfg: Config{Fit: tt.fit}, log: zerolog.Nop()}
			c := newClient(nil, 1<<20, zerolog.Nop())
			c.fitAs(tt.client)
			req := &lifecycle.Request{Method: "tools/list", Era: lifecycle.Legacy}
			if tt.cursor {
				req.Tool.Cursor = []byte(`"p2"`)
			}
			in := []byte(tt.list)
			keep := bytes.Clone(in)
			out := b.listMeta(&job{req: req, reply: &reply{client: c}}, in, 0)
			if !bytes.Equal(in, keep) {
				t.Fatal("the list given was modified")
			}
			if !json.Valid(out) {
				t.Fatalf("not JSON: %s", out)
			}
			if tt.want == nil {
				if strings.Contains(tt.list, `[1]`) || tt.client != "claude-code" {
					if !bytes.Equal(out, in) {
						t.Errorf("changed: %s", out)
					}
				}
				return
			}
			if d := cmp.Diff(tt.want, first(out)); d != "" {
				t.Errorf("_meta (-want +got):\n%s", d)
			}
		})
	}
}

// TestJobTextIsJSON: the bridge's own answers name a tool as the client
// or the base wrote it; whatever its bytes (DEL, a lone byte that is not
// UTF-8, a quote, a line feed), the answer is JSON and says the name.
func TestJobTextIsJSON(t *testing.T) {
	b := &bridge{}
	// A tool named with 400 characters is named in 64 (63 and "…"):
	// the job's answer stays well within the smallest --max-result-bytes.
	long := strings.Repeat("t", 400)
	for _, text := range []string{jobText(long, strings.Repeat("j", 32), "wait_for_cad", time.Hour), stillRunningText(long, strings.Repeat("j", 32), "wait_for_cad", time.Hour)} {
		if !strings.Contains(text, strings.Repeat("t", 63)+"…") || strings.Contains(text, strings.Repeat("t", 64)) || len(b.textResult(&lifecycle.Request{}, text, false)) > clientfit.MinResultBytes-300 {
			t.Errorf("the tool's name in the job's words: %d bytes: %s", len(text), text)
		}
	}
	for _, name := range []string{"draw\x7fline", "draw\xffline", `draw"line`, "draw\nline", "draw_line"} {
		res := b.textResult(&lifecycle.Request{Era: lifecycle.Legacy}, jobText(name, "J", "wait_for_cad", 2*time.Second), false)
		if !json.Valid(res) {
			t.Errorf("%q: not JSON: %s", name, res)
		}
		if tool := []byte(waitTool(name)); !json.Valid(tool) {
			t.Errorf("%q: the wait tool is not JSON: %s", name, tool)
		}
	}
}

// TestFitLongIDAtTheSmallestLimit: the limit is on the whole message. At
// the smallest --max-result-bytes (1024), Fit keeps 768 bytes for the
// result and its notes whatever the id: an id whose envelope takes the
// other 256 gets the result reduced within the limit; one byte more of id
// and it would go over: the answer is then the short too_large_for_client
// error, never a message over the limit.
func TestFitLongIDAtTheSmallestLimit(t *testing.T) {
	sim := bridgetest.StartLimitSim(t)
	const limit = clientfit.MinResultBytes
	// {"jsonrpc":"2.0","id":…,"result":} is 33 bytes and the id's.
	fits := `"` + strings.Repeat("i", 256-33-2) + `"`
	for _, c := range []struct {
		id      string
		reduced bool
	}{{"1", true}, {fits, true}, {fits[:1] + "i" + fits[1:], false}, {`"` + strings.Repeat("i", 300) + `"`, false}} {
		h := newHarness(t, sim, func(c *Config) {
			c.Fit = clientfit.Config{MaxResultBytes: limit, MaxResultBytesSet: true}
		})
		h.send(bridgetest.InitializeAs("0", "some-client"))
		h.recv()
		h.send(call(c.id, "sim_listing", `{"bytes":5000}`))
		got := h.recv()
		h.closeAndWait()
		if len(got) > limit {
			t.Errorf("id of %d bytes: an answer of %d bytes over --max-result-bytes %d", len(c.id), len(got), limit)
		}
		if reduced := strings.Contains(got, "mcp-bridge: the text above was cut"); reduced != c.reduced || !reduced && !strings.Contains(got, "does not fit in the 1024 bytes a message this client takes") {
			t.Errorf("id of %d bytes: reduced %v, want %v: %.300s", len(c.id), reduced, c.reduced, got)
		}
	}
}
