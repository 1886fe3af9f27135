package status

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPageInChromium renders the page in headless Chromium (make
// test-telemetry sets MCP_BRIDGE_CHROMIUM to it, and
// MCP_BRIDGE_TELEMETRY_SHOTS to where the screenshots go): its text as the
// browser reads it says what a person must see, and the browser refused
// nothing under the page's CSP.
func TestPageInChromium(t *testing.T) {
	chromium := os.Getenv("MCP_BRIDGE_CHROMIUM")
	if chromium == "" {
		t.Skip("MCP_BRIDGE_CHROMIUM is not set (make test-telemetry sets it)")
	}
	shots := os.Getenv("MCP_BRIDGE_TELEMETRY_SHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		snap Snapshot
		want []string
	}{
		{"status-cad-down", busy(t, true), []string{"CAD not reachable", "refused the connection", "queued", "get_entities",
			"in flight", "delete_entities", "desktop", "Open questions", `evil\u202Egnp.exe`, "<script>alert(\"journal\")</script>"}},
		{"status-cad-up", busy(t, false), []string{"CAD reachable", "answering since"}},
		{"status-idle", Snapshot{Version: "v1.4.0", Serving: "stdio", Base: Base{Addr: "127.0.0.1:8080"}},
			[]string{"CAD not contacted yet", "No call in flight or queued.", "No question waits for an answer.", "No journal kept"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &Page{Snapshot: func() Snapshot { return c.snap }, Now: func() time.Time { return now }}
			srv := httptest.NewServer(p)
			defer srv.Close()
			dom, logs := runChromium(t, chromium, srv.URL+"/", "--dump-dom")
			text := domText(dom)
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("the page, as Chromium reads it, lacks %q", w)
				}
			}
			if strings.Contains(logs, "Content Security Policy") {
				t.Errorf("Chromium refused part of the page under its CSP:\n%s", logs)
			}
			shot := filepath.Join(shots, c.name+".png")
			_, _ = runChromium(t, chromium, srv.URL+"/", "--screenshot="+shot, "--window-size=1280,1500", "--hide-scrollbars")
			if st, err := os.Stat(shot); err != nil || st.Size() < 10<<10 {
				t.Errorf("no screenshot at %s (%v)", shot, err)
			} else {
				t.Logf("screenshot: %s", shot)
			}
		})
	}
}

// runChromium runs headless Chromium on url with a fresh profile and
// returns its standard output and its log.
func runChromium(t *testing.T, chromium, url string, args ...string) (stdout, logs string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}, args...)
	cmd := exec.CommandContext(ctx, chromium, append(all, url)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return out.String(), errb.String()
}

// domText is the text of a dumped DOM: tags dropped, the few entities
// html/template writes decoded.
func domText(dom string) string {
	var b strings.Builder
	in := false
	for _, r := range dom {
		switch {
		case r == '<':
			in = true
			b.WriteByte(' ')
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#34;", `"`, "&#39;", "'", "&amp;", "&").Replace(b.String())
}
