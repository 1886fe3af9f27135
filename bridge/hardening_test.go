package bridge

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// checkNoLeaks waits for the goroutine count to come back to before.
func checkNoLeaks(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFaultSoak runs 1,000 rounds of good calls mixed with every base fault,
// the base being stopped and restarted now and then, in random order.
// Every request gets exactly one answer (none when cancelled), good calls
// succeed, every call that reached the base ran there exactly once, and
// stdout stays valid (the harness checks every line).
func TestFaultSoak(t *testing.T) {
	rounds := 1000
	if testing.Short() {
		rounds = 200
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))

	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Faults: true})
	if err != nil {
		t.Fatal(err)
	}
	addr := sim.Addr()
	sims := []*simbase.Server{sim}
	defer func() {
		for _, s := range sims {
			s.Close()
		}
	}()
	goroutines := runtime.NumGoroutine()
	h := newHarness(t, sim, func(c *Config) {
		c.CallTimeout = 60 * time.Millisecond
		c.RetryBackoff = 5 * time.Millisecond
		c.Retries = 1
		c.Base.(*tcpbase.Client).MaxAnswer = 64 << 10
	})

	// Answers are collected as they come; the loop keeps at most a window
	// of requests unanswered, well inside the queue limit.
	var mu sync.Mutex
	var answers []string
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for line := range h.lines {
			mu.Lock()
			answers = append(answers, line)
			mu.Unlock()
		}
	}()
	expected := 0
	window := func(max int) {
		deadline := time.Now().Add(waitLimit)
		for {
			mu.Lock()
			n := len(answers)
			mu.Unlock()
			if expected-n <= max {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d answers, %d expected", n, expected)
			}
			time.Sleep(time.Millisecond)
		}
	}

	type expect struct {
		kind   string // "ok", "pretty", a failure kind, or "none"
		reachd bool   // the request reached a base
	}
	want := map[string]expect{}
	down := false
	counts := map[string]int{}
	kinds := []struct {
		name, tool, args, want string
		weight                 int
	}{
		{"good", "measure_distance", `{"from":{"x":0,"y":0},"to":{"x":3,"y":4}}`, "ok", 10},
		{"close", "fault_close", `{}`, "closed", 1},
		{"garbage", "fault_garbage", `{}`, "malformed", 1},
		{"half", "fault_half", `{}`, "malformed", 1},
		{"pretty", "fault_pretty", `{}`, "pretty", 1},
		{"oversize", "fault_big", `{"mib":0.1}`, "too_large", 1},
		{"slow", "fault_sleep", `{"ms":150}`, "timeout", 1},
		{"hang", "fault_hang", `{}`, "timeout", 1},
		{"cancel", "fault_hang", `{}`, "none", 1},
		{"restart", "", "", "", 1},
	}
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	pick := func() int {
		n := rng.IntN(total)
		for i, k := range kinds {
			if n < k.weight {
				return i
			}
			n -= k.weight
		}
		return 0
	}
	for round := range rounds {
		k := kinds[pick()]
		counts[k.name]++
		if k.name == "restart" {
			window(0) // nothing in flight while the base goes down or up
			if down {
				s, err := simbase.Start(addr, simbase.Options{Faults: true})
				if err != nil {
					t.Fatalf("restarting the sim: %v", err)
				}
				sims = append(sims, s)
			} else {
				sims[len(sims)-1].Close()
			}
			down = !down
			continue
		}
		id := fmt.Sprintf(`"r%d"`, round)
		if down && k.name == "cancel" {
			k = kinds[0] // nothing to cancel against a base that is down
		}
		e := expect{kind: k.want, reachd: !down}
		if down {
			e.kind = "unreachable"
		}
		want[id] = e
		h.send(call(id, k.tool, k.args))
		if k.name == "cancel" {
			window(0) // so that the hang is the call in flight
			waitFor(t, func() bool { return sims[len(sims)-1].CallsFor(id) == 1 })
			h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`)
			continue
		}
		expected++
		if rng.IntN(4) == 0 {
			window(0)
		} else {
			window(8)
		}
	}
	h.stdin.Close()
	<-collected
	if err := <-h.done; err != nil {
		t.Fatal(err)
	}
	rest := answers
	got := map[string][]string{}
	for _, line := range rest {
		id := string(rpc.Field([]byte(line), "id"))
		got[id] = append(got[id], line)
	}
	for id, e := range want {
		lines := got[id]
		if e.kind == "none" {
			if len(lines) != 0 {
				t.Errorf("%s was cancelled but got %q", id, lines)
			}
			continue
		}
		if len(lines) != 1 {
			t.Errorf("%s: %d answers, want 1: %q", id, len(lines), lines)
			continue
		}
		line := lines[0]
		switch e.kind {
		case "ok":
			if line != textResult(id, "Distance 5, angle 53.130102°, dx 3, dy 4.", false) {
				t.Errorf("%s: good call got %s", id, line)
			}
		case "pretty":
			if field(t, line, "result.isError") != false {
				t.Errorf("%s: %s", id, line)
			}
		default:
			if field(t, line, "error.data.kind") != e.kind {
				t.Errorf("%s: want kind %s, got %s", id, e.kind, line)
			}
		}
	}
	// Exactly once: across every incarnation of the base.
	for id, e := range want {
		n := 0
		for _, s := range sims {
			n += s.CallsFor(id)
		}
		if e.reachd && n != 1 {
			t.Errorf("%s ran %d times at the base, want 1", id, n)
		}
		if !e.reachd && n != 0 {
			t.Errorf("%s ran %d times while the base was down", id, n)
		}
	}
	t.Logf("%d rounds: %v; %d answers checked", rounds, counts, len(rest))
	for _, s := range sims {
		s.Close()
	}
	sims = nil
	checkNoLeaks(t, goroutines)
}

func TestSlowPeers(t *testing.T) {
	// A base that accepts and never reads (or answers).
	deaf, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer deaf.Close()
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := deaf.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	}()
	h := newHarness(t, nil, func(c *Config) {
		c.Base = &tcpbase.Client{Addr: deaf.Addr().String()}
		c.BaseAddr = deaf.Addr().String()
		c.CallTimeout = 200 * time.Millisecond
	})
	h.send(call("1", "get_drawing_info", `{}`))
	if got := h.recv(); field(t, got, "error.data.kind") != "timeout" {
		t.Fatalf("deaf base: %s", got)
	}
	h.closeAndWait()

	// A base that trickles one byte per 50 ms: bounded by the call timeout.
	h2 := newHarness(t, nil, func(c *Config) { c.CallTimeout = 300 * time.Millisecond })
	// The whole answer would take ~7 s; the 300 ms call timeout ends it.
	h2.send(call("2", "fault_trickle", `{"ms":50}`))
	if got := h2.recv(); field(t, got, "error.data.kind") != "timeout" {
		t.Fatalf("trickling base: %s", got)
	}
	h2.send(call("3", "get_drawing_info", `{}`))
	if got := h2.recv(); field(t, got, "result.isError") != false {
		t.Fatalf("after the trickle: %s", got)
	}
	h2.closeAndWait()
	waitFor(t, func() bool { return h2.sim.OpenConns() == 0 })
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

func TestPanicsAreRecovered(t *testing.T) {
	var logs bytes.Buffer
	panicky := baseFunc(func(_ context.Context, frame []byte) ([]byte, error) {
		if bytes.Contains(frame, []byte(`"boom"`)) {
			panic("base adapter exploded")
		}
		return []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), nil
	})
	testHookHandle = func(d rpc.Decoded) {
		if r, ok := d.Msg.(*rpc.Request); ok && r.Method == "explode" {
			panic("reader exploded")
		}
	}
	defer func() { testHookHandle = nil }()
	h := newHarness(t, nil, func(c *Config) {
		c.Base = panicky
		c.Log = zerolog.New(&syncWriter{w: &logs})
	})
	h.send(call("1", "boom", `{}`))
	h.expect(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error in mcp-bridge while forwarding tools/call (see its log)"}}`)
	h.send(`{"jsonrpc":"2.0","id":2,"method":"explode"}`)
	h.expect(`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"internal error in mcp-bridge while handling explode (see its log)"}}`)
	// The bridge goes on.
	h.send(call("3", "fine", `{}`))
	h.expect(`{"jsonrpc":"2.0","id":3,"result":{}}`)
	h.closeAndWait()
	for _, want := range []string{"base adapter exploded", "reader exploded", "goroutine", "worker.go", "reader.go"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %q (a stack): %s", want, logs.String())
		}
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
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
