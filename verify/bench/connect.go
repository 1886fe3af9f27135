package bench

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/tlscert"
	"github.com/mcp-bridge/mcp-bridge/verify"
)

// connectFigures put `mcp-bridge connect` → HTTPS bridge beside the local
// stdio bridge, in the same run: a small call and a 1 MiB answer, each as
// the ratio of their p50s.
func connectFigures(opts Options, base string, stdio *verify.Bridge, faults bool, rep *Report, logf func(string, ...any)) error {
	dir, err := os.MkdirTemp("", "mcp-bridge-bench-tls")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	host, port, _ := net.SplitHostPort(base)
	cmd := exec.Command(opts.Bridge, "--host", host, "--port", port, "--listen", addr, "--tls-self-signed", "--cache-dir", dir, "--log-level", "error", "--no-cache")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer (&httpBridge{cmd: cmd}).close()
	probe := &http.Client{Timeout: time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		resp, err := probe.Get("https://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the HTTPS bridge did not come up: %v", err)
		}
	}
	c, err := verify.Start(opts.Bridge, []string{"connect", "https://" + addr + "/mcp", "--fingerprint", tlscert.Existing(dir), "--log-level", "error"}, verify.Options{Stderr: os.Stderr})
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := roundTrip(c, verify.Initialize("0", "2025-06-18")); err != nil {
		return err
	}
	figure := func(name, frame string, runs int, target float64) error {
		logf("bench: %s via connect → HTTPS vs stdio (%d runs each way)", name, runs)
		s, cn, err := alternate(runs,
			func() error { _, err := roundTrip(stdio, frame); return err },
			func() error { _, err := roundTrip(c, frame); return err })
		if err != nil {
			return fmt.Errorf("connect vs stdio: %w", err)
		}
		f := Figure{Name: name + " via connect → HTTPS", Unit: "µs", Direct: s, Bridged: cn, Ratio: cn.P50 / s.P50, Note: "direct column: the local stdio bridge"}
		if target > 0 {
			f.Target, f.Met = fmt.Sprintf("p50 connect / stdio ≤ %.0f", target), met(f.Ratio <= target)
		}
		rep.Figures = append(rep.Figures, f)
		return nil
	}
	if err := figure("small tools/call", verify.ToolCall("1", "get_drawing_info", `{}`), opts.Runs, 2); err != nil {
		return err
	}
	if faults {
		return figure("tools/call, 1 MiB answer", verify.ToolCall("3", "fault_big", `{"mib":1}`), max(opts.Runs/5, 20), 0)
	}
	return nil
}
