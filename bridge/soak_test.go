package bridge

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// soakRNG returns how many rounds a soak runs (a fifth with -short) and a
// random source whose seed is logged, so that a failure can be replayed.
func soakRNG(t *testing.T, rounds int, stream uint64) (int, *rand.Rand) {
	if testing.Short() {
		rounds /= 5
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	return rounds, rand.New(rand.NewPCG(seed, stream))
}

// startOffEphemeral starts the simulated base on a port outside the
// ephemeral ranges (Linux 32768–60999, Windows 49152–65535): the soak
// stops and restarts its base on the same port, and while it is down
// another test's listener on port 0 (go test runs packages side by side)
// could be handed that port, answer the calls sent to a base that is down,
// and keep the base from coming back (seen once in 100 runs under load).
// Its ports are not those launchtest.FreeAddr gives the fake CAD programs
// (24000–31999), which test packages side by side start at any time: one
// took the soak's port while its base was down (1 run in about 10 beside
// the launch tests, under load), and the bridge found a base where the
// test had none.
func startOffEphemeral(t *testing.T, rng *rand.Rand) *simbase.Server {
	t.Helper()
	var err error
	for range 50 {
		var s *simbase.Server
		if s, err = simbase.Start(fmt.Sprintf("127.0.0.1:%d", 20000+rng.IntN(4000)), simbase.Options{Faults: true}); err == nil {
			return s
		}
	}
	t.Fatalf("no free port for the simulated base: %v", err)
	return nil
}

// timeoutBase times out the calls whose ids it was told as soon as the
// base has them, as a call timeout would (the client reads kind
// "timeout"), and passes the others through: which calls time out and
// whether they reached the base depend on no clock.
type timeoutBase struct {
	Base
	reached func(id string) bool // the base has the call
	mu      sync.Mutex
	ids     map[string]bool
}

func (b *timeoutBase) add(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ids[id] = true
}

func (b *timeoutBase) Call(ctx context.Context, frame []byte) ([]byte, error) {
	id := string(rpc.Field(frame, "id"))
	b.mu.Lock()
	timesOut := b.ids[id]
	b.mu.Unlock()
	if !timesOut {
		return b.Base.Call(ctx, frame)
	}
	inner, cancel := context.WithCancel(ctx)
	defer cancel()
	fc := &firedContext{Context: inner}
	called := make(chan struct{})
	defer close(called)
	go func() {
		for !b.reached(id) {
			select {
			case <-called: // it never reached the base (down, refused)
				return
			case <-time.After(time.Millisecond):
			}
		}
		fc.fired.Store(true)
		cancel()
	}()
	return b.Base.Call(fc, frame)
}

// firedContext is a context whose deadline passes when fired is set and
// the inner context is cancelled: Err says DeadlineExceeded.
type firedContext struct {
	context.Context
	fired atomic.Bool
}

func (c *firedContext) Err() error {
	if c.fired.Load() {
		return context.DeadlineExceeded
	}
	return c.Context.Err()
}

// TestFaultSoak runs 300 rounds of good calls mixed with every base fault,
// the base being stopped and restarted now and then, in random order.
// Every request gets exactly one answer (none when cancelled), good calls
// succeed, every call that reached the base ran there exactly once, and
// stdout stays valid (the harness checks every line).
func TestFaultSoak(t *testing.T) {
	rounds, rng := soakRNG(t, 300, 1)

	sim := startOffEphemeral(t, rng)
	addr := sim.Addr()
	sims := []*simbase.Server{sim}
	defer func() {
		for _, s := range sims {
			s.Close()
		}
	}()
	// Which calls time out, and whether they reached the base, must not
	// depend on how busy the machine is: the call timeout is longer than
	// any good call takes however long its goroutine waits for a CPU, and
	// the slow and hanging calls, only those, time out once the base has
	// them (timeoutBase). The slow call would answer after a minute; the
	// cancelled hang ends on its cancellation.
	goroutines := runtime.NumGoroutine()
	var simMu sync.Mutex // guards current, the base running now
	current := sim
	timeouts := &timeoutBase{ids: map[string]bool{}, reached: func(id string) bool {
		simMu.Lock()
		defer simMu.Unlock()
		return current.CallsFor(id) > 0
	}}
	h := newHarness(t, sim, func(c *Config) {
		c.CallTimeout = 2 * waitLimit
		c.RetryBackoff = 5 * time.Millisecond
		c.Retries = 1
		c.Base.(*tcpbase.Client).MaxAnswer = 16 << 10
		timeouts.Base = c.Base
		c.Base = timeouts
	})

	// Answers are collected as they come; the loop keeps at most a window
	// of requests unanswered, well inside the queue limit.
	var mu sync.Mutex
	var answers []string
	// One arrival per answer (a line with an id); room for two per
	// request, so that even a bridge that answered twice never blocks the
	// collector before the checks below say so.
	arrivals := make(chan struct{}, 2*rounds+2)
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for line := range h.lines {
			mu.Lock()
			answers = append(answers, line)
			mu.Unlock()
			if rpc.Field([]byte(line), "id") != nil {
				arrivals <- struct{}{}
			}
		}
	}()
	expected, arrived := 0, 0
	window := func(max int) {
		for expected-arrived > max {
			select {
			case <-arrivals:
				arrived++
			case <-time.After(waitLimit):
				t.Fatalf("%d answers, %d expected", arrived, expected)
			}
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
		{"oversize", "fault_big", `{"mib":0.02}`, "too_large", 1},
		{"slow", "fault_sleep", `{"ms":60000}`, "timeout", 1},
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
				simMu.Lock()
				current = s
				simMu.Unlock()
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
		if !down && (k.name == "slow" || k.name == "hang") {
			timeouts.add(id)
		}
		h.send(call(id, k.tool, k.args))
		if k.name == "cancel" {
			window(0) // so that the hang is the call in flight
			waitFor(t, func() bool { return sims[len(sims)-1].CallsFor(id) == 1 })
			open := sims[len(sims)-1].OpenConns() // the hang's, and slow calls' the base still sleeps on
			h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`)
			// Until the bridge has let go of the call (its connection to
			// the base closed), a restart could close the base under it
			// first: the call would be answered "closed", and that
			// unexpected answer counted as another's arrival would let a
			// later restart go with a call still queued (1 run in 10 of
			// 100 under two busy loops).
			waitFor(t, func() bool { return sims[len(sims)-1].OpenConns() < open })
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
