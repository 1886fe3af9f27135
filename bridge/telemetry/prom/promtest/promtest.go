// Package promtest runs a real Prometheus server for tests (make
// test-telemetry installs Debian's): it scrapes a bridge's /metrics and
// answers queries through its HTTP API, as a site's Prometheus would.
package promtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Server is a running Prometheus server.
type Server struct{ api string }

// Start runs the Prometheus server bin scraping target's /metrics every
// second (with token as a bearer token, when not ""), its data in a
// temporary folder; it is killed when the test ends, its log shown if the
// test failed.
func Start(t *testing.T, bin, target, token string) *Server {
	t.Helper()
	dir := t.TempDir()
	auth := ""
	if token != "" {
		auth = fmt.Sprintf("    authorization: {credentials: %q}\n", token)
	}
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: mcp-bridge\n%s    static_configs:\n      - targets: [%q]\n", auth, target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0") // a free port for its API: taken, released, handed over
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("prometheus log:\n%s", b)
		}
	})
	p := &Server{api: "http://" + addr}
	for deadline := time.Now().Add(2 * time.Minute); ; {
		if resp, err := http.Get(p.api + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		select {
		case <-exited:
			t.Fatal("prometheus exited at start")
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("prometheus not ready after 2 minutes")
		}
	}
}

// Query returns an instant query's single value, or false when it has no
// result; more than one result fails the test.
func (p *Server) Query(t *testing.T, q string) (float64, bool) {
	t.Helper()
	resp, err := http.Get(p.api + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var r struct {
		Status string
		Data   struct{ Result []struct{ Value [2]any } }
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Status != "success" {
		t.Fatalf("query %s: %v %s", q, err, body)
	}
	switch len(r.Data.Result) {
	case 0:
		return 0, false
	case 1:
		s, _ := r.Data.Result[0].Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("query %s: value %q", q, s)
		}
		return v, true
	}
	t.Fatalf("query %s: %d results, want one: %s", q, len(r.Data.Result), strings.TrimSpace(string(body)))
	return 0, false
}

// Value is Query's value; no result is an error (and -1).
func (p *Server) Value(t *testing.T, q string) float64 {
	t.Helper()
	v, ok := p.Query(t, q)
	if !ok {
		t.Errorf("query %s: no result", q)
		return -1
	}
	return v
}

// WaitFor polls q until it gives want (a scrape has seen it), for up to
// two minutes.
func (p *Server) WaitFor(t *testing.T, q string, want float64) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; {
		if v, ok := p.Query(t, q); ok && v == want {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("%s is %v (present: %v) after 2 minutes, want %v", q, v, ok, want)
		}
		time.Sleep(200 * time.Millisecond) // a poll interval, not a wait for an event
	}
}
