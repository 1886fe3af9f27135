package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-bridge/mcp-bridge/verify"
)

// httpBridge is a bridge child serving Streamable HTTP, and a keep-alive
// client for it.
type httpBridge struct {
	cmd    *exec.Cmd
	url    string
	client *http.Client
}

// startHTTPBridge starts a bridge with --listen on a free loopback port and
// waits until /healthz answers.
func startHTTPBridge(bin, base string) (*httpBridge, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	host, port, _ := net.SplitHostPort(base)
	cmd := exec.Command(bin, "--host", host, "--port", port, "--listen", addr, "--log-level", "error", "--no-cache")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return waitHTTP(cmd, addr)
}

// waitHTTP waits until the child serving HTTP at addr answers /healthz.
func waitHTTP(cmd *exec.Cmd, addr string) (*httpBridge, error) {
	h := &httpBridge{cmd: cmd, url: "http://" + addr + "/mcp",
		client: &http.Client{Timeout: answerWait, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err := h.client.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			return h, nil
		}
		if time.Now().After(deadline) {
			h.close()
			return nil, fmt.Errorf("the HTTP bridge did not come up: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (h *httpBridge) close() {
	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = h.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = h.cmd.Process.Kill()
		<-done
	}
}

// post sends one message in a session and returns the answer body.
func (h *httpBridge) post(session, body string) (string, http.Header, error) {
	req, err := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
	if err != nil {
		return "", nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return "", nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return "", nil, fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, b)
	}
	return string(bytes.TrimSpace(b)), resp.Header, nil
}

// session opens a legacy session.
func (h *httpBridge) session() (string, error) {
	_, hdr, err := h.post("", verify.Initialize("0", "2025-06-18"))
	if err != nil {
		return "", err
	}
	id := hdr.Get("Mcp-Session-Id")
	if id == "" {
		return "", errors.New("initialize minted no session")
	}
	return id, nil
}

func (h *httpBridge) call(session string, i int) error {
	ans, _, err := h.post(session, verify.ToolCall(strconv.Itoa(i), "get_drawing_info", `{}`))
	if err != nil {
		return err
	}
	if !strings.HasPrefix(ans, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"result"`) {
		return fmt.Errorf("call %d: %.200s", i, ans)
	}
	return nil
}

// expectBig posts a call whose answer is about 1 MiB.
func (h *httpBridge) expectBig(session, frame string) error {
	ans, _, err := h.post(session, frame)
	if err == nil && len(ans) < 1<<20 {
		err = fmt.Errorf("1 MiB answer came back with %d bytes: %.200s", len(ans), ans)
	}
	return err
}

// httpFigures are the HTTP front end's figures beside the stdio ones, from
// the same run: a small call over HTTP (keep-alive) against the same call
// over stdio, ten clients' throughput against one's, and the RSS of 100
// idle legacy sessions.
func httpFigures(opts Options, base string, stdio *verify.Bridge, fl *floor, faults bool, rep *Report, logf func(string, ...any)) error {
	h, err := startHTTPBridge(opts.Bridge, base)
	if err != nil {
		return err
	}
	defer h.close()
	sid, err := h.session()
	if err != nil {
		return err
	}
	var relay *httpBridge
	if fl != nil {
		if relay, err = fl.startHTTP(); err != nil {
			return fmt.Errorf("the floor relay: %w", err)
		}
		defer relay.close()
	}

	logf("bench: small tools/call over HTTP (keep-alive) vs stdio (%d runs each way)", opts.Runs)
	frame := verify.ToolCall("1", "get_drawing_info", `{}`)
	fns := []func() error{
		func() error { _, err := roundTrip(stdio, frame); return err },
		func() error { return h.call(sid, 1) },
	}
	if relay != nil {
		fns = append(fns, func() error { return relay.call("relay", 1) })
	}
	st, err := alternateN(opts.Runs, fns...)
	if err != nil {
		return fmt.Errorf("HTTP vs stdio: %w", err)
	}
	s, ht := st[0], st[1]
	ratio := ht.P50 / s.P50
	f := Figure{Name: "small tools/call over HTTP (keep-alive)", Unit: "µs", Direct: s, Bridged: ht, Ratio: ratio,
		Target: "p50 HTTP / stdio ≤ 1.2", Met: met(ratio <= 1.2), Note: "direct column: the same call over stdio; floor: the HTTP relay"}
	if relay != nil {
		f = withFloor(f, st[2])
	}
	rep.Figures = append(rep.Figures, f)

	if faults && relay != nil {
		runs := max(opts.Runs/5, 20)
		logf("bench: 1 MiB answer over HTTP vs the HTTP relay (%d runs each way)", runs)
		big := verify.ToolCall("3", "fault_big", `{"mib":1}`)
		st, err := alternateN(runs,
			func() error { return h.expectBig(sid, big) },
			func() error { return relay.expectBig("relay", big) })
		if err != nil {
			return fmt.Errorf("1 MiB over HTTP: %w", err)
		}
		vs := st[0].P50 / st[1].P50
		rep.Figures = append(rep.Figures, Figure{Name: "tools/call, 1 MiB answer over HTTP", Unit: "µs", Bridged: st[0], Floor: st[1], VsFloor: vs,
			Target: "p50 ≤ 1.15 × floor", Met: met(vs <= 1.15)})
	}

	n := opts.Calls / 5
	logf("bench: HTTP throughput, %d calls from one client, then from ten", n)
	start := time.Now()
	for i := range n {
		if err := h.call(sid, i); err != nil {
			return err
		}
	}
	one := float64(n) / time.Since(start).Seconds()
	sessions := make([]string, 10)
	for i := range sessions {
		if sessions[i], err = h.session(); err != nil {
			return err
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(sessions))
	start = time.Now()
	for c, id := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; i < n; i += len(sessions) {
				if err := h.call(id, i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	ten := float64(n) / time.Since(start).Seconds()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	tr := ten / one
	rep.Figures = append(rep.Figures, Figure{Name: fmt.Sprintf("HTTP throughput, %d calls: ten clients vs one", n), Unit: "calls/s",
		Direct: &Stats{P50: one, N: n}, Bridged: &Stats{P50: ten, N: n}, Ratio: tr,
		Target: "ten / one ≥ 0.9", Met: met(tr >= 0.9), Note: "direct column: one client"})

	logf("bench: RSS with 100 idle legacy sessions")
	for range 100 {
		if _, err := h.session(); err != nil {
			return err
		}
	}
	time.Sleep(100 * time.Millisecond)
	rep.Figures = append(rep.Figures, memFigure("HTTP RSS with 100 idle legacy sessions", h.cmd.Process.Pid, "VmRSS", 20))
	return nil
}
