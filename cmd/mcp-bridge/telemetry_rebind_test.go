package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestMetricsListenRefusesRebinding: --metrics-listen on loopback without
// a token is what a page on another site reaches by DNS rebinding (its
// name rebound to 127.0.0.1, the browser sends its own name as Host) or
// by a cross-site request (Origin): both are refused as /mcp refuses
// them, while a scraper naming the address or a loopback name is served.
func TestMetricsListenRefusesRebinding(t *testing.T) {
	addr, mport := freeAddr(t, "127.0.0.1")
	serveMetricsAt(t, []string{"--metrics-listen", addr}, addr, []hostCase{
		{addr, "", 200},
		{"localhost:" + mport, "", 200},
		{"evil.example:" + mport, "", 403},
		{"127.0.0.1.evil.example:" + mport, "", 403},
		{addr, "http://evil.example:" + mport, 403},
		{addr, "null", 403},
		{addr, "http://localhost:" + mport, 200},
	})
}

// TestMetricsListenOnEveryInterface: with --allow-remote and no token,
// --metrics-listen on every interface serves a scraper that names any
// address of the machine, and refuses a name (DNS rebinding needs one).
func TestMetricsListenOnEveryInterface(t *testing.T) {
	addr, mport := freeAddr(t, "0.0.0.0")
	serveMetricsAt(t, []string{"--metrics-listen", addr, "--allow-remote"}, "127.0.0.1:"+mport, []hostCase{
		{"127.0.0.1:" + mport, "", 200},
		{"10.0.0.21:" + mport, "", 200},
		{"cad-pc-12:" + mport, "", 403},
	})
}

type hostCase struct {
	host, origin string
	want         int
}

func freeAddr(t *testing.T, host string) (addr, port string) {
	ln, err := net.Listen("tcp", host+":0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	_, port, _ = net.SplitHostPort(addr)
	ln.Close()
	return addr, port
}

// serveMetricsAt runs a stdio bridge with args and asks dial's /metrics
// as each case says.
func serveMetricsAt(t *testing.T, args []string, dial string, cases []hostCase) {
	stop := startMetricsBridge(t, args, nil)
	get := func(host, origin string) int {
		req, _ := http.NewRequest(http.MethodGet, "http://"+dial+"/metrics", nil)
		req.Host = host
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatalf("GET /metrics as %s: %v", host, err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	for _, c := range cases {
		if got := get(c.host, c.origin); got != c.want {
			t.Errorf("GET /metrics, Host %s, Origin %q: %d, want %d", c.host, c.origin, got, c.want)
		}
	}
	stop()
}

// startMetricsBridge runs a stdio bridge in this process with args (after
// the simulated base's port) and the environment vars, and returns once
// it logs that it serves /metrics; stop closes its stdin and waits for it
// to end.
func startMetricsBridge(t *testing.T, args []string, vars map[string]string) (stop func()) {
	t.Helper()
	port := startSim(t)
	env0 := map[string]string{"GOMAXPROCS": "2", "GOMEMLIMIT": "off"}
	for k, v := range vars {
		env0[k] = v
	}
	inR, inW := io.Pipe()
	logR, logW := io.Pipe()
	e := &env{args: append([]string{"--port", port, "--no-cache", "--log-format", "json"}, args...),
		getenv: func(k string) string { return env0[k] }, stdin: inR, stdout: io.Discard, stderr: logW}
	done := make(chan error, 1)
	go func() { done <- run(context.Background(), e); logW.Close() }()
	sc := bufio.NewScanner(logR)
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil && line["message"] == "serving metrics" {
			break
		}
	}
	go io.Copy(io.Discard, logR)
	return func() {
		t.Helper()
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("the bridge: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("the bridge did not end with its stdin")
		}
	}
}
