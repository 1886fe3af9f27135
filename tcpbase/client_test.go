package tcpbase_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

func startSim(t *testing.T, opts simbase.Options) *simbase.Server {
	t.Helper()
	s, err := simbase.Start("127.0.0.1:0", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func callFrame(id, tool, args string) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args))
}

// freePort returns a loopback address where nothing listens.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestCallRoundTrip(t *testing.T) {
	for _, newline := range []bool{false, true} {
		t.Run(fmt.Sprintf("newline=%v", newline), func(t *testing.T) {
			sim := startSim(t, simbase.Options{Faults: true, Newline: newline})
			c := &tcpbase.Client{Addr: sim.Addr()}
			ans, err := c.Call(context.Background(), []byte(`{"jsonrpc":"2.0","id":"x","method":"tools/list"}`))
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				ID     string `json:"id"`
				Result struct {
					Tools []struct{ Name string } `json:"tools"`
				} `json:"result"`
			}
			if err := json.Unmarshal(ans, &got); err != nil {
				t.Fatal(err)
			}
			if got.ID != "x" || len(got.Result.Tools) < 26 {
				t.Fatalf("tools/list: id %q, %d tools", got.ID, len(got.Result.Tools))
			}
		})
	}
}

func TestDrawingStatePersistsAcrossConnections(t *testing.T) {
	sim := startSim(t, simbase.Options{})
	c := &tcpbase.Client{Addr: sim.Addr()}
	ctx := context.Background()
	info := func() string {
		ans, err := c.Call(ctx, callFrame("1", "get_drawing_info", `{}`))
		if err != nil {
			t.Fatal(err)
		}
		return string(ans)
	}
	if !strings.Contains(info(), "0 entities") {
		t.Fatalf("new sim not empty: %s", info())
	}
	if _, err := c.Call(ctx, callFrame("2", "draw_line", `{"start":{"x":0,"y":0},"end":{"x":10,"y":0}}`)); err != nil {
		t.Fatal(err)
	}
	if got := info(); !strings.Contains(got, "1 entity") || !strings.Contains(got, "(0, 0) - (10, 0)") {
		t.Fatalf("after draw_line: %s", got)
	}
	if _, err := c.Call(ctx, callFrame("3", "undo", `{}`)); err != nil {
		t.Fatal(err)
	}
	if got := info(); !strings.Contains(got, "0 entities") {
		t.Fatalf("after undo: %s", got)
	}
}

func TestSimProtocol(t *testing.T) {
	sim := startSim(t, simbase.Options{})
	c := &tcpbase.Client{Addr: sim.Addr()}
	tests := []struct{ name, frame, want string }{
		{"unknown tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool: nope"}}`},
		{"initialize", `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: initialize"}}`},
		{"ping", `{"jsonrpc":"2.0","id":"p","method":"ping"}`,
			`{"jsonrpc":"2.0","id":"p","error":{"code":-32601,"message":"Method not found: ping"}}`},
		{"bad arguments", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"draw_circle","arguments":{"center":{"x":0,"y":0}}}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"Invalid arguments for draw_circle: missing required argument 'radius'"}],"isError":true}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Call(context.Background(), []byte(tt.frame))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// A notification gets no answer: the base just closes.
	_, err := c.Call(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if !errors.Is(err, tcpbase.ErrClosed) {
		t.Fatalf("notification: err = %v, want ErrClosed", err)
	}
}

func TestErrorKinds(t *testing.T) {
	sim := startSim(t, simbase.Options{Faults: true})
	down := freePort(t)
	tests := []struct {
		name    string
		addr    string
		tool    string
		args    string
		timeout time.Duration
		max     int
		want    *tcpbase.Kind
	}{
		{"refused", down, "get_drawing_info", `{}`, time.Second, 0, tcpbase.ErrUnreachable},
		{"closed without answer", sim.Addr(), "fault_close", `{}`, time.Second, 0, tcpbase.ErrClosed},
		{"garbage", sim.Addr(), "fault_garbage", `{}`, time.Second, 0, tcpbase.ErrMalformed},
		{"half a value", sim.Addr(), "fault_half", `{}`, time.Second, 0, tcpbase.ErrMalformed},
		{"too large", sim.Addr(), "fault_big", `{"mib":2}`, 5 * time.Second, 1 << 20, tcpbase.ErrTooLarge},
		{"hang", sim.Addr(), "fault_hang", `{}`, 200 * time.Millisecond, 0, tcpbase.ErrTimeout},
		{"slow", sim.Addr(), "fault_sleep", `{"ms":5000}`, 200 * time.Millisecond, 0, tcpbase.ErrTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &tcpbase.Client{Addr: tt.addr, MaxAnswer: tt.max}
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			_, err := c.Call(ctx, callFrame("1", tt.tool, tt.args))
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want kind %v", err, tt.want)
			}
			var e *tcpbase.Error
			if !errors.As(err, &e) || e.Addr != tt.addr {
				t.Fatalf("error does not carry the address %s: %#v", tt.addr, err)
			}
			for _, other := range []*tcpbase.Kind{tcpbase.ErrUnreachable, tcpbase.ErrTimeout, tcpbase.ErrClosed, tcpbase.ErrMalformed, tcpbase.ErrTooLarge} {
				if other != tt.want && errors.Is(err, other) {
					t.Errorf("err also matches %v", other)
				}
			}
		})
	}
}

func TestRefusedIsMarked(t *testing.T) {
	c := &tcpbase.Client{Addr: freePort(t)}
	_, err := c.Call(context.Background(), callFrame("1", "x", `{}`))
	var e *tcpbase.Error
	if !errors.As(err, &e) || !e.Refused {
		t.Fatalf("err = %#v, want Refused", err)
	}
}

func TestCancelClosesAtOnce(t *testing.T) {
	sim := startSim(t, simbase.Options{Faults: true})
	c := &tcpbase.Client{Addr: sim.Addr()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Call(ctx, callFrame("1", "fault_hang", `{}`))
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, tcpbase.ErrCanceled) {
			t.Fatalf("err = %v, want ErrCanceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Call did not return after cancel")
	}
}

func TestAnswerShapes(t *testing.T) {
	sim := startSim(t, simbase.Options{Faults: true})
	c := &tcpbase.Client{Addr: sim.Addr()}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// Pretty-printed across lines: still one value.
	ans, err := c.Call(ctx, callFrame(`"p"`, "fault_pretty", `{}`))
	if err != nil || !json.Valid(ans) || !strings.Contains(string(ans), "\n") {
		t.Fatalf("pretty: %v %q", err, ans)
	}
	// Answered but left open: served at the value's end, not at a timeout.
	ans, err = c.Call(ctx, callFrame("2", "fault_keep_open", `{}`))
	if err != nil || !strings.Contains(string(ans), "socket left open") {
		t.Fatalf("keep open: %v %q", err, ans)
	}
	// 15 MiB fits under the default cap.
	ans, err = c.Call(ctx, callFrame("3", "fault_big", `{"mib":15}`))
	if err != nil || len(ans) < 15<<20 {
		t.Fatalf("15 MiB: %v, %d bytes", err, len(ans))
	}
}

// oneAnswer is a base that takes one connection, reads the request line,
// answers with answer and closes; it returns its address.
func oneAnswer(t *testing.T, answer func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go answerOne(ln, answer)
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

func answerOne(ln net.Listener, answer func(c net.Conn)) {
	c, err := ln.Accept()
	if err != nil {
		return
	}
	defer c.Close()
	_, _ = bufio.NewReader(c).ReadSlice('\n')
	answer(c)
}

// Whitespace before the answer is discarded as it streams: 8 MiB of it
// costs no memory, and does not count against the cap.
func TestLeadingWhitespaceNotHeld(t *testing.T) {
	addr := oneAnswer(t, func(c net.Conn) {
		spaces := bytes.Repeat([]byte(" \n\t\r"), 1<<10)
		for range 2 << 10 { // 8 MiB
			if _, err := c.Write(spaces); err != nil {
				return
			}
		}
		_, _ = c.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	})
	c := &tcpbase.Client{Addr: addr, MaxAnswer: 1 << 20}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ans, err := c.Call(context.Background(), callFrame("1", "x", `{}`))
	runtime.ReadMemStats(&after)
	if err != nil || string(ans) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("Call = %q, %v", ans, err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("%d bytes allocated for 8 MiB of whitespace and a tiny answer", got)
	}
}

// TestHalfALargeValue: a base that closes in the middle of an answer of
// several chunks (here a string left open) gave half a value, whatever its
// size: ErrMalformed, the bytes that came and nothing else.
func TestHalfALargeValue(t *testing.T) {
	for _, size := range []int{40 << 10, 3 << 20} {
		addr := oneAnswer(t, func(c net.Conn) {
			_, _ = c.Write(append([]byte(`{"jsonrpc":"2.0","id":1,"result":"`), bytes.Repeat([]byte("x"), size)...))
		})
		c := &tcpbase.Client{Addr: addr}
		if _, err := c.Call(context.Background(), callFrame("1", "x", `{}`)); !errors.Is(err, tcpbase.ErrMalformed) {
			t.Errorf("%d bytes of half a value: err = %v, want ErrMalformed", size, err)
		}
	}
}

// TestAnswersAreTheirOwn: an answer is the caller's to keep: the calls
// after it, which read into the same buffers, leave it as it came.
func TestAnswersAreTheirOwn(t *testing.T) {
	sim := startSim(t, simbase.Options{Faults: true})
	c := &tcpbase.Client{Addr: sim.Addr()}
	first, err := c.Call(context.Background(), callFrame(`"first"`, "get_drawing_info", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	// one that fills the first (pooled) chunk and goes on into others
	second, err := c.Call(context.Background(), callFrame(`"second"`, "fault_big", `{"mib":0.04}`))
	if err != nil || len(second) < 40<<10 {
		t.Fatalf("40 KiB answer: %d bytes, %v", len(second), err)
	}
	kept, kept2 := string(first), string(second)
	for i := range 20 {
		if _, err := c.Call(context.Background(), callFrame(fmt.Sprintf(`"later-%d"`, i), "fault_big", `{"mib":0.01}`)); err != nil {
			t.Fatal(err)
		}
	}
	if string(first) != kept {
		t.Fatalf("the first answer changed under later calls:\nwas %.100s\nnow %.100s", kept, first)
	}
	if string(second) != kept2 {
		t.Fatalf("the second answer changed under later calls:\nwas %.100s\nnow %.100s", kept2, second)
	}
}
