package bridge

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

func TestEOFAnswersEverythingAccepted(t *testing.T) {
	h := newHarness(t, nil, nil)
	for i := range 5 {
		h.send(call(fmt.Sprint(i), "fault_sleep", `{"ms":50}`))
	}
	rest := h.closeAndWait()
	if len(rest) != 5 {
		t.Fatalf("%d answers after EOF, want 5: %q", len(rest), rest)
	}
	for i, l := range rest {
		if field(t, l, "id") != float64(i) || field(t, l, "result.isError") != false {
			t.Errorf("answer %d: %s", i, l)
		}
	}
	h.checkExactlyOnce()
}

func TestSignalFinishesInFlightAndDropsQueue(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.Grace = 5 * time.Second })
	h.send(call("1", "fault_sleep", `{"ms":300}`), call("2", "draw_line", `{"start":{"x":0,"y":0},"end":{"x":1,"y":0}}`), pingP)
	h.expect(pongP) // the reader has queued 2 before the signal
	waitFor(t, func() bool { return h.sim.CallsFor("1") == 1 })
	h.skipCount("2")
	h.cancel() // as a SIGTERM would
	var got []string
	for l := range h.lines {
		got = append(got, l)
	}
	// The worker answers in order: the call in flight finishes, then the
	// queued one is answered without being sent.
	want := []string{
		textResult("1", "slept 300 ms", false),
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"mcp-bridge is shutting down; tools/call was not sent to CAD"}}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := <-h.done; err != nil {
		t.Fatal(err)
	}
	h.checkExactlyOnce()
}

func TestSignalGraceAbandonsLongCall(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.Grace = 100 * time.Millisecond })
	h.send(call("1", "fault_hang", `{}`))
	waitFor(t, func() bool { return h.sim.CallsFor("1") == 1 })
	h.cancel()
	got := h.recv()
	if field(t, got, "error.data.kind") != "shutdown" {
		t.Fatalf("got %s", got)
	}
	select {
	case err := <-h.done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Run did not return after the grace period")
	}
}

func TestStdoutClosedStopsRun(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	cfg := Config{Base: baseFunc(func(context.Context, []byte) ([]byte, error) { return nil, nil }), BaseAddr: "x"}
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), cfg, inR, failingWriter{}) }()
	_, _ = inW.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"))
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "stdout") {
			t.Fatalf("Run = %v, want a stdout error", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Run went on with a dead stdout")
	}
}

// The first failed write, here the worker's, stops the bridge: nothing more
// reaches CAD, and Run fails although stdin is still open.
func TestWorkerWriteFailureStopsEverything(t *testing.T) {
	g := newGateBase()
	h := newHarness(t, nil, func(c *Config) { c.Base = g })
	h.send(call("1", "x", `{}`), call("2", "x", `{}`), call("3", "x", `{}`), pingP)
	g.waitStarted(t, "1")
	h.expect(pongP) // 2 and 3 are queued
	h.stdout.kill()
	g.releaseOne() // 1's answer is the first write to fail
	select {
	case err := <-h.done:
		if err == nil || !strings.Contains(err.Error(), "stdout") {
			t.Fatalf("Run = %v, want a stdout error", err)
		}
	case <-time.After(waitLimit):
		g.releaseAll()
		t.Fatal("Run went on with a dead stdout and stdin open")
	}
	if diff := cmp.Diff([]string{"1"}, g.seen()); diff != "" {
		t.Errorf("calls that reached CAD (-want +got):\n%s", diff)
	}
}

// At the end of stdin with a dead stdout, the queue is not drained into CAD.
func TestEOFWithDeadStdoutDoesNotDrain(t *testing.T) {
	g := newGateBase()
	h := newHarness(t, nil, func(c *Config) { c.Base = g })
	h.send(call("1", "x", `{}`), call("2", "x", `{}`), call("3", "x", `{}`))
	g.waitStarted(t, "1")
	h.stdout.kill()
	h.stdin.Close()
	g.releaseAll()
	select {
	case err := <-h.done:
		if err == nil {
			t.Fatal("Run = nil, want a stdout error")
		}
	case <-time.After(waitLimit):
		t.Fatal("Run did not return")
	}
	if diff := cmp.Diff([]string{"1"}, g.seen()); diff != "" {
		t.Errorf("calls that reached CAD (-want +got):\n%s", diff)
	}
}

// TestClientStopsReading: a client that stops reading stdout for a while
// blocks the bridge's writes; nothing is lost and nothing grows without
// bound (the queue limit refuses what does not fit), and everything flows
// again when it reads.
func TestClientStopsReading(t *testing.T) {
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	cfg := Config{Base: &tcpbase.Client{Addr: sim.Addr()}, BaseAddr: sim.Addr(), Queue: 8}
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), cfg, inR, outW); outW.Close() }()

	const n = 50
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := range n {
			fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_drawing_info","arguments":{}}}`+"\n", i)
		}
		inW.Close()
	}()
	time.Sleep(300 * time.Millisecond) // the client is not reading
	var out bytes.Buffer
	if _, err := io.Copy(&out, outR); err != nil {
		t.Fatal(err)
	}
	<-sent
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	answered := map[string]int{}
	for _, l := range lines {
		if !isMessageLine(l) {
			t.Fatalf("bad line %q", l)
		}
		answered[string(rpc.Field([]byte(l), "id"))]++
	}
	refused := 0
	for i := range n {
		id := fmt.Sprint(i)
		if answered[id] != 1 {
			t.Errorf("id %s answered %d times", id, answered[id])
		}
		if sim.CallsFor(id) == 0 {
			refused++
		}
	}
	if int(sim.Calls())+refused != n {
		t.Errorf("%d calls ran, %d refused, of %d", sim.Calls(), refused, n)
	}
	t.Logf("%d of %d calls ran, %d refused by the queue limit while the client did not read", sim.Calls(), n, refused)
}

// TestRunLeavesNothingBehind: after Run returns, in every way it can end,
// none of its goroutines and none of its connections remain.
func TestRunLeavesNothingBehind(t *testing.T) {
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Faults: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	before := runtime.NumGoroutine()
	for _, end := range []string{"eof", "signal", "stdout"} {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		cfg := Config{Base: &tcpbase.Client{Addr: sim.Addr()}, BaseAddr: sim.Addr(), Grace: 50 * time.Millisecond, ShutdownTimeout: 200 * time.Millisecond}
		done := make(chan error, 1)
		go func() { done <- Run(ctx, cfg, inR, outW) }()
		lines := make(chan string, 10)
		go func() {
			b := make([]byte, 1<<16)
			for {
				n, err := outR.Read(b)
				if n > 0 {
					lines <- string(b[:n])
				}
				if err != nil {
					close(lines)
					return
				}
			}
		}()
		fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fault_hang","arguments":{}}}`)
		fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":"s","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		<-lines // the acknowledgement
		waitFor(t, func() bool { return sim.OpenConns() == 1 })
		switch end {
		case "eof":
			inW.Close()
		case "signal":
			cancel()
		case "stdout":
			// The bridge learns that stdout is gone when it next writes.
			outR.Close()
			fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		}
		select {
		case <-done:
		case <-time.After(waitLimit):
			t.Fatalf("%s: Run did not return", end)
		}
		cancel()
		inW.Close()
		outW.Close()
		for range lines {
		}
		waitFor(t, func() bool { return sim.OpenConns() == 0 })
	}
	checkNoLeaks(t, before)
}
