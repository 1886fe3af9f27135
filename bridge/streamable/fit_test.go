package streamable

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// message is the JSON-RPC message an HTTP answer carries: its JSON body,
// or its last SSE event's data.
func message(body string) string {
	if strings.HasPrefix(body, "{") {
		return body
	}
	var last string
	for _, l := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(l, "data: "); ok {
			last = d
		}
	}
	return last
}

// patiently is the answer on ch, for a picture the bridge reduces: under
// the race detector, on a loaded machine, that may take longer than the
// wait limit.
func patiently(t *testing.T, ch <-chan answer) answer {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(4 * bridgetest.WaitLimit):
		t.Fatal("no answer within four times the wait limit")
	}
	return answer{}
}

// TestFitOverHTTP: over Streamable HTTP each session gets what its own
// client takes, on one bridge and one base: a Claude Desktop session a
// 2600×400 picture (1.4 MB as it travels: over 1 MiB and 2000 px) reduced,
// within 1 MiB; another session, at the same time, the base's bytes; a stateless Claude Code request the tools'
// metadata, and a stateless Claude Desktop one the plain list.
func TestFitOverHTTP(t *testing.T) {
	sim := bridgetest.StartLimitSim(t)
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) {
		c.Base = &tcpbase.Client{Addr: sim.Addr(), ConnectTimeout: time.Second}
		c.BaseAddr = sim.Addr()
	})
	const picture = `{"width":2600,"height":400}`
	base := bridgetest.BaseResult(t, sim, "sim_picture", picture)
	session := func(name string) string {
		r := h.post(jsonHeaders, bridgetest.InitializeAs("0", name))
		sid := r.header.Get("Mcp-Session-Id")
		if sid == "" {
			t.Fatalf("initialize: %d %s", r.status, r.body)
		}
		return sid
	}
	desktop, other := session("claude-ai"), session("some-client")
	call := bridgetest.Call("1", "sim_picture", picture)
	a, b := h.postAsync(withSession(desktop), call), h.postAsync(withSession(other), call)
	bridgetest.CheckReducedPicture(t, message(patiently(t, a).body), 1<<20, 2000, 2600, 400)
	if got := bridgetest.ResultOf(t, message(patiently(t, b).body)); !bytes.Equal(got, base) {
		t.Errorf("the other session's result (%d bytes) is not the base's (%d)", len(got), len(base))
	}

	list := func(name string) string {
		return message(h.post(modernHeaders("tools/list", ""), bridgetest.ModernAs("2", name, "tools/list", "")).body)
	}
	ai := list("claude-ai")
	if code := list("claude-code"); strings.Count(code, `"anthropic/alwaysLoad":true`) != 30 || strings.Count(code, `"anthropic/maxResultSizeChars":500000`) != 30 { // the base's 29 and wait_for_cad
		t.Errorf("Claude Code's list over HTTP lacks the tools' metadata: %.300s", code)
	}
	if again := list("claude-ai"); again != ai || strings.Contains(ai, "anthropic/") {
		t.Errorf("Claude Desktop's list over HTTP carries Claude Code's metadata, or changed after Claude Code's:\n%.300s\n%.300s", ai, again)
	}
}
