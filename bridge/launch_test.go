package bridge

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/toolcache"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch/launchtest"
)

// TestMain lets the tests start this test binary as a fake CAD program
// (launchtest).
func TestMain(m *testing.M) {
	launchtest.Main(os.Stdout, os.Stderr)
	os.Exit(m.Run())
}

// fakeCAD is a CAD program that is not running yet: the fake of
// launchtest, for one base address, with its files in a folder of the
// test's. Every copy that started is stopped at the test's end.
type fakeCAD struct {
	t    *testing.T
	dir  string
	fake launchtest.Fake
	now  struct {
		sync.Mutex
		t time.Time
	}
}

func newFakeCAD(t *testing.T) *fakeCAD {
	t.Helper()
	dir := tempDir(t)
	addr, err := launchtest.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	c := &fakeCAD{t: t, dir: dir, fake: launchtest.Fake{Addr: addr, Record: filepath.Join(dir, "starts"), Stop: filepath.Join(dir, "stop")}}
	c.now.t = time.Now()
	t.Cleanup(func() {
		_ = launchtest.Touch(c.fake.Stop)
		starts, _ := launchtest.Starts(c.fake.Record)
		for _, s := range starts {
			deadline := time.Now().Add(waitLimit)
			for launchtest.Alive(s.Pid) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
		}
	})
	return c
}

func (c *fakeCAD) file(name string) string { return filepath.Join(c.dir, name) }

func (c *fakeCAD) clock() time.Time {
	c.now.Lock()
	defer c.now.Unlock()
	return c.now.t
}

func (c *fakeCAD) setClock(t time.Time) {
	c.now.Lock()
	defer c.now.Unlock()
	c.now.t = t
}

// launcher is one bridge's launcher for the fake (the fake as it is now).
func (c *fakeCAD) launcher() *launch.Launcher {
	return launch.New(launch.Options{Command: c.fake.Command(), Name: "FakeCAD", Addr: c.fake.Addr, Dir: c.dir,
		Wait: waitLimit, ProgressEvery: 10 * time.Millisecond, Now: c.clock, Log: zerolog.New(zerolog.NewTestWriter(c.t))})
}

// config points a bridge at the fake's address, with l to start it.
func (c *fakeCAD) config(l *launch.Launcher, more func(*Config)) func(*Config) {
	return func(cfg *Config) {
		cfg.Base = &tcpbase.Client{Addr: c.fake.Addr, ConnectTimeout: time.Second}
		cfg.BaseAddr = c.fake.Addr
		cfg.Launch = l
		if more != nil {
			more(cfg)
		}
	}
}

func (c *fakeCAD) starts() []launchtest.Started {
	c.t.Helper()
	s, err := launchtest.Starts(c.fake.Record)
	if err != nil {
		c.t.Fatal(err)
	}
	return s
}

func (c *fakeCAD) touch(name string) {
	c.t.Helper()
	if err := launchtest.Touch(name); err != nil {
		c.t.Fatal(err)
	}
}

func callWithToken(id, tool, args, token string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s,"_meta":{"progressToken":%s}}}`, id, tool, args, token)
}

const lineArgs = `{"start":{"x":0,"y":0},"end":{"x":3,"y":4}}`

// progressUntil reads progress notifications for token until one whose
// message starts with prefix, checking that each is one more than the
// last (from after); it returns the last number.
func progressUntil(t *testing.T, h *harness, token string, after float64, prefix string) float64 {
	t.Helper()
	for {
		line := h.recv()
		if field(t, line, "method") != "notifications/progress" || field(t, line, "params.progressToken") != token {
			t.Fatalf("before %q: %s", prefix, line)
		}
		n := field(t, line, "params.progress").(float64)
		if n != after+1 {
			t.Fatalf("progress %v after %v: %s", n, after, line)
		}
		after = n
		if strings.HasPrefix(field(t, line, "params.message").(string), prefix) {
			return n
		}
	}
}

// The first call while CAD is not running starts it once, tells the
// call's progress token what happens, and is answered; the next call
// finds it running.
func TestLaunchFirstCall(t *testing.T) {
	c := newFakeCAD(t)
	c.fake.Hold = c.file("hold")
	h := newHarness(t, nil, c.config(c.launcher(), func(cfg *Config) { cfg.ProgressInterval = 20 * time.Millisecond }))
	h.send(callWithToken("1", "draw_line", lineArgs, `"p"`))
	n := progressUntil(t, h, "p", 0, "starting FakeCAD…")
	n = progressUntil(t, h, "p", n, "waiting for its MCP base at "+c.fake.Addr+" (")
	c.touch(c.fake.Hold)
	for {
		line := h.recv()
		if field(t, line, "id") == float64(1) {
			if field(t, line, "result.isError") != false || !strings.Contains(line, "length 5") {
				t.Fatalf("answer: %s", line)
			}
			break
		}
		if got := field(t, line, "params.progress").(float64); got != n+1 {
			t.Fatalf("progress %v after %v: %s", got, n, line)
		}
		n++
	}
	h.send(call("2", "draw_line", lineArgs))
	if got := h.recv(); field(t, got, "id") != float64(2) || field(t, got, "result.isError") != false {
		t.Fatalf("second call: %s", got)
	}
	if s := c.starts(); len(s) != 1 {
		t.Fatalf("%d starts, want 1", len(s))
	}
	h.closeAndWait()
}

// The wait for CAD is not the call's time: a launch that takes longer than
// --call-timeout still ends with the call answered, which then has its
// whole timeout.
func TestLaunchWaitIsNotTheCallsTime(t *testing.T) {
	c := newFakeCAD(t)
	c.fake.Hold = c.file("hold")
	h := newHarness(t, nil, c.config(c.launcher(), func(cfg *Config) { cfg.CallTimeout = 300 * time.Millisecond }))
	h.send(callWithToken("1", "draw_line", lineArgs, `"p"`))
	// The launcher says how long it has waited: past the call's 300 ms.
	progressUntil(t, h, "p", 0, "waiting for its MCP base at "+c.fake.Addr+" (1 s)")
	c.touch(c.fake.Hold)
	for {
		line := h.recv()
		if field(t, line, "id") == float64(1) {
			if field(t, line, "result.isError") != false {
				t.Fatalf("answer: %s", line)
			}
			break
		}
	}
	h.closeAndWait()
}

// Ten calls at once from three clients, each with its own bridge (three
// launchers on one lock file, as three bridge processes have): CAD starts
// once, every call is answered, each client's in the order sent.
func TestLaunchTenCallsThreeBridges(t *testing.T) {
	c := newFakeCAD(t)
	c.fake.Hold = c.file("hold")
	var hs []*harness
	for range 3 {
		hs = append(hs, newHarness(t, nil, c.config(c.launcher(), nil)))
	}
	ids := [][]int{{1, 2, 3, 4}, {5, 6, 7}, {8, 9, 10}}
	for i, h := range hs {
		for k, id := range ids[i] {
			if k == 0 {
				h.send(callWithToken(fmt.Sprint(id), "draw_line", lineArgs, fmt.Sprint(id)))
			} else {
				h.send(call(fmt.Sprint(id), "draw_line", lineArgs))
			}
		}
	}
	// One bridge starts CAD; the two others wait for it.
	started, waiting := 0, 0
	for i, h := range hs {
		line := h.recv()
		switch msg, _ := field(t, line, "params.message").(string); {
		case msg == "starting FakeCAD…":
			started++
		case strings.HasPrefix(msg, "another mcp-bridge is starting FakeCAD"):
			waiting++
		default:
			t.Fatalf("bridge %d: %s", i, line)
		}
	}
	if started != 1 || waiting != 2 {
		t.Fatalf("%d bridges started CAD, %d waited", started, waiting)
	}
	c.touch(c.fake.Hold)
	for i, h := range hs {
		var got []int
		for len(got) < len(ids[i]) {
			line := h.recv()
			if field(t, line, "method") == "notifications/progress" {
				if tok := field(t, line, "params.progressToken"); tok != float64(ids[i][0]) {
					t.Fatalf("bridge %d: progress for %v: %s", i, tok, line)
				}
				continue
			}
			if field(t, line, "result.isError") != false {
				t.Fatalf("bridge %d: %s", i, line)
			}
			got = append(got, int(field(t, line, "id").(float64)))
		}
		if fmt.Sprint(got) != fmt.Sprint(ids[i]) {
			t.Errorf("bridge %d answered %v, want %v", i, got, ids[i])
		}
	}
	if s := c.starts(); len(s) != 1 {
		t.Fatalf("%d starts, want 1", len(s))
	}
}

// CAD dying at start: the call's answer says what was started, how it
// ended and its last words; the next call is refused at once, saying
// when it may try again; once that time has come, it starts CAD again.
func TestLaunchDiesThenBacksOff(t *testing.T) {
	c := newFakeCAD(t)
	c.fake.Exit, c.fake.Stderr, c.fake.Cure = 3, "FakeCAD: licence server unreachable", c.file("cured")
	l := c.launcher()
	h := newHarness(t, nil, c.config(l, nil))
	h.send(call("1", "draw_line", lineArgs))
	got := h.recv()
	if field(t, got, "error.code") != float64(-32603) || field(t, got, "error.data.kind") != "launch_failed" ||
		field(t, got, "error.data.exit") != "exited with status 3" || index(field(t, got, "error.data.output"), -1) != "FakeCAD: licence server unreachable" ||
		field(t, got, "error.data.command") != l.Command().String() {
		t.Fatalf("answer: %s", got)
	}
	msg := field(t, got, "error.message").(string)
	for _, want := range []string{"started FakeCAD (", "exited with status 3", "FakeCAD: licence server unreachable", "tools/call was not sent to CAD."} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
	retry := field(t, got, "error.data.retry_after").(string)
	until, err := time.Parse(time.RFC3339, retry)
	if err != nil || !until.Equal(c.clock().Add(time.Minute).Truncate(time.Second)) {
		t.Fatalf("retry_after %q (%v), now %v", retry, err, c.clock())
	}

	h.send(call("2", "draw_line", lineArgs))
	got = h.recv()
	if field(t, got, "error.data.kind") != "launch_backoff" || field(t, got, "error.data.retry_after") != retry ||
		!strings.Contains(field(t, got, "error.message").(string), "failed: it exited with status 3. It tries again after "+until.Local().Format("15:04:05")) {
		t.Fatalf("during the back-off: %s", got)
	}
	if s := c.starts(); len(s) != 1 {
		t.Fatalf("%d starts during the back-off, want 1", len(s))
	}

	c.setClock(c.clock().Add(time.Minute)) // the back-off's end (retry_after is that, to the second)
	c.touch(c.fake.Cure)
	h.send(call("3", "draw_line", lineArgs))
	if got := h.recv(); field(t, got, "id") != float64(3) || field(t, got, "result.isError") != false {
		t.Fatalf("after the back-off: %s", got)
	}
	if s := c.starts(); len(s) != 2 {
		t.Fatalf("%d starts, want 2", len(s))
	}
	h.closeAndWait()
}

// The bridge exits, CAD stays: running, and in a session and process
// group of its own.
func TestLaunchedCADOutlivesTheBridge(t *testing.T) {
	c := newFakeCAD(t)
	h := newHarness(t, nil, c.config(c.launcher(), nil))
	h.send(call("1", "draw_line", lineArgs))
	if got := h.recv(); field(t, got, "result.isError") != false {
		t.Fatalf("answer: %s", got)
	}
	h.closeAndWait()
	s := c.starts()[0]
	if !launchtest.Alive(s.Pid) {
		t.Fatal("CAD ended with the bridge")
	}
	b := &tcpbase.Client{Addr: c.fake.Addr}
	if _, err := b.Call(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); err != nil {
		t.Fatalf("its base after the bridge ended: %v", err)
	}
	if runtime.GOOS != "windows" && (s.Pgid == launchtest.ProcessGroup(os.Getpid()) || s.Sid != s.Pid) {
		t.Errorf("CAD's process group %d, session %d: not its own", s.Pgid, s.Sid)
	}
}

// Under a policy the base's tool list is read before a call: with the
// base down at start, the call starts CAD first, then runs.
func TestLaunchUnderPolicy(t *testing.T) {
	c := newFakeCAD(t)
	p, err := policy.Build("test", []byte(`{"deny": ["save_*"]}`), policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, nil, c.config(c.launcher(), func(cfg *Config) { cfg.Policy = p }))
	h.send(call("1", "draw_line", lineArgs))
	if got := h.recv(); field(t, got, "result.isError") != false {
		t.Fatalf("answer: %s", got)
	}
	if s := c.starts(); len(s) != 1 {
		t.Fatalf("%d starts, want 1", len(s))
	}
	h.closeAndWait()
}

// tools/list starts CAD only when there is no list to answer with: a
// cached one is answered (no start); a call then starts it.
func TestLaunchNotForACachedList(t *testing.T) {
	c := newFakeCAD(t)
	cache := c.file("cache")
	tc := toolcache.New(cache, c.fake.Addr, 1<<20)
	if err := tc.Store([]byte(`{"tools":[{"name":"draw_line","inputSchema":{"type":"object"}}]}`)); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, nil, c.config(c.launcher(), func(cfg *Config) { cfg.CacheDir, cfg.ProbeInterval = cache, -1 }))
	h.send(initialize("0", "2025-06-18"))
	h.recv()
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if got := h.recv(); len(field(t, got, "result.tools").([]any)) != 1 || !strings.Contains(got, `"name":"draw_line"`) {
		t.Fatalf("tools/list: %s", got)
	}
	if s := c.starts(); len(s) != 0 {
		t.Fatalf("tools/list with a cached list started CAD")
	}
	h.send(call("2", "draw_line", lineArgs))
	if got := h.recv(); field(t, got, "result.isError") != false {
		t.Fatalf("answer: %s", got)
	}
	// CAD is up: the list it serves may differ from the cached one.
	h.expect(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	if s := c.starts(); len(s) != 1 {
		t.Fatalf("%d starts, want 1", len(s))
	}
	h.closeAndWait()

	// Without a list to fall back on, tools/list starts it.
	c2 := newFakeCAD(t)
	h2 := newHarness(t, nil, c2.config(c2.launcher(), nil))
	h2.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if got := h2.recv(); index(field(t, got, "result.tools"), 0) == nil {
		t.Fatalf("tools/list: %s", got)
	}
	if s := c2.starts(); len(s) != 1 {
		t.Fatalf("%d starts, want 1", len(s))
	}
	h2.closeAndWait()
}

// A call cancelled while CAD starts gets no answer and CAD goes on
// starting; the next call waits for that start (no second copy).
func TestLaunchCancelledCall(t *testing.T) {
	c := newFakeCAD(t)
	c.fake.Hold = c.file("hold")
	h := newHarness(t, nil, c.config(c.launcher(), nil))
	h.send(callWithToken("1", "draw_line", lineArgs, `"p"`))
	progressUntil(t, h, "p", 0, "starting FakeCAD…")
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	h.send(callWithToken("2", "draw_line", lineArgs, `"q"`))
	progressUntil(t, h, "q", 0, "FakeCAD (pid")
	c.touch(c.fake.Hold)
	for {
		got := h.recv()
		if field(t, got, "id") == float64(1) || field(t, got, "params.progressToken") == "p" {
			t.Fatalf("the cancelled call: %s", got)
		}
		if field(t, got, "id") == float64(2) {
			if field(t, got, "result.isError") != false {
				t.Fatalf("answer: %s", got)
			}
			break
		}
	}
	if s := c.starts(); len(s) != 1 {
		t.Fatalf("%d starts, want 1", len(s))
	}
	h.closeAndWait()
}

// TestLaunchStoppedBridge: the bridge stopped (a signal, then its grace)
// while CAD is still starting for a call answers that call "not sent to
// CAD": nothing of it reached the base, and the client must not read
// that it may have run.
func TestLaunchStoppedBridge(t *testing.T) {
	c := newFakeCAD(t)
	c.fake.Hold = c.file("hold")
	h := newHarness(t, nil, c.config(c.launcher(), func(cfg *Config) { cfg.Grace = 10 * time.Millisecond }))
	h.send(callWithToken("1", "draw_line", lineArgs, `"p"`))
	progressUntil(t, h, "p", 0, "starting FakeCAD…")
	h.cancel() // as a SIGTERM would
	for {
		got := h.recv()
		if field(t, got, "id") != float64(1) {
			continue // the launch's progress
		}
		if want := "mcp-bridge is shutting down; tools/call was not sent to CAD"; field(t, got, "error.message") != want {
			t.Fatalf("answer %s; want %q", got, want)
		}
		break
	}
	// The program the bridge started goes on: wait for its own record, so
	// that the clean-up, which waits for every recorded start to end, also
	// waits for this one (on Windows its output file cannot be removed
	// while it runs).
	for deadline := time.Now().Add(waitLimit); len(c.starts()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the program the bridge started never recorded its start")
		}
	}
	c.touch(c.fake.Hold)
}

// TestLaunchAsksFirst: CAD down, --launch, a call that needs confirmation:
// the base's tool list cannot be read before the question, so the user is
// asked first (a question answered "Don't run" starts nothing), CAD is
// started only after Run, and the name is checked then: a look-alike is
// refused unsent. With the list known, the next look-alike is refused
// before any question.
func TestLaunchAsksFirst(t *testing.T) {
	c := newFakeCAD(t)
	d := bridgetest.NewDesktop()
	h := newHarness(t, nil, c.config(c.launcher(), both(withPolicy(t, testPolicy, policy.Options{}), withDesktop(d, AskDesktop))))
	h.send(initPlain)
	h.recv()
	h.send(call("1", "delete_entities ", `{"handles":["h-1"]}`))
	if q := d.Question(t); q.Tool != "delete_entities " {
		t.Fatalf("asked about %q", q.Tool)
	}
	d.Answers <- desktop.DontRun
	if got := h.recv(); field(t, got, "result.isError") != true || len(c.starts()) != 0 {
		t.Fatalf("declined: %s, %d starts", got, len(c.starts()))
	}
	h.send(call("2", "delete_entities ", `{"handles":["h-1"]}`))
	d.Question(t)
	d.Answers <- desktop.Run
	for {
		got := h.recv()
		if field(t, got, "id") != float64(2) {
			continue // news that the list may have changed, once CAD is up
		}
		if field(t, got, "error.data.kind") != "unlisted" {
			t.Fatalf("the look-alike after Run: %s; want refused as unlisted", got)
		}
		break
	}
	if n := len(c.starts()); n != 1 {
		t.Fatalf("%d starts, want 1", n)
	}
	h.send(call("3", "delete_entities ", `{"handles":["h-1"]}`))
	if got := h.recv(); field(t, got, "error.data.kind") != "unlisted" {
		t.Fatalf("the look-alike with the list known: %s", got)
	}
	select {
	case q := <-d.Asked:
		t.Errorf("asked about %q with the list known", q.Tool)
	default:
	}
	h.closeAndWait()
}

// TestLaunchOnlyWhenNothingWasSent: with --launch, a call that reached
// the base and then failed there (it timed out, the base closed without an
// answer, answered garbage) is answered with that failure and sent once:
// CAD is started, and the call sent again, only when no connection could
// be made. Before, any failure started CAD (here it is up, so "started"
// at once) and the call went to the base a second time: two copies of a
// drawing change.
func TestLaunchOnlyWhenNothingWasSent(t *testing.T) {
	sim := bridgetest.StartSim(t)
	l := launch.New(launch.Options{Command: launch.Command{Path: filepath.Join(tempDir(t), "no-such-cad")}, Addr: sim.Addr(), Dir: tempDir(t),
		Log: zerolog.New(zerolog.NewTestWriter(t))})
	h := newHarness(t, sim, func(cfg *Config) { cfg.Launch, cfg.CallTimeout = l, 300*time.Millisecond })
	for _, c := range []struct{ tool, kind string }{{"fault_hang", "timeout"}, {"fault_close", "closed"}, {"fault_garbage", "malformed"}} {
		id := `"` + c.tool + `"`
		h.send(call(id, c.tool, `{}`))
		got := h.recv()
		if field(t, got, "error.data.kind") != c.kind {
			t.Errorf("%s: %s; want the %s failure", c.tool, got, c.kind)
		}
		if n := sim.CallsFor(id); n != 1 {
			t.Errorf("%s: the base got the call %d times, want once", c.tool, n)
		}
	}
	h.closeAndWait()
}

// index is element i of a JSON array (-1: the last), or nil.
func index(v any, i int) any {
	a, _ := v.([]any)
	if i < 0 {
		i += len(a)
	}
	if i < 0 || i >= len(a) {
		return nil
	}
	return a[i]
}
