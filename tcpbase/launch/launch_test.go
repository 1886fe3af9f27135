package launch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch/launchtest"
	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

func TestMain(m *testing.M) {
	launchtest.Main(os.Stdout, os.Stderr)
	jobHelper()
	os.Exit(m.Run())
}

// limit bounds every wait for an event; none is a time the test expects.
const limit = 30 * time.Second

// setup is one base address with a fake CAD program for it: its record,
// hold and stop files in dir, and a cleanup that stops every fake that
// started.
type setup struct {
	t    *testing.T
	dir  string
	fake launchtest.Fake
}

func newSetup(t *testing.T) *setup {
	t.Helper()
	dir := testdir.New(t)
	addr, err := launchtest.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	s := &setup{t: t, dir: dir, fake: launchtest.Fake{Addr: addr, Record: filepath.Join(dir, "starts"), Stop: filepath.Join(dir, "stop")}}
	t.Cleanup(func() {
		_ = launchtest.Touch(s.fake.Stop)
		starts, _ := launchtest.Starts(s.fake.Record)
		for _, st := range starts {
			waitFor(t, "fake CAD program to stop", func() bool { return !launchtest.Alive(st.Pid) })
		}
	})
	return s
}

// options are a launcher's options for the fake; the clock is clk's.
func (s *setup) options(clk *clock) launch.Options {
	o := launch.Options{Command: s.fake.Command(), Name: "FakeCAD", Addr: s.fake.Addr, Dir: s.dir, Wait: limit, Backoff: time.Minute,
		Log: zerolog.New(zerolog.NewTestWriter(s.t))}
	if clk != nil {
		o.Now = clk.now
	}
	return o
}

func (s *setup) starts() []launchtest.Started {
	s.t.Helper()
	got, err := launchtest.Starts(s.fake.Record)
	if err != nil {
		s.t.Fatal(err)
	}
	return got
}

func (s *setup) baseAnswers() bool {
	c := &tcpbase.Client{Addr: s.fake.Addr, ConnectTimeout: time.Second}
	_, err := c.Call(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	return err == nil
}

// clock is a settable clock for the back-off.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Now()} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// messages collects progress messages and tells when one matching a
// prefix arrives.
type messages struct {
	mu   sync.Mutex
	all  []string
	seen map[string]chan struct{}
}

func newMessages(prefixes ...string) *messages {
	m := &messages{seen: map[string]chan struct{}{}}
	for _, p := range prefixes {
		m.seen[p] = make(chan struct{})
	}
	return m
}

func (m *messages) add(msg string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.all = append(m.all, msg)
	for p, ch := range m.seen {
		if strings.HasPrefix(msg, p) {
			select {
			case <-ch:
			default:
				close(ch)
			}
		}
	}
}

func (m *messages) list() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.all...)
}

func (m *messages) wait(t *testing.T, prefix string) {
	t.Helper()
	select {
	case <-m.seen[prefix]:
	case <-time.After(limit):
		t.Fatalf("no progress message %q; got %q", prefix, m.list())
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", limit, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func ensure(l *launch.Launcher, m *messages) chan error {
	done := make(chan error, 1)
	progress := func(string) {}
	if m != nil {
		progress = m.add
	}
	go func() { done <- l.Ensure(context.Background(), progress) }()
	return done
}

func result(t *testing.T, done chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(2 * limit):
		t.Fatal("Ensure did not return")
		return nil
	}
}

// The base is down: the program is started once, Ensure returns once its
// base accepts connections, and a second Ensure starts nothing.
func TestStartsOnceAndWaitsForTheBase(t *testing.T) {
	s := newSetup(t)
	s.fake.Hold = filepath.Join(s.dir, "hold")
	o := s.options(nil)
	o.Command = s.fake.Command()
	o.ProgressEvery = 10 * time.Millisecond
	l := launch.New(o)
	m := newMessages("starting FakeCAD…", "waiting for its MCP base at "+s.fake.Addr+" (")
	done := ensure(l, m)
	m.wait(t, "waiting for its MCP base at "+s.fake.Addr+" (")
	select {
	case err := <-done:
		t.Fatalf("Ensure returned %v before the base listened", err)
	default:
	}
	if err := launchtest.Touch(s.fake.Hold); err != nil {
		t.Fatal(err)
	}
	if err := result(t, done); err != nil {
		t.Fatal(err)
	}
	if !s.baseAnswers() {
		t.Fatal("Ensure returned, the base does not answer")
	}
	if msgs := m.list(); msgs[0] != "starting FakeCAD…" {
		t.Errorf("first progress message %q, want the start", msgs[0])
	}
	if err := l.Ensure(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if n := len(s.starts()); n != 1 {
		t.Fatalf("%d starts, want 1", n)
	}
}

// The program is detached: its own session and process group (Unix), no
// console (Windows), stdin not the bridge's.
func TestStartedDetached(t *testing.T) {
	s := newSetup(t)
	t.Setenv("CAD_MCP_TOKEN", "secret") // the bridge's, not CAD's business
	l := launch.New(s.options(nil))
	if err := l.Ensure(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	st := s.starts()[0]
	if st.Token {
		t.Error("CAD_MCP_TOKEN reached the program")
	}
	switch runtime.GOOS {
	case "windows":
		if st.ConsoleWindow != 0 || st.HasConsole {
			t.Errorf("the program has a console (window %#x, console output %v)", st.ConsoleWindow, st.HasConsole)
		}
	default:
		if st.Sid != st.Pid || st.Pgid != st.Pid {
			t.Errorf("session %d, process group %d: not its own (pid %d)", st.Sid, st.Pgid, st.Pid)
		}
		if g := launchtest.ProcessGroup(os.Getpid()); st.Pgid == g {
			t.Errorf("the program is in the test's process group %d", g)
		}
		if !st.StdinNull {
			t.Error("its stdin is not " + os.DevNull)
		}
	}
	// The line the program writes before its base listens: the one after
	// may still be on its way when Ensure sees the base accept.
	out, err := os.ReadFile(l.LogPath())
	if err != nil || !strings.Contains(string(out), "fake CAD program started") {
		t.Errorf("its output file %s: %q, %v", l.LogPath(), out, err)
	}
}

// A program that dies at start: a clear failure at once (not after Wait),
// with its exit status and last lines; then the back-off, answered at
// once until its last nanosecond, and a new start after it.
func TestDiesAtStartThenBacksOff(t *testing.T) {
	s := newSetup(t)
	s.fake.Exit = 3
	s.fake.Stderr = "FakeCAD: no licence\x1b[31m found"
	clk := newClock()
	o := s.options(clk)
	o.Command = s.fake.Command()
	l := launch.New(o)
	err := result(t, ensure(l, nil))
	var le *launch.Error
	if !errors.As(err, &le) || !errors.Is(err, launch.ErrFailed) {
		t.Fatalf("got %v, want a launch_failed *launch.Error", err)
	}
	for _, want := range []string{"exited with status 3", "FakeCAD: no licence\\x1b[31m found", o.Command.String(), l.LogPath(), "in 1m0s"} {
		if !strings.Contains(le.Msg, want) {
			t.Errorf("message lacks %q: %s", want, le.Msg)
		}
	}
	if le.Exit != "exited with status 3" || !le.RetryAt.Equal(clk.now().Add(time.Minute)) {
		t.Errorf("exit %q, retry at %v (now %v)", le.Exit, le.RetryAt, clk.now())
	}

	retry := le.RetryAt
	clk.set(retry.Add(-time.Nanosecond))
	err = l.Ensure(context.Background(), nil)
	if !errors.Is(err, launch.ErrBackoff) || !strings.Contains(err.Error(), "it exited with status 3") || !strings.Contains(err.Error(), retry.Format("15:04:05")) {
		t.Fatalf("1 ns before the back-off ends: %v", err)
	}
	if n := len(s.starts()); n != 1 {
		t.Fatalf("%d starts during the back-off, want 1", n)
	}

	// Another bridge (a Launcher of its own, the same lock file) backs
	// off too, with the reason.
	other := launch.New(o)
	if err := other.Ensure(context.Background(), nil); !errors.Is(err, launch.ErrBackoff) || !strings.Contains(err.Error(), "exited with status 3") {
		t.Fatalf("another bridge during the back-off: %v", err)
	}

	clk.set(retry)
	err = l.Ensure(context.Background(), nil)
	if !errors.Is(err, launch.ErrFailed) {
		t.Fatalf("when the back-off ends: %v, want a new start that fails", err)
	}
	if n := len(s.starts()); n != 2 {
		t.Fatalf("%d starts after the back-off, want 2", n)
	}
}

// A program that is not there: launch_failed at once, naming it.
func TestProgramMissing(t *testing.T) {
	s := newSetup(t)
	o := s.options(nil)
	o.Command = launch.Command{Path: filepath.Join(s.dir, "no such CAD", "cad.exe")}
	err := launch.New(o).Ensure(context.Background(), nil)
	if !errors.Is(err, launch.ErrFailed) || !strings.Contains(err.Error(), `could not start FakeCAD ("`+o.Command.Path+`")`) {
		t.Fatalf("got %v", err)
	}
}

// The base never comes: launch_timeout after Wait, the program left
// running; after the back-off, no second copy: the next Ensure waits for
// the first.
func TestTimeoutLeavesItRunning(t *testing.T) {
	s := newSetup(t)
	s.fake.Hold = filepath.Join(s.dir, "hold")
	clk := newClock()
	o := s.options(clk)
	o.Command = s.fake.Command()
	o.Wait = 200 * time.Millisecond
	l := launch.New(o)
	err := l.Ensure(context.Background(), nil)
	if !errors.Is(err, launch.ErrTimeout) || !strings.Contains(err.Error(), "is still running (pid") {
		t.Fatalf("got %v", err)
	}
	started, err := launchtest.WaitStarts(s.fake.Record, 1, limit) // it may record itself after the timeout
	if err != nil {
		t.Fatal(err)
	}
	pid := started[0].Pid
	if !launchtest.Alive(pid) {
		t.Fatal("the program was stopped at the timeout")
	}
	clk.set(clk.now().Add(time.Minute))
	o.Wait = limit
	l2 := launch.New(o) // another bridge, later
	m := newMessages("FakeCAD (pid")
	done := ensure(l2, m)
	m.wait(t, "FakeCAD (pid")
	if err := launchtest.Touch(s.fake.Hold); err != nil {
		t.Fatal(err)
	}
	if err := result(t, done); err != nil {
		t.Fatal(err)
	}
	if n := len(s.starts()); n != 1 {
		t.Fatalf("%d starts, want 1", n)
	}
}

// Three bridges at once (three Launchers on one lock file, as three
// processes have): one start; the two others wait for it and connect.
func TestOneLaunchAcrossBridges(t *testing.T) {
	s := newSetup(t)
	s.fake.Hold = filepath.Join(s.dir, "hold")
	o := s.options(nil)
	o.Command = s.fake.Command()
	var dones []chan error
	var waiting []*messages
	for range 3 {
		m := newMessages("another mcp-bridge is starting FakeCAD", "starting FakeCAD…")
		waiting = append(waiting, m)
		dones = append(dones, ensure(launch.New(o), m))
	}
	// One starts it, the two others wait for the lock.
	starters, waiters := 0, 0
	waitFor(t, "one start and two waiting bridges", func() bool {
		starters, waiters = 0, 0
		for _, m := range waiting {
			for _, msg := range m.list() {
				switch {
				case strings.HasPrefix(msg, "starting FakeCAD"):
					starters++
				case strings.HasPrefix(msg, "another mcp-bridge is starting FakeCAD"):
					waiters++
				}
			}
		}
		return starters+waiters >= 3
	})
	if starters != 1 || waiters != 2 {
		t.Fatalf("%d bridges started the program, %d waited", starters, waiters)
	}
	if err := launchtest.Touch(s.fake.Hold); err != nil {
		t.Fatal(err)
	}
	for i, d := range dones {
		if err := result(t, d); err != nil {
			t.Errorf("bridge %d: %v", i, err)
		}
	}
	if n := len(s.starts()); n != 1 {
		t.Fatalf("%d starts, want 1", n)
	}
}

// The caller gives up (a cancelled call): the program goes on starting,
// and the next Ensure waits for it instead of starting another.
func TestCancelledWaitThenWaitsForTheSameProgram(t *testing.T) {
	s := newSetup(t)
	s.fake.Hold = filepath.Join(s.dir, "hold")
	o := s.options(nil)
	o.Command = s.fake.Command()
	l := launch.New(o)
	ctx, cancel := context.WithCancel(context.Background())
	m := newMessages("starting FakeCAD…")
	done := make(chan error, 1)
	go func() { done <- l.Ensure(ctx, m.add) }()
	m.wait(t, "starting FakeCAD…")
	if _, err := launchtest.WaitStarts(s.fake.Record, 1, limit); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := result(t, done); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the context's error", err)
	}
	m2 := newMessages("FakeCAD (pid")
	done = ensure(l, m2)
	m2.wait(t, "FakeCAD (pid")
	if err := launchtest.Touch(s.fake.Hold); err != nil {
		t.Fatal(err)
	}
	if err := result(t, done); err != nil {
		t.Fatal(err)
	}
	if n := len(s.starts()); n != 1 {
		t.Fatalf("%d starts, want 1", n)
	}
}

// A launcher that hands over to another process and exits with status 0
// (macOS's open, a Windows stub) is no failure: the wait goes on.
func TestHandoverIsNoFailure(t *testing.T) {
	s := newSetup(t)
	s.fake.Hold = filepath.Join(s.dir, "hold")
	s.fake.Handover = true
	o := s.options(nil)
	o.Command = s.fake.Command()
	exited := make(chan struct{})
	var once sync.Once
	o.Log = zerolog.New(zerolog.MultiLevelWriter(zerolog.NewTestWriter(t), writerFunc(func(p []byte) {
		if strings.Contains(string(p), "exited with status 0") {
			once.Do(func() { close(exited) })
		}
	})))
	done := ensure(launch.New(o), nil)
	select {
	case <-exited:
	case err := <-done:
		t.Fatalf("Ensure returned %v when the launcher exited with status 0", err)
	case <-time.After(limit):
		t.Fatal("the launcher's exit was not seen")
	}
	if err := launchtest.Touch(s.fake.Hold); err != nil {
		t.Fatal(err)
	}
	if err := result(t, done); err != nil {
		t.Fatal(err)
	}
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// The lock file is read like anything else: a back-off longer than the
// bridge's own, or garbage, holds nothing off.
func TestLockFileNotTrusted(t *testing.T) {
	s := newSetup(t)
	o := s.options(nil)
	l := launch.New(o)
	lockPath := strings.TrimSuffix(l.LogPath(), ".log") + ".lock"
	for _, content := range []string{
		`{"backoffs":[{"command":` + strconv.Quote(o.Command.String()) + `,"until":"` + time.Now().Add(o.Backoff+time.Minute).Format(time.RFC3339Nano) + `","why":"forged"}]}`,
		"\x00\x01 not JSON",
	} {
		if err := os.WriteFile(lockPath, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := launch.New(o).Ensure(context.Background(), nil); err != nil {
			t.Fatalf("lock file %q: %v", content, err)
		}
		_ = launchtest.Touch(s.fake.Stop)
		pid := s.starts()[len(s.starts())-1].Pid
		waitFor(t, "the fake to stop", func() bool { return !launchtest.Alive(pid) })
		_ = os.Remove(s.fake.Stop)
	}
}

// TestOldLaunchForgotten: a launch the lock file names is waited for
// while its process runs, until it is older than the forget limit (10 min
// at least, three --launch-wait): then its process id, which may since be
// another program's (here this test's own, which runs on), holds nothing
// off and the program is started. One nanosecond either side of the limit.
func TestOldLaunchForgotten(t *testing.T) {
	s := newSetup(t)
	clk := newClock()
	o := s.options(clk) // Wait 30 s: the limit is 10 min
	lockPath := strings.TrimSuffix(launch.New(o).LogPath(), ".log") + ".lock"
	writeLock := func(started time.Time) {
		t.Helper()
		st := fmt.Sprintf(`{"pid":%d,"started":%q}`, os.Getpid(), started.Format(time.RFC3339Nano))
		if err := os.WriteFile(lockPath, []byte(st), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	writeLock(clk.now().Add(-10 * time.Minute))
	ctx, cancel := context.WithCancel(context.Background())
	m := newMessages("FakeCAD (pid")
	done := make(chan error, 1)
	go func() { done <- launch.New(o).Ensure(ctx, m.add) }()
	m.wait(t, "FakeCAD (pid") // waiting for the process the file names
	cancel()
	if err := result(t, done); !errors.Is(err, context.Canceled) {
		t.Fatalf("a launch 10 min old: %v, want waited for until cancelled", err)
	}
	if n := len(s.starts()); n != 0 {
		t.Fatalf("a launch 10 min old: %d starts, want it waited for", n)
	}

	writeLock(clk.now().Add(-10*time.Minute - time.Nanosecond))
	if err := launch.New(o).Ensure(context.Background(), nil); err != nil {
		t.Fatalf("a launch 10 min and 1 ns old: %v", err)
	}
	if n := len(s.starts()); n != 1 {
		t.Fatalf("a launch 10 min and 1 ns old: %d starts, want the program started", n)
	}
}

// TestFutureLaunchForgotten: a lock file naming a launch that started
// later than now (written while the clock was ahead: a dual-boot machine
// whose other system keeps the hardware clock in local time, a VM
// resumed, NTP stepping the clock back) says nothing about a launch on
// its way up: its process id, maybe another program's by now (here this
// test's own), holds nothing off. Before, a start in the future was never
// older than the forget limit: every launch waited the whole
// --launch-wait for a program that was not coming, until the clock caught
// up. A launch started now is waited for; one a nanosecond from now, or
// two hours, is not.
func TestFutureLaunchForgotten(t *testing.T) {
	s := newSetup(t)
	clk := newClock()
	o := s.options(clk)
	lockPath := strings.TrimSuffix(launch.New(o).LogPath(), ".log") + ".lock"
	writeLock := func(started time.Time) {
		t.Helper()
		st := fmt.Sprintf(`{"pid":%d,"started":%q}`, os.Getpid(), started.Format(time.RFC3339Nano))
		if err := os.WriteFile(lockPath, []byte(st), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	writeLock(clk.now())
	ctx, cancel := context.WithCancel(context.Background())
	m := newMessages("FakeCAD (pid")
	done := make(chan error, 1)
	go func() { done <- launch.New(o).Ensure(ctx, m.add) }()
	m.wait(t, "FakeCAD (pid") // waiting for the process the file names
	cancel()
	if err := result(t, done); !errors.Is(err, context.Canceled) {
		t.Fatalf("a launch started now: %v, want waited for until cancelled", err)
	}
	if n := len(s.starts()); n != 0 {
		t.Fatalf("a launch started now: %d starts, want it waited for", n)
	}

	for i, ahead := range []time.Duration{time.Nanosecond, 2 * time.Hour} {
		writeLock(clk.now().Add(ahead))
		m := newMessages("FakeCAD (pid")
		if err := launch.New(o).Ensure(context.Background(), m.add); err != nil {
			t.Fatalf("a launch started %v from now: %v", ahead, err)
		}
		if n := len(s.starts()); n != i+1 {
			t.Fatalf("a launch started %v from now: %d starts, want the program started (messages %q)", ahead, n, m.list())
		}
		_ = launchtest.Touch(s.fake.Stop)
		pid := s.starts()[i].Pid
		waitFor(t, "the fake to stop", func() bool { return !launchtest.Alive(pid) })
		_ = os.Remove(s.fake.Stop)
	}
}

// The last lines of output are bounded and printable.
func TestLastLines(t *testing.T) {
	s := newSetup(t)
	var out strings.Builder
	for i := range 30 {
		out.WriteString(strings.Repeat("x", i) + "\n")
	}
	out.WriteString(strings.Repeat("y", 500) + "\n\n\r\n")
	out.WriteString("bell\a and \xff\n")
	s.fake.Exit = 1
	s.fake.Stderr = out.String()
	o := s.options(nil)
	o.Command = s.fake.Command()
	err := launch.New(o).Ensure(context.Background(), nil)
	var le *launch.Error
	if !errors.As(err, &le) {
		t.Fatalf("got %v", err)
	}
	if len(le.Output) != 10 {
		t.Errorf("%d lines, want the last 10: %q", len(le.Output), le.Output)
	}
	if last := le.Output[len(le.Output)-1]; last != `bell\x07 and `+"\uFFFD" {
		t.Errorf("last line %q", last)
	}
	if long := le.Output[len(le.Output)-2]; len([]rune(long)) != 200 || !strings.HasSuffix(long, "…") {
		t.Errorf("a 500-character line became %d characters", len([]rune(long)))
	}
	if strings.Contains(le.Msg, "\n") {
		t.Errorf("message has a line break: %q", le.Msg)
	}
}

// A folder for the lock and the output that cannot be made does not stop
// the launch: no lock between bridges then, and the output goes nowhere.
func TestNoFolderStillStarts(t *testing.T) {
	s := newSetup(t)
	o := s.options(nil)
	o.Dir = filepath.Join(s.dir, "a file")
	if err := os.WriteFile(o.Dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := launch.New(o).Ensure(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if n := len(s.starts()); n != 1 {
		t.Fatalf("%d starts, want 1", n)
	}
}

// The back-off belongs to the command that failed: after command A (a
// mistyped program) fails, another bridge's command B (the corrected one)
// is tried at once, not answered with A's failure; A itself, in this
// bridge or another, is still backed off, after B's attempt too.
func TestBackoffBelongsToTheCommand(t *testing.T) {
	s := newSetup(t)
	clk := newClock()
	a := s.options(clk)
	a.Command = launch.Command{Path: filepath.Join(s.dir, "fraecad")}
	if err := launch.New(a).Ensure(context.Background(), nil); !errors.Is(err, launch.ErrFailed) {
		t.Fatalf("A: %v, want launch_failed", err)
	}
	if err := launch.New(a).Ensure(context.Background(), nil); !errors.Is(err, launch.ErrBackoff) {
		t.Fatalf("A again (another bridge): %v, want launch_backoff", err)
	}

	// B fails too, for a reason of its own: tried, not backed off.
	b := s.options(clk)
	b.Command = launch.Command{Path: filepath.Join(s.dir, "freecda")}
	err := launch.New(b).Ensure(context.Background(), nil)
	if !errors.Is(err, launch.ErrFailed) || strings.Contains(err.Error(), "fraecad") || !strings.Contains(err.Error(), "freecda") {
		t.Fatalf("B after A failed: %v, want B tried (launch_failed naming B only)", err)
	}
	err = launch.New(a).Ensure(context.Background(), nil)
	if !errors.Is(err, launch.ErrBackoff) || !strings.Contains(err.Error(), "fraecad") || strings.Contains(err.Error(), "freecda") {
		t.Fatalf("A after B was tried: %v, want A's own back-off", err)
	}

	// C, the right program: started at once, its base up.
	c := s.options(clk)
	if err := result(t, ensure(launch.New(c), nil)); err != nil {
		t.Fatalf("C, the fake CAD, after A and B failed: %v", err)
	}
	if n := len(s.starts()); n != 1 {
		t.Fatalf("%d starts of C, want 1", n)
	}
}
