package connect

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/streamable"
)

// silentRemote is a raw TCP listener that speaks just enough HTTP: it
// reads a request whole (answering 100 Continue when asked, as a server
// does), writes before (maybe nothing), and then neither writes nor
// closes, as a remote whose machine vanished looks from here (no FIN, no
// RST). It counts the tools/call requests it read.
func silentRemote(t *testing.T, before string) (url string, calls *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	calls = &atomic.Int32{}
	var mu sync.Mutex
	var conns []net.Conn
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				if req.Header.Get("Expect") != "" {
					io.WriteString(c, "HTTP/1.1 100 Continue\r\n\r\n")
				}
				body, _ := io.ReadAll(req.Body)
				if strings.Contains(string(body), `"tools/call"`) {
					calls.Add(1)
				}
				io.WriteString(c, before)
				io.Copy(io.Discard, c) // silent until the test ends, or connect closes
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/mcp", calls
}

// TestSilentRemote: a remote that took a call and then goes silent, before
// any of its answer, after the headers of an SSE stream, or in the middle
// of a JSON body. Within the idle bound (AnswerIdle; small here) the
// client gets -32603 that the call may have run and was not sent again,
// and the call reached the remote once. Before, connect waited for ever.
func TestSilentRemote(t *testing.T) {
	for name, before := range map[string]string{
		"nothing":          "",
		"an SSE stream":    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n: keepalive\n\n",
		"half a JSON body": "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\",",
	} {
		t.Run(name, func(t *testing.T) {
			url, calls := silentRemote(t, before)
			c := startConnect(t, Config{URL: url, answerIdle: 100 * time.Millisecond, Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.ErrorLevel)})
			c.send(modernCall)
			msg, kind := errorOf(c.answer("1"))
			if kind != "connection_lost" || !strings.Contains(msg, "may have run") || !strings.Contains(msg, "not sent again") || !strings.Contains(msg, "sent nothing for 100ms") {
				t.Errorf("answer: %q (%s)", msg, kind)
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("the remote got the call %d times, want once", n)
			}
		})
	}
}

// TestSilentRemoteList: a request that changes nothing, to a remote gone
// silent, is not sent again either (it would wait as long once more): it
// ends with an error that says so, and the next ping is answered here.
func TestSilentRemoteList(t *testing.T) {
	url, _ := silentRemote(t, "")
	c := startConnect(t, Config{URL: url, answerIdle: 100 * time.Millisecond, PingTimeout: time.Hour, Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.ErrorLevel)})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	msg, kind := errorOf(c.answer("1"))
	if kind != "connection_lost" || !strings.Contains(msg, "tools/list") || !strings.Contains(msg, "sent nothing") {
		t.Errorf("answer: %q (%s)", msg, kind)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if m := c.answer("2"); m["result"] == nil {
		t.Errorf("ping after the remote went silent: %v", m)
	}
}

// TestLongCallKeptAlive: a remote mcp-bridge working on a call for more
// than twice the idle bound is not cut off: it sends a keep-alive comment
// each KeepAlive (small here, far below the bound), turning the call's
// JSON answer into an SSE stream, and the answer arrives. The bound is
// wide (2.5 s against 10 ms keep-alives) so that only a missing keep-alive
// fails it, not a busy machine's pause (a 1 s bound could be outwaited by
// a stall of the whole test process under -race beside other packages).
func TestLongCallKeptAlive(t *testing.T) {
	const idle = 2500 * time.Millisecond
	r := newRemoteFull(t, nil, func(hc *streamable.Config) { hc.KeepAlive = 10 * time.Millisecond })
	cfg := r.config(t)
	cfg.answerIdle = idle
	c := startConnect(t, cfg)
	c.handshake("2025-06-18")
	c.send(call("1", "fault_sleep", `{"ms":6000}`))
	m := c.answer("1")
	if msg, _ := errorOf(m); msg != "" || m["result"] == nil {
		t.Fatalf("a long call through a live remote: %v", m)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fault_sleep","arguments":{"ms":6000},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if m := c.answer("2"); m["result"] == nil {
		t.Fatalf("a long stateless call through a live remote: %v", m)
	}
}
