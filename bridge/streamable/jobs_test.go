package streamable

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/clientfit"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

var jobRE = regexp.MustCompile(`as job ([0-9a-f]{32})\.`)

// jobHarness is an HTTP bridge with --answer-within 2s on a simulated
// base with sim_slow.
func jobHarness(t *testing.T) (*httpHarness, *simbase.Server) {
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{LimitTools: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) {
		c.Base = &tcpbase.Client{Addr: sim.Addr(), ConnectTimeout: time.Second}
		c.BaseAddr = sim.Addr()
		c.Fit = clientfit.Config{AnswerWithin: 2 * time.Second, AnswerWithinSet: true}
	})
	return h, sim
}

// text is the first text block of a tools/call answer, "ERROR: " first
// when it is an isError result.
func text(t *testing.T, r answer) string {
	t.Helper()
	var a struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
	}
	if r.status != http.StatusOK || json.Unmarshal([]byte(r.body), &a) != nil || len(a.Result.Content) == 0 {
		t.Fatalf("not a text result: %d %.400s", r.status, r.body)
	}
	if a.Result.IsError {
		return "ERROR: " + a.Result.Content[0].Text
	}
	return a.Result.Content[0].Text
}

// TestHTTPJobOnlyForItsClient: over HTTP, a job is collected only by the
// client that made the call: its session (handshake era), or in the
// 2026-07-28 era, requests naming the same clientInfo from the same host.
// Another session, another era, another clientInfo or another host gets
// the very words an unknown job gets; the owner gets the base's result.
func TestHTTPJobOnlyForItsClient(t *testing.T) {
	const noJob = "ERROR: No such job for this client."
	t.Run("session", func(t *testing.T) {
		t.Parallel()
		h, sim := jobHarness(t)
		a, b := h.initialize("2025-11-25"), h.initialize("2025-11-25")
		r := h.post(withSession(a), bridgetest.Call(`"slow"`, "sim_slow", `{"seconds":7,"label":"H"}`))
		m := jobRE.FindStringSubmatch(text(t, r))
		if m == nil || sim.Runs("H") != 0 {
			t.Fatalf("want a job while the base runs the call (runs %d), got %s", sim.Runs("H"), r.body)
		}
		wait := func(id string) string { return bridgetest.Call(`"w"`, "wait_for_cad", `{"job":"`+id+`"}`) }
		never := text(t, h.post(withSession(b), wait(strings.Repeat("f", 32))))
		if !strings.HasPrefix(never, noJob) {
			t.Fatalf("unknown job: %q", never)
		}
		if got := text(t, h.post(withSession(b), wait(m[1]))); got != never {
			t.Errorf("another session's job: %q, want %q", got, never)
		}
		modern := bridgetest.ModernCall(`"w"`, "wait_for_cad", `{"job":"`+m[1]+`"}`, "{}", "")
		if got := text(t, h.post(modernHeaders("tools/call", "wait_for_cad"), modern)); got != never {
			t.Errorf("a stateless request: %q, want %q", got, never)
		}
		for {
			got := text(t, h.post(withSession(a), wait(m[1])))
			if strings.Contains(got, "is still running in CAD") {
				continue
			}
			if !strings.HasPrefix(got, "H done after 7 s (run 1 of H)") {
				t.Fatalf("the owner's wait: %q", got)
			}
			break
		}
	})
	t.Run("stateless", func(t *testing.T) {
		t.Parallel()
		h, sim := jobHarness(t)
		call := func(tool, args, name string) answer {
			body := strings.Replace(bridgetest.ModernCall(`"x"`, tool, args, "{}", ""), `"wire-test"`, `"`+name+`"`, 1)
			return h.post(modernHeaders("tools/call", tool), body)
		}
		r := call("sim_slow", `{"seconds":7,"label":"M"}`, "wire-test")
		m := jobRE.FindStringSubmatch(text(t, r))
		if m == nil || sim.Runs("M") != 0 {
			t.Fatalf("want a job while the base runs the call (runs %d), got %s", sim.Runs("M"), r.body)
		}
		args := `{"job":"` + m[1] + `"}`
		never := text(t, call("wait_for_cad", `{"job":"`+strings.Repeat("0", 32)+`"}`, "wire-test"))
		if !strings.HasPrefix(never, noJob) {
			t.Fatalf("unknown job: %q", never)
		}
		if got := text(t, call("wait_for_cad", args, "other")); got != never {
			t.Errorf("another clientInfo: %q, want %q", got, never)
		}
		body := bridgetest.ModernCall(`"x"`, "wait_for_cad", args, "{}", "")
		if got := text(t, h.fromAddr("127.0.0.2").post(modernHeaders("tools/call", "wait_for_cad"), body)); got != never {
			t.Errorf("another host: %q, want %q", got, never)
		}
		sess := h.initialize("2025-11-25")
		if got := text(t, h.post(withSession(sess), bridgetest.Call(`"w"`, "wait_for_cad", args))); got != never {
			t.Errorf("a session: %q, want %q", got, never)
		}
		for {
			got := text(t, call("wait_for_cad", args, "wire-test"))
			if strings.Contains(got, "is still running in CAD") {
				continue
			}
			if !strings.HasPrefix(got, "M done after 7 s (run 1 of M)") {
				t.Fatalf("the owner's wait: %q", got)
			}
			break
		}
	})
}
