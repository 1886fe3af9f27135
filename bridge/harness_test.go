package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// harness runs Run in-process on pipes, as a client would see it.
type harness struct {
	t      *testing.T
	sim    *simbase.Server
	stdin  *io.PipeWriter
	stdout *killableWriter
	lines  chan string
	done   chan error
	cancel context.CancelFunc
	// stopped is closed once Run has returned: the test waits for it, as
	// the bridge logs to the test until then (a log after the test ended
	// is a data race in package testing).
	stopped chan struct{}

	mu      sync.Mutex
	bad     []string // stdout lines that are not one JSON-RPC message
	calls   []string // raw ids of tools/call requests sent
	skipped map[string]bool
}

// The helpers this package's tests share with the front ends' tests
// (bridgetest), under the names these tests have always used.
const (
	waitLimit  = bridgetest.WaitLimit
	testPolicy = bridgetest.TestPolicy
	modernMeta = bridgetest.ModernMeta
	wireMeta   = bridgetest.WireMeta
)

var (
	call          = bridgetest.Call
	modernCall    = bridgetest.ModernCall
	field         = bridgetest.Field
	waitFor       = bridgetest.WaitFor
	listed        = bridgetest.Listed
	inputRequired = bridgetest.InputRequired
	journalLines  = bridgetest.JournalLines
)

// newJournal opens a journal in a fresh folder of the test's.
func newJournal(t *testing.T) (string, *journal.Writer) {
	t.Helper()
	return bridgetest.NewJournal(t, testdir.New(t))
}

// withPolicy sets a policy built from a file's text ("" for none) and
// options.
func withPolicy(t *testing.T, file string, opt policy.Options) func(*Config) {
	t.Helper()
	p := bridgetest.Policy(t, file, opt)
	return func(c *Config) { c.Policy = p }
}

func newHarness(t *testing.T, sim *simbase.Server, tweak func(*Config)) *harness {
	t.Helper()
	if sim == nil {
		sim = bridgetest.StartSim(t)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	cfg := Config{
		Base:     &tcpbase.Client{Addr: sim.Addr(), ConnectTimeout: time.Second},
		BaseAddr: sim.Addr(),
		Server:   lifecycle.NewServer("mcp-bridge", "test", "", true),
		Log:      zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel),
	}
	if tweak != nil {
		tweak(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{t: t, sim: sim, stdin: inW, stdout: &killableWriter{w: outW}, lines: make(chan string, 1000), done: make(chan error, 1), cancel: cancel, skipped: map[string]bool{}, stopped: make(chan struct{})}
	go func() {
		defer close(h.stopped)
		err := Run(ctx, cfg, inR, h.stdout)
		outW.Close()
		h.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			line := sc.Text()
			if !isMessageLine(line) {
				h.mu.Lock()
				h.bad = append(h.bad, line)
				h.mu.Unlock()
			}
			h.lines <- line
		}
		close(h.lines)
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		select {
		case <-h.stopped:
		case <-time.After(waitLimit):
			t.Errorf("the bridge did not stop")
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, l := range h.bad {
			t.Errorf("stdout line is not one JSON-RPC message: %.200s", l)
		}
	})
	return h
}

// killableWriter is the client's end of stdout: once killed (the client
// closed its read end), every write fails as a closed pipe does.
type killableWriter struct {
	mu   sync.Mutex
	w    io.Writer
	dead bool
}

func (k *killableWriter) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dead {
		return 0, errors.New("write |1: broken pipe")
	}
	return k.w.Write(p)
}

func (k *killableWriter) kill() { k.mu.Lock(); k.dead = true; k.mu.Unlock() }

// isMessageLine reports whether line is one JSON-RPC message or a batch of
// them, in UTF-8: the only thing stdout may carry.
func isMessageLine(line string) bool {
	if !utf8.ValidString(line) {
		return false
	}
	ds, _ := rpc.DecodeLine([]byte(line))
	for _, d := range ds {
		if d.Err != nil {
			return false
		}
	}
	return len(ds) > 0
}

func (h *harness) send(lines ...string) {
	h.t.Helper()
	for _, l := range lines {
		if d := rpc.DecodeMessage([]byte(l)); d.Msg != nil {
			if r, ok := d.Msg.(*rpc.Request); ok && r.Method == "tools/call" {
				h.mu.Lock()
				h.calls = append(h.calls, r.ID.String())
				h.mu.Unlock()
			}
		}
		if _, err := io.WriteString(h.stdin, l+"\n"); err != nil {
			h.t.Fatalf("writing to the bridge: %v", err)
		}
	}
}

// recv returns the next stdout line.
func (h *harness) recv() string {
	h.t.Helper()
	select {
	case l, ok := <-h.lines:
		if !ok {
			h.t.Fatal("stdout closed while waiting for a line")
		}
		return l
	case <-time.After(waitLimit):
		h.t.Fatal("no line from the bridge within the wait limit")
	}
	return ""
}

// expect checks the next lines, in order, against want.
func (h *harness) expect(want ...string) {
	h.t.Helper()
	for _, w := range want {
		if got := h.recv(); got != w {
			h.t.Fatalf("got  %s\nwant %s", got, w)
		}
	}
}

// closeAndWait closes stdin and returns every line the bridge writes until
// Run returns, which it must do, with nil, within the wait limit. (To check
// that no answer comes mid-session, send a ping and expect its answer next.)
func (h *harness) closeAndWait() []string {
	h.t.Helper()
	h.stdin.Close()
	var rest []string
	for l := range h.lines {
		rest = append(rest, l)
	}
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Fatalf("Run returned %v", err)
		}
	case <-time.After(waitLimit):
		h.t.Fatal("Run did not return after stdin closed")
	}
	return rest
}

// skipCount marks a tools/call id that is expected not to reach the base.
func (h *harness) skipCount(id string) { h.mu.Lock(); h.skipped[id] = true; h.mu.Unlock() }

// checkExactlyOnce verifies that every tools/call sent ran exactly once at
// the sim (or never, for those marked with skipCount).
func (h *harness) checkExactlyOnce() {
	h.t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, id := range h.calls {
		want := 1
		if h.skipped[id] {
			want = 0
		}
		if got := h.sim.CallsFor(id); got != want {
			h.t.Errorf("tools/call id %s ran %d times at the base, want %d", id, got, want)
		}
	}
}

func textResult(id, text string, isError bool) string {
	t, _ := json.Marshal(text)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%s}],"isError":%v}}`, id, t, isError)
}

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

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// tempDir is testdir.New: a t.TempDir that Wine can remove.
var tempDir = testdir.New
