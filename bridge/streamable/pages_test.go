package streamable

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/health"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// withMetrics turns metrics on and mounts /metrics on --listen.
func withMetrics(t *testing.T) func(*bridge.Config, *Config) {
	return func(c *bridge.Config, hc *Config) {
		c.Health = health.New() // the core's and telemetry's: one state
		tel, err := telemetry.New(telemetry.Config{Metrics: true}, telemetry.Options{Version: "test", BaseAddr: c.BaseAddr, Health: c.Health, Log: zerolog.Nop()})
		if err != nil {
			t.Fatal(err)
		}
		c.Telemetry, hc.Metrics = tel, tel.MetricsHandler()
	}
}

func (h *httpHarness) page(path string, headers hdr) answer {
	h.t.Helper()
	return h.do(context.Background(), http.MethodGet, strings.TrimSuffix(h.url, "/mcp")+path, headers, "")
}

// TestPagesNeedTheToken: with a token set, /metrics, the status page,
// /healthz and /livez answer only a request that carries it; one
// character off is refused like none.
func TestPagesNeedTheToken(t *testing.T) {
	h := newHTTPHarness(t, func(c *bridge.Config, hc *Config) {
		withMetrics(t)(c, hc)
		hc.Token = "s3cret"
	})
	for _, path := range []string{"/metrics", "/", "/healthz", "/livez"} {
		for _, c := range []struct {
			auth string
			want int
		}{{"", 401}, {"Bearer s3creT", 401}, {"Bearer s3cre", 401}, {"Bearer s3cret", 200}} {
			r := h.page(path, hdr{"Authorization", c.auth})
			if r.status != c.want {
				t.Errorf("GET %s with %q: %d, want %d", path, c.auth, r.status, c.want)
			}
			if c.want == 401 && (strings.Contains(r.body, "mcp_") || strings.Contains(r.body, "<html")) {
				t.Errorf("GET %s refused, yet its body shows the page: %.200s", path, r.body)
			}
		}
	}
	if r := h.page("/metrics", hdr{"Authorization", "Bearer s3cret"}); !strings.Contains(r.body, "target_info{") ||
		!strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
		t.Errorf("/metrics: %s %.300s", r.header.Get("Content-Type"), r.body)
	}
}

// TestPagesRefuseRebinding: without a token, /metrics and the status page
// answer only a Host that names the listen address or a loopback name, as
// /mcp does: a page whose name was rebound to 127.0.0.1 is refused.
func TestPagesRefuseRebinding(t *testing.T) {
	h := newHTTPHarness(t, withMetrics(t))
	for _, path := range []string{"/metrics", "/"} {
		for host, want := range map[string]int{"evil.example": 403, "evil.example:80": 403, "127.0.0.1.evil.example": 403, "localhost": 200, "127.0.0.1": 200} {
			if r := h.page(path, hdr{"Host", host}); r.status != want {
				t.Errorf("GET %s with Host %s: %d, want %d", path, host, r.status, want)
			}
		}
		if r := h.page(path, hdr{"Origin", "http://evil.example"}); r.status != 403 {
			t.Errorf("GET %s from a foreign Origin: %d", path, r.status)
		}
	}
	if r := h.page("/metrics", nil); r.status != 200 || !strings.Contains(r.body, "target_info{") {
		t.Errorf("/metrics: %d %.200s", r.status, r.body)
	}
	if r := h.page("/no-such-page", nil); r.status != 404 {
		t.Errorf("an unknown path: %d", r.status)
	}
}

// downable is the simulated base, or (down) a port nobody listens on.
type downable struct {
	addr, closed string
	mu           sync.Mutex
	off          bool
}

func (d *downable) set(off bool) { d.mu.Lock(); d.off = off; d.mu.Unlock() }

func (d *downable) Call(ctx context.Context, frame []byte) ([]byte, error) {
	d.mu.Lock()
	addr := d.addr
	if d.off {
		addr = d.closed
	}
	d.mu.Unlock()
	return (&tcpbase.Client{Addr: addr, ConnectTimeout: time.Second}).Call(ctx, frame)
}

func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestStatusPageAndHealthz: the status page shows a question the desktop
// is asking and the call queued behind it; when CAD cannot be reached,
// /healthz answers 503 with the reason and the page says "CAD not
// reachable"; once CAD answers again, /healthz is 200. With
// MCP_BRIDGE_CHROMIUM set (make test-telemetry), the page is also read and
// photographed by headless Chromium.
func TestStatusPageAndHealthz(t *testing.T) {
	d := bridgetest.NewDesktop()
	p := bridgetest.Policy(t, bridgetest.TestPolicy, policy.Options{})
	base := &downable{closed: closedAddr(t)}
	h := newHTTPHarness(t, func(c *bridge.Config, hc *Config) {
		base.addr = c.BaseAddr
		c.Base, c.Retries, c.ProbeInterval = base, -1, -1
		c.Policy, c.Name, c.Desktop, c.ConfirmTimeout = p, "cad-test", d, time.Hour
		withMetrics(t)(c, hc)
	})
	// Before any client's call: 200, CAD not yet tried, or up when the
	// worker's first look at the tool list (it has a policy) came first.
	if r := h.page("/healthz", nil); r.status != 200 || (bridgetest.Field(t, r.body, "base") != "unknown" && bridgetest.Field(t, r.body, "base") != "up") {
		t.Fatalf("/healthz before any call: %d %s", r.status, r.body)
	}
	a := h.initialize("2025-11-25")
	asked := h.postAsync(withSession(a), bridgetest.Call(`"q"`, "delete_entities", `{"handles":["1"]}`))
	d.Question(t)
	later := h.postAsync(withSession(a), bridgetest.Call(`"later"`, "get_drawing_info", `{}`))
	bridgetest.WaitFor(t, func() bool { return bridgetest.Field(t, h.health(), "queue") == float64(2) })
	page := h.page("/", nil)
	for _, want := range []string{"delete_entities", "get_drawing_info", "desktop", "queued"} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the status page with a question out and a call queued lacks %q", want)
		}
	}
	shoot(t, h, "bridge-status-question", "delete_entities", "get_drawing_info")

	base.set(true) // CAD goes away while the user thinks
	d.Answers <- desktop.Run
	if r := within(t, asked); bridgetest.Field(t, r.body, "error.data.kind") != "unreachable" {
		t.Fatalf("the agreed call with CAD down: %s", r.body)
	}
	<-later
	r := h.page("/healthz", nil)
	if r.status != 503 || bridgetest.Field(t, r.body, "status") != "cad_unreachable" ||
		!strings.Contains(strings.ToLower(bridgetest.Field(t, r.body, "reason").(string)), "connection refused") { // Windows: "Connection refused."
		t.Errorf("/healthz with CAD down: %d %s", r.status, r.body)
	}
	if page := h.page("/", nil); !strings.Contains(page.body, "CAD not reachable") {
		t.Errorf("the status page with CAD down does not say so:\n%.2000s", page.body)
	}
	if m := h.page("/metrics", nil); !strings.Contains(m.body, "mcp_bridge_cad_reachable 0") {
		t.Errorf("/metrics with CAD down:\n%s", m.body)
	}
	shoot(t, h, "bridge-status-cad-down", "CAD not reachable")

	base.set(false)
	h.post(withSession(a), bridgetest.Call(`"back"`, "get_drawing_info", `{}`))
	if r := h.page("/healthz", nil); r.status != 200 || bridgetest.Field(t, r.body, "base") != "up" {
		t.Errorf("/healthz with CAD back: %d %s", r.status, r.body)
	}
}

// shoot reads the status page in headless Chromium when
// MCP_BRIDGE_CHROMIUM names it: its text as the browser shows it must hold
// want, and a screenshot goes to MCP_BRIDGE_TELEMETRY_SHOTS.
func shoot(t *testing.T, h *httpHarness, name string, want ...string) {
	chromium := os.Getenv("MCP_BRIDGE_CHROMIUM")
	if chromium == "" {
		return
	}
	shots := os.Getenv("MCP_BRIDGE_TELEMETRY_SHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	url := strings.TrimSuffix(h.url, "/mcp") + "/"
	dom := chromiumRun(t, chromium, url, "--dump-dom")
	for _, w := range want {
		if !strings.Contains(dom, w) {
			t.Errorf("%s: the page as Chromium reads it lacks %q", name, w)
		}
	}
	shot := filepath.Join(shots, name+".png")
	chromiumRun(t, chromium, url, "--screenshot="+shot, "--window-size=1280,1400", "--hide-scrollbars")
	if st, err := os.Stat(shot); err != nil || st.Size() < 10<<10 {
		t.Errorf("no screenshot at %s (%v)", shot, err)
	} else {
		t.Logf("screenshot: %s", shot)
	}
}

func chromiumRun(t *testing.T, chromium, url string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir=" + t.TempDir()}, args...)
	cmd := exec.CommandContext(ctx, chromium, append(all, url)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return out.String()
}
