package main

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestTelemetrySettingsChecked: what the telemetry settings refuse at
// start (exit 2, a message naming the setting), at the edge of each rule,
// and that their variables are the OTEL_* ones, not CAD_MCP_*.
func TestTelemetrySettingsChecked(t *testing.T) {
	port := startSim(t)
	base := []string{"--port", port, "--no-cache", "--probe-interval", "0"}
	tests := []struct {
		env  map[string]string
		args []string
		want string // "" for a bridge that starts (and ends with stdin)
	}{
		{nil, []string{"--metrics"}, "--metrics serves /metrics on --listen"},
		{nil, []string{"--metrics-listen", "0.0.0.0:0"}, "--metrics-listen 0.0.0.0:0 is reachable from other machines"},
		{nil, []string{"--metrics-listen", "127.0.0.1:0"}, ""},
		{nil, []string{"--metrics-listen", "0.0.0.0:0", "--allow-remote"}, ""},
		{map[string]string{"CAD_MCP_TOKEN": "s3cret"}, []string{"--metrics-listen", "0.0.0.0:0"}, ""},
		{map[string]string{"OTEL_TRACES_SAMPLER": "sometimes"}, nil, "OTEL_TRACES_SAMPLER"},
		// Not read from CAD_MCP_*: this would be refused if it were.
		{map[string]string{"CAD_MCP_METRICS": "true"}, nil, ""},
		{nil, []string{"connect", "https://cad-pc:8931/mcp", "--otel-propagate-to-base"}, "--otel-propagate-to-base is for the bridge that calls CAD"},
		{nil, []string{"connect", "https://cad-pc:8931/mcp", "--metrics"}, "--metrics serves /metrics on --listen"},
		{nil, []string{"connect", "https://cad-pc:8931/mcp", "--metrics-listen", "0.0.0.0:0"}, "connect serves it on loopback only"},
		{nil, []string{"connect", "https://cad-pc:8931/mcp", "--metrics-listen", "127.0.0.1:0", "--version"}, ""},
	}
	for _, tt := range tests {
		args := tt.args
		if len(args) == 0 || args[0] != "connect" {
			args = append(append([]string{}, base...), args...)
		}
		vars := map[string]string{"GOMAXPROCS": "2", "GOMEMLIMIT": "off"}
		for k, v := range tt.env {
			vars[k] = v
		}
		_, errs, code := runCLI(t, vars, "", args...)
		switch {
		case tt.want == "" && code != 0:
			t.Errorf("%v %v: exit %d, stderr %q; want it to start", tt.env, tt.args, code, errs)
		case tt.want != "" && (code != 2 || !strings.Contains(errs, tt.want)):
			t.Errorf("%v %v: exit %d, stderr %q; want 2 and %q", tt.env, tt.args, code, errs, tt.want)
		}
	}
}

// TestMetricsListenOnAStdioBridge: a stdio bridge serves /metrics alone on
// --metrics-listen, behind the token when one is set, and stops serving
// it when the bridge ends.
func TestMetricsListenOnAStdioBridge(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	stop := startMetricsBridge(t, []string{"--metrics-listen", addr}, map[string]string{"CAD_MCP_TOKEN": "s3cret"})
	get := func(path, auth string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get("/metrics", ""); code != 401 {
		t.Errorf("/metrics without the token: %d", code)
	}
	if code, _ := get("/metrics", "Bearer s3cre"); code != 401 {
		t.Errorf("/metrics with the token cut short: %d", code)
	}
	if code, body := get("/metrics", "Bearer s3cret"); code != 200 || !strings.Contains(body, `service_name="mcp-bridge"`) {
		t.Errorf("/metrics with the token: %d %.300s", code, body)
	}
	if code, _ := get("/mcp", "Bearer s3cret"); code != 404 {
		t.Errorf("/mcp on --metrics-listen: %d", code)
	}
	stop()
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Errorf("--metrics-listen still serves after the bridge ended")
	}
}
