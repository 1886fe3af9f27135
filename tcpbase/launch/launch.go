package launch

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Command is the program to start and its arguments. Each is passed as
// it is, with no shell and no word splitting: a Windows path with spaces
// is one argument.
type Command struct {
	Path string
	Args []string
}

// String is the command as messages show it, on one line: each word in
// double quotes when it holds a space, a quote or nothing, controls
// escaped (printable).
func (c Command) String() string {
	words := make([]string, 0, 1+len(c.Args))
	for _, w := range append([]string{c.Path}, c.Args...) {
		p := printable(w)
		if p == "" || p != w || strings.ContainsAny(w, " \t\"'") {
			p = `"` + strings.ReplaceAll(p, `"`, `\"`) + `"`
		}
		words = append(words, p)
	}
	return strings.Join(words, " ")
}

// Options configure a Launcher. Zero durations take the defaults.
type Options struct {
	Command Command
	// Name is what messages call the program ("starting FreeCAD…");
	// default CADName.
	Name string
	// Addr is the base's address, host:port: the launch is over once it
	// accepts a TCP connection.
	Addr string
	// Dir holds the lock file and the program's output (beside the tool
	// cache); default the system's temporary folder.
	Dir string
	// Wait bounds the wait for the base after the start; default
	// DefaultWait, long enough for a CAD program's first start.
	Wait time.Duration
	// Backoff: after a failed or timed-out launch, for this long every
	// Ensure fails at once; default DefaultBackoff.
	Backoff time.Duration
	// ProgressEvery spaces the "waiting for its MCP base" messages; 0 for
	// none (the start is still reported), as the bridge's
	// --progress-interval 0.
	ProgressEvery time.Duration
	// Env is the program's environment; nil: this process's, without
	// CAD_MCP_TOKEN (a bridge's bearer token is nothing CAD needs).
	Env []string
	// Now is the clock, for tests of the back-off; default time.Now.
	Now func() time.Time
	Log zerolog.Logger
}

// Launcher starts the program when the base is down. Safe for concurrent
// use: one Ensure at a time per Launcher, one launch at a time per base
// across processes (the lock file).
type Launcher struct {
	o        Options
	lockPath string
	logPath  string

	mu sync.Mutex // one Ensure at a time in this process
	// until and why: this process's view of the back-off (the lock file
	// has the shared one).
	until time.Time
	why   string
	// child is the program this process started last, nil before: its
	// exit status is known here only.
	child *child
}

// child is a program this process started, reaped by its own goroutine
// (so that no zombie remains while the bridge lives), never stopped.
type child struct {
	pid     int
	started time.Time
	exited  chan struct{}
	state   *os.ProcessState // set before exited is closed
	waitErr error
}

// New returns a Launcher for o.
func New(o Options) *Launcher {
	if o.Wait <= 0 {
		o.Wait = DefaultWait
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Name == "" {
		o.Name = CADName(o.Command)
	}
	if o.Dir == "" {
		o.Dir = os.TempDir()
	}
	base := "launch-" + safeName(o.Addr)
	return &Launcher{o: o, lockPath: filepath.Join(o.Dir, base+".lock"), logPath: filepath.Join(o.Dir, base+".log")}
}

// DefaultName is what messages call a program: its file's name without
// the extension ("freecad", "acad").
func DefaultName(path string) string {
	name := filepath.Base(strings.ReplaceAll(path, `\`, "/"))
	if ext := filepath.Ext(name); ext != "" && len(ext) < len(name) {
		name = strings.TrimSuffix(name, ext)
	}
	return name
}

// safeName is addr as a file name: ':' is not allowed on Windows.
func safeName(addr string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, addr)
}

// Name is what messages call the program.
func (l *Launcher) Name() string { return l.o.Name }

// Command is the command the launcher starts.
func (l *Launcher) Command() Command { return l.o.Command }

// LogPath is the file the program's stdout and stderr go to.
func (l *Launcher) LogPath() string { return l.logPath }

// Ensure returns nil once the base at Addr accepts connections, starting
// the program when nothing does and no other launch is under way. progress
// (may be nil) hears what happens: "starting FreeCAD…", "waiting for its
// MCP base at ADDR (10 s)". It fails with an *Error (launch_failed,
// launch_timeout, launch_backoff), or with ctx's error when ctx ends
// first: the program goes on starting, and the next Ensure waits for it
// rather than start another.
func (l *Launcher) Ensure(ctx context.Context, progress func(string)) error {
	if progress == nil {
		progress = func(string) {}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.up(ctx) {
		return nil
	}
	if now := l.o.Now(); now.Before(l.until) {
		return l.backoffError(now, l.until, l.why)
	}
	lk, err := l.lock(ctx, progress)
	if err != nil {
		return err
	}
	if lk == nil {
		return nil // the base came up while another bridge held the lock
	}
	defer lk.release()
	if l.up(ctx) {
		return nil // another bridge's launch: just connect
	}
	now := l.o.Now()
	st := lk.read()
	if b, ok := st.backoffFor(l.o.Command.String(), now, l.o.Backoff); ok {
		// Another bridge's launch of this command failed, or this one's
		// (the file outlives processes): every bridge backs off alike.
		// Another command's failure holds nothing off: it is tried now.
		l.until, l.why = b.Until, b.Why
		return l.backoffError(now, b.Until, b.Why)
	}
	if p := l.stillStarting(st, now); p != nil {
		return l.await(ctx, lk, p, st.Started, progress, false)
	}
	return l.start(ctx, lk, progress)
}

// up reports whether the base accepts a TCP connection now.
func (l *Launcher) up(ctx context.Context) bool {
	d := net.Dialer{Timeout: time.Second}
	c, err := d.DialContext(ctx, "tcp", l.o.Addr)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// lock takes the lock file, waiting while another bridge holds it (it is
// starting the program). It returns nil, nil when the base came up
// meanwhile. A lock file that cannot be made is logged and done without:
// this process still launches one at a time.
func (l *Launcher) lock(ctx context.Context, progress func(string)) (*lockedFile, error) {
	lk, err := openLock(l.lockPath)
	if err != nil {
		l.o.Log.Warn().Err(err).Str("lock", l.lockPath).Msg("no launch lock file: other bridges on this machine may start the CAD program too")
		return &lockedFile{}, nil
	}
	got, err := lk.try()
	if err != nil {
		lk.close()
		l.o.Log.Warn().Err(err).Str("lock", l.lockPath).Msg("the launch lock file cannot be locked: other bridges on this machine may start the CAD program too")
		return &lockedFile{}, nil
	}
	if got {
		return lk, nil
	}
	l.o.Log.Info().Str("lock", l.lockPath).Msg("another mcp-bridge is starting the CAD program; waiting for it")
	start := time.Now()
	say := func() {
		progress(fmt.Sprintf("another mcp-bridge is starting %s; waiting for it (%d s)", l.o.Name, seconds(time.Since(start))))
	}
	say()
	poll := newPoll(l.o.ProgressEvery)
	defer poll.stop()
	for {
		select {
		case <-ctx.Done():
			lk.close()
			return nil, ctx.Err()
		case <-poll.tick():
		case <-poll.progress():
			say()
			continue
		}
		poll.rearm()
		if got, err := lk.try(); got {
			return lk, nil
		} else if err != nil {
			lk.close()
			return &lockedFile{}, nil
		}
		if l.up(ctx) {
			lk.close()
			return nil, nil
		}
		if waited := time.Since(start); waited >= l.o.Wait {
			lk.close()
			return nil, &Error{Kind: ErrTimeout, Command: l.o.Command.String(), Waited: waited, Msg: fmt.Sprintf(
				"CAD base at %s is down, and another mcp-bridge on this machine has been starting %s for %s (the lock %s is taken); it did not finish in time.",
				l.o.Addr, l.o.Name, waited.Round(time.Second), l.lockPath)}
		}
	}
}

// stillStarting is a program an earlier launch started (this process's,
// or another bridge's per the lock file) that may still be on its way up:
// not known to have come up, and still running. Waiting for it beats
// starting a second copy of CAD. A launch older than forget is forgotten,
// so that a process id used again by another program cannot hold
// launches off for ever; so is one that started later than now: the file
// was written while the clock was ahead (a dual-boot machine whose other
// system keeps the hardware clock in local time, a VM resumed, NTP
// stepping the clock back), and how long ago that launch really was is
// anyone's guess. Waiting for it would hold every launch off until the
// clock caught up with it.
func (l *Launcher) stillStarting(st state, now time.Time) proc {
	if c := l.child; c != nil && c.pid == st.Pid && !st.Up {
		select {
		case <-c.exited:
			return nil
		default:
			return c
		}
	}
	forget := max(10*time.Minute, 3*l.o.Wait)
	if st.Pid <= 0 || st.Up || now.Sub(st.Started) > forget || st.Started.After(now) || !alive(st.Pid) {
		return nil
	}
	return foreign(st.Pid)
}

// start starts the program and waits for its base.
func (l *Launcher) start(ctx context.Context, lk *lockedFile, progress func(string)) error {
	progress(fmt.Sprintf("starting %s…", l.o.Name))
	l.o.Log.Info().Str("command", l.o.Command.String()).Str("base", l.o.Addr).Str("output", l.logPath).Msg("CAD base is down: starting the CAD program")
	started := l.o.Now()
	c, err := l.spawn()
	if err != nil {
		why := fmt.Sprintf("it could not be started: %v", err)
		return l.fail(lk, &Error{Kind: ErrFailed, Command: l.o.Command.String(), Msg: fmt.Sprintf(
			"CAD base at %s is down, and mcp-bridge could not start %s (%s): %s. Check --launch (mcp-bridge doctor shows whether the program is found).",
			l.o.Addr, l.o.Name, l.o.Command, strings.TrimSuffix(err.Error(), "."))}, why, nil, time.Time{})
	}
	l.child = c
	lk.write(state{Pid: c.pid, Started: started, Backoffs: lk.read().withBackoff(l.o.Command.String(), backoff{}, started)})
	l.o.Log.Info().Int("pid", c.pid).Msg("CAD program started; waiting for its base")
	return l.await(ctx, lk, c, started, progress, true)
}

// spawn starts the program detached (detach, per system), its output
// appended to the log file, and reaps it in the background.
func (l *Launcher) spawn() (*child, error) {
	// Its output goes to the log file; where that cannot be made, nowhere
	// (the program starts all the same, its last lines are not known).
	_ = os.MkdirAll(l.o.Dir, 0o700)
	out, err := openOwn(l.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
	if err == nil {
		if err = out.Truncate(0); err != nil { // emptied once it is known to be the user's own
			out.Close()
		}
	}
	if err != nil {
		l.o.Log.Warn().Err(err).Msg("the CAD program's output goes nowhere: its file cannot be written")
		if out, err = os.OpenFile(os.DevNull, os.O_WRONLY, 0); err != nil {
			return nil, err
		}
	}
	defer out.Close() // the program has its own copy
	in, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	cmd := exec.Command(l.o.Command.Path, l.o.Command.Args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, out
	cmd.Env = l.o.Env
	if cmd.Env == nil {
		cmd.Env = withoutToken(os.Environ())
	}
	// In the home folder, as a desktop launcher starts it (the bridge's own
	// folder is its client's choice); where there is none, the bridge's.
	if home, err := os.UserHomeDir(); err == nil {
		if st, err := os.Stat(home); err == nil && st.IsDir() {
			cmd.Dir = home
		}
	}
	cmd, err = startDetached(cmd, l.o.Log)
	if err != nil {
		return nil, err
	}
	c := &child{pid: cmd.Process.Pid, started: time.Now(), exited: make(chan struct{})}
	go func() {
		c.waitErr = cmd.Wait()
		c.state = cmd.ProcessState
		close(c.exited)
	}()
	return c, nil
}

func withoutToken(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "CAD_MCP_TOKEN=") {
			out = append(out, kv)
		}
	}
	return out
}

// await waits for the base while p runs: polling the dial with backoff,
// telling progress every ProgressEvery, ending early when p exits with a
// failure. own: this Ensure started p (else it waits for an earlier one,
// started at started).
func (l *Launcher) await(ctx context.Context, lk *lockedFile, p proc, started time.Time, progress func(string), own bool) error {
	t0 := time.Now()
	if !own {
		progress(fmt.Sprintf("%s (pid %d) is already starting; waiting for its MCP base at %s", l.o.Name, p.id(), l.o.Addr))
		l.o.Log.Info().Int("pid", p.id()).Msg("the CAD program an earlier launch started still runs: waiting for its base instead of starting another")
	}
	poll := newPoll(l.o.ProgressEvery)
	defer poll.stop()
	exited := p.done()
	for {
		select {
		case <-ctx.Done():
			// The program goes on; the lock file says it is starting.
			return ctx.Err()
		case <-exited:
			exited = nil // seen once: after a hand-over (status 0) the wait goes on
			if how, failed := p.failure(); failed && !l.up(ctx) {
				return l.fail(lk, l.exitError(p, how, time.Since(t0), own), "it "+how, nil, time.Time{})
			}
			l.o.Log.Info().Int("pid", p.id()).Msg("the launch command exited with status 0 (a launcher that hands over to another process?); still waiting for the base")
			continue
		case <-poll.progress():
			progress(fmt.Sprintf("waiting for its MCP base at %s (%d s)", l.o.Addr, seconds(time.Since(t0))))
			continue
		case <-poll.tick():
		}
		poll.rearm()
		if l.up(ctx) {
			return l.succeed(lk, p, t0)
		}
		if f, ok := p.(foreign); ok && !alive(int(f)) {
			return l.fail(lk, l.exitError(p, "exited", time.Since(t0), own), "it exited", nil, time.Time{})
		}
		if waited := time.Since(t0); waited >= l.o.Wait {
			return l.fail(lk, l.timeoutError(p, waited, own), fmt.Sprintf("its MCP base did not accept connections within %s", l.o.Wait), p, started)
		}
	}
}

func (l *Launcher) succeed(lk *lockedFile, p proc, t0 time.Time) error {
	lk.write(state{Up: true})
	l.until, l.why = time.Time{}, ""
	l.o.Log.Info().Int("pid", p.id()).Dur("after_ms", time.Since(t0)).Str("base", l.o.Addr).Msg("the CAD program's base accepts connections")
	return nil
}

// fail records a failed launch: the back-off starts, here and for every
// bridge (the lock file), and e says when it ends. running is the program
// when it still runs (a timeout), started when it was started: after the
// back-off, the next launch waits for it rather than start another.
func (l *Launcher) fail(lk *lockedFile, e *Error, why string, running proc, started time.Time) error {
	now := l.o.Now()
	until := now.Add(l.o.Backoff)
	e.RetryAt = until
	e.Msg += " " + retryText(now, until)
	cmd := l.o.Command.String()
	st := state{Backoffs: lk.read().withBackoff(cmd, backoff{Command: cmd, Until: until, Why: why}, now)}
	if running != nil {
		st.Pid, st.Started = running.id(), started
	}
	lk.write(st)
	l.until, l.why = until, why
	l.o.Log.Warn().Str("kind", e.Kind.String()).Str("error", e.Msg).Msg("launching the CAD program failed")
	return e
}

// seconds is d in whole seconds, for progress messages.
func seconds(d time.Duration) int { return int(d.Round(time.Second) / time.Second) }
