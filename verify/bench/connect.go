package bench

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/streamable/tlscert"
	"github.com/mcp-bridge/mcp-bridge/verify"
)

// The connect figures: `mcp-bridge connect` → HTTPS bridge → base, beside
// the local stdio bridge, measured in turns in the same round.
const (
	viaConnect        = "connect → HTTPS bridge" // the subject
	figConnectSmall   = "small tools/call via connect → HTTPS"
	figConnectMiB     = "tools/call, 1 MiB answer via connect → HTTPS"
	figConnectSmallPS = "connect → HTTPS ÷ stdio bridge, small call p50"
	figConnectMiBPS   = "connect → HTTPS ÷ stdio bridge, 1 MiB answer p50"
)

// connectFigures measure the first bridge through connect to an HTTPS
// bridge of its own (self-signed, pinned), against the same bridge over
// stdio and the direct call: a small call and a 1 MiB answer, and the
// ratio of connect's p50 to the stdio bridge's.
func (b *bench) connectFigures() error {
	br := b.bridges[0]
	dir, err := os.MkdirTemp(b.tmp, "tls")
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	host, port, _ := net.SplitHostPort(b.base)
	cmd := exec.Command(br.bin, "--host", host, "--port", port, "--listen", addr, "--tls-self-signed", "--cache-dir", dir, "--log-level", "error")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
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
	c, err := verify.Start(br.bin, []string{"connect", "https://" + addr + "/mcp", "--fingerprint", tlscert.Existing(dir), "--log-level", "error"}, verify.Options{Stderr: os.Stderr})
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := roundTrip(c, verify.Initialize("0", "2025-06-18")); err != nil {
		return fmt.Errorf("connect: initialize: %w", err)
	}
	local, err := b.start(br)
	if err != nil {
		return err
	}
	defer local.Close()

	figure := func(name, ratioName, frame string, runs int) error {
		b.logf("bench: %s (%d runs each)", name, runs)
		res, err := alternate(runs, map[string]func() error{
			direct:     func() error { _, err := directCall(b.base, frame); return err },
			br.name:    func() error { _, err := roundTrip(local, frame); return err },
			viaConnect: func() error { _, err := roundTrip(c, frame); return err },
		})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		b.figs.addAll(name, "µs", res)
		if s := res[br.name]; s.P50 > 0 {
			b.figs.add(ratioName, "×", viaConnect, sample{P50: res[viaConnect].P50 / s.P50})
		}
		return nil
	}
	if err := figure(figConnectSmall, figConnectSmallPS, verify.ToolCall("1", "get_drawing_info", `{}`), b.opts.Runs); err != nil {
		return err
	}
	if b.faults {
		return figure(figConnectMiB, figConnectMiBPS, verify.ToolCall("3", "fault_big", `{"mib":1}`), max(b.opts.Runs/5, 20))
	}
	return nil
}
