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
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-bridge/mcp-bridge/verify"
)

// httpServer is a subject serving HTTP (a bridge with --listen, or the
// floor with -listen), and a keep-alive client for it.
type httpServer struct {
	subject
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has been waited for
	url    string
	client *http.Client
}

// startHTTP starts a subject on a free loopback port and waits until
// /healthz answers.
func (b *bench) startHTTP(s subject) (*httpServer, error) {
	h, err := b.launchHTTP(s)
	if err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err := h.client.Get(strings.TrimSuffix(h.url, "/mcp") + "/healthz")
		if err == nil {
			resp.Body.Close()
			return h, nil
		}
		select {
		case <-h.exited:
			return nil, fmt.Errorf("%s exited instead of serving HTTP: %v", s.name, h.cmd.ProcessState)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			h.close()
			return nil, fmt.Errorf("%s did not come up: %v", s.name, err)
		}
	}
}

// launchHTTP starts a subject serving HTTP on a free loopback port, without
// waiting for it.
func (b *bench) launchHTTP(s subject) (*httpServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	args := []string{"-base", b.base, "-listen", addr}
	if s.isBridge() {
		host, port, _ := net.SplitHostPort(b.base)
		args = append([]string{"--host", host, "--port", port, "--listen", addr, "--log-level", "error"}, b.cacheFlags(s)...)
	}
	cmd := exec.Command(s.bin, args...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	h := &httpServer{subject: s, cmd: cmd, exited: make(chan struct{}), url: "http://" + addr + "/mcp",
		client: &http.Client{Timeout: answerWait, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	go func() { _ = cmd.Wait(); close(h.exited) }()
	return h, nil
}

// httpStartup measures spawn → the first initialize answered over HTTP,
// the subjects in turns, 20 times each. The port is tried again every
// 100 µs until the subject listens, so that what is measured is the
// subject's start, not the bench's waiting.
func (b *bench) httpStartup() error {
	subjects := b.bridges
	if b.floorWeb != "" {
		subjects = append([]subject{{floor, b.floorWeb}}, subjects...)
	}
	b.logf("bench: %s (20 runs each)", figHTTPStart)
	up := map[string][]time.Duration{}
	for i := range 20 {
		for j := range subjects {
			s := subjects[(i+j)%len(subjects)]
			start := time.Now()
			h, err := b.launchHTTP(s)
			if err != nil {
				return err
			}
			for deadline := start.Add(10 * time.Second); ; {
				if _, _, err = h.post("", verify.Initialize("0", "2025-06-18")); err == nil {
					break
				}
				exited := false
				select {
				case <-h.exited:
					exited = true
				case <-time.After(100 * time.Microsecond):
				}
				if exited || time.Now().After(deadline) {
					break
				}
			}
			took := time.Since(start)
			h.close()
			if err != nil {
				// An older build without --listen: left out, as in the
				// other HTTP figures.
				b.figs.note(figHTTPStart, s.name, "no HTTP: "+err.Error())
				subjects = slices.DeleteFunc(subjects, func(x subject) bool { return x.name == s.name })
				break
			}
			up[s.name] = append(up[s.name], took)
		}
	}
	for name, d := range up {
		b.figs.add(figHTTPStart, "µs", name, stats(d))
	}
	return nil
}

func (h *httpServer) close() {
	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-h.exited:
	case <-time.After(10 * time.Second):
		_ = h.cmd.Process.Kill()
		<-h.exited
	}
	h.client.CloseIdleConnections()
}

// post sends one message in a session and returns the answer body.
func (h *httpServer) post(session, body string) (string, http.Header, error) {
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

// session opens a legacy session ("" for the floor, which has none).
func (h *httpServer) session() (string, error) {
	_, hdr, err := h.post("", verify.Initialize("0", "2025-06-18"))
	if err != nil || !h.isBridge() {
		return "", err
	}
	id := hdr.Get("Mcp-Session-Id")
	if id == "" {
		return "", errors.New("initialize minted no session")
	}
	return id, nil
}

// call makes a tools/call and checks that its answer is a result.
func (h *httpServer) call(session string, i int, tool, args string) error {
	ans, _, err := h.post(session, verify.ToolCall(strconv.Itoa(i), tool, args))
	if err != nil {
		return err
	}
	if !strings.HasPrefix(ans, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"result"`) {
		return fmt.Errorf("call %d: %.200s", i, ans)
	}
	return nil
}

func (h *httpServer) small(session string, i int) error {
	return h.call(session, i, "get_drawing_info", `{}`)
}

// httpFigures are the HTTP front end's figures, against the floor serving
// HTTP and the bench calling the base itself: a small call and a 1 MiB
// answer (keep-alive, in turns), one client's and ten clients' throughput,
// and the RSS of 100 idle legacy sessions. A bridge that cannot serve HTTP
// (an older build) is left out of them.
func (b *bench) httpFigures() error {
	var servers []*httpServer
	defer func() {
		for _, h := range servers {
			h.close()
		}
	}()
	sessions := map[string]string{}
	subjects := b.bridges
	if b.floorWeb != "" {
		subjects = append([]subject{{floor, b.floorWeb}}, subjects...)
	}
	for _, s := range subjects {
		h, err := b.startHTTP(s)
		if err == nil {
			sessions[s.name], err = h.session()
			servers = append(servers, h)
		}
		if err != nil {
			b.logf("bench: HTTP: %s left out: %v", s.name, err)
			b.figs.note(figHTTPSmall, s.name, "no HTTP: "+err.Error())
		}
	}
	latency := func(name, frame string, runs int, call func(h *httpServer) error) error {
		b.logf("bench: %s (%d runs each)", name, runs)
		fns := map[string]func() error{direct: func() error { _, err := directCall(b.base, frame); return err }}
		for _, h := range servers {
			fns[h.name] = func() error { return call(h) }
		}
		res, err := alternate(runs, fns)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		b.figs.addAll(name, "µs", res)
		return nil
	}
	if err := latency(figHTTPSmall, verify.ToolCall("1", "get_drawing_info", `{}`), b.opts.Runs,
		func(h *httpServer) error { return h.small(sessions[h.name], 1) }); err != nil {
		return err
	}
	if b.faults {
		if err := latency(figHTTPMiB, verify.ToolCall("3", "fault_big", `{"mib":1}`), max(b.opts.Runs/5, 20),
			func(h *httpServer) error { return h.call(sessions[h.name], 3, "fault_big", `{"mib":1}`) }); err != nil {
			return err
		}
	}

	n := b.opts.Calls / 5
	b.logf("bench: HTTP throughput, %d calls from one client, then from ten", n)
	for _, h := range servers {
		one, ten, err := httpThroughput(h, sessions[h.name], n)
		if err != nil {
			return fmt.Errorf("%s: %w", h.name, err)
		}
		b.figs.add(figHTTPOne, "calls/s", h.name, sample{P50: one})
		b.figs.add(figHTTPTen, "calls/s", h.name, sample{P50: ten})
		b.figs.add(figHTTPTenOne, "", h.name, sample{P50: ten / one})
	}
	b.figs.note(figHTTPOne, "", fmt.Sprintf("%d calls", n))

	b.logf("bench: RSS with 100 idle legacy sessions")
	for _, h := range servers {
		if !h.isBridge() {
			continue
		}
		for range 100 {
			if _, err := h.session(); err != nil {
				return err
			}
		}
		time.Sleep(100 * time.Millisecond)
		b.figs.addMem(figHTTPRSS, h.name, h.cmd.Process.Pid, "VmRSS")
	}
	return nil
}

// httpThroughput makes n small calls from one client, then n from ten
// clients (each in its own session), and returns both in calls/s.
func httpThroughput(h *httpServer, sid string, n int) (one, ten float64, err error) {
	start := time.Now()
	for i := range n {
		if err := h.small(sid, i); err != nil {
			return 0, 0, err
		}
	}
	one = float64(n) / time.Since(start).Seconds()
	sessions := make([]string, 10)
	for i := range sessions {
		if sessions[i], err = h.session(); err != nil {
			return 0, 0, err
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(sessions))
	start = time.Now()
	for c, id := range sessions {
		wg.Go(func() {
			for i := c; i < n; i += len(sessions) {
				if err := h.small(id, i); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	ten = float64(n) / time.Since(start).Seconds()
	close(errs)
	return one, ten, <-errs
}
