package launch

import (
	"fmt"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/mcp-bridge/mcp-bridge/configs/cut"
)

// Kind is one way a launch can fail. Branch on it with errors.Is.
type Kind struct{ name string }

func (k *Kind) Error() string { return k.name }

// String is the kind's name, as clients read it in data.kind.
func (k *Kind) String() string { return k.name }

// The kinds of failed launches.
var (
	// ErrFailed: the program could not be started, or it exited with a
	// failure before its base accepted connections.
	ErrFailed = &Kind{"launch_failed"}
	// ErrTimeout: the base did not accept connections within Wait.
	ErrTimeout = &Kind{"launch_timeout"}
	// ErrBackoff: a launch failed or timed out less than Backoff ago;
	// nothing was started.
	ErrBackoff = &Kind{"launch_backoff"}
)

// Error is a failed launch: Msg says what was started, how long it
// waited, how the program ended and its last lines of output, and when
// the next launch may be tried.
type Error struct {
	Kind    *Kind
	Msg     string
	Command string        // the command, as Command.String shows it
	Waited  time.Duration // how long the launch waited for the base
	Exit    string        // how the program ended ("exit status 3"), "" when it runs
	Output  []string      // its last lines of output (stdout and stderr)
	Log     string        // the file with all its output
	RetryAt time.Time     // when the next launch may be tried
}

func (e *Error) Error() string { return e.Msg }

// Unwrap exposes the kind, for errors.Is.
func (e *Error) Unwrap() error { return e.Kind }

// retryText says when the next launch may be tried.
func retryText(now, until time.Time) string {
	return fmt.Sprintf("Until %s (in %s) calls are answered at once without starting it again; start it yourself to go on sooner.",
		until.Format("15:04:05"), until.Sub(now).Round(time.Second))
}

func (l *Launcher) backoffError(now, until time.Time, why string) *Error {
	return &Error{Kind: ErrBackoff, Command: l.o.Command.String(), RetryAt: until, Msg: fmt.Sprintf(
		"CAD base at %s is down, and mcp-bridge's last start of %s (%s) failed: %s. It tries again after %s (in %s); until then calls are answered at once. Start %s yourself to go on sooner.",
		l.o.Addr, l.o.Name, l.o.Command, why, until.Format("15:04:05"), until.Sub(now).Round(time.Second), l.o.Name)}
}

func (l *Launcher) exitError(p proc, how string, waited time.Duration, own bool) *Error {
	who := "mcp-bridge started"
	if !own {
		who = "another mcp-bridge had started"
	}
	e := &Error{Kind: ErrFailed, Command: l.o.Command.String(), Waited: waited, Exit: how, Log: l.logPath}
	var err error
	e.Output, err = lastLines(l.logPath, 10, 2000)
	e.Msg = fmt.Sprintf("CAD base at %s was down; %s %s (%s), which %s after %s without its MCP base accepting connections.%s",
		l.o.Addr, who, l.o.Name, l.o.Command, how, waited.Round(100*time.Millisecond), outputText(e.Output, err, l.logPath))
	return e
}

func (l *Launcher) timeoutError(p proc, waited time.Duration, own bool) *Error {
	who := "mcp-bridge started"
	if !own {
		who = "an earlier launch had started"
	}
	e := &Error{Kind: ErrTimeout, Command: l.o.Command.String(), Waited: waited, Log: l.logPath}
	var err error
	e.Output, err = lastLines(l.logPath, 10, 2000)
	e.Msg = fmt.Sprintf("CAD base at %s was down; %s %s (%s) and waited %s, but its MCP base did not accept connections. %s is still running (pid %d) and is left alone: check that it starts its MCP base (and on which port), or raise --launch-wait.%s",
		l.o.Addr, who, l.o.Name, l.o.Command, waited.Round(time.Second), l.o.Name, p.id(), outputText(e.Output, err, l.logPath))
	return e
}

// outputText is the program's last lines for a message, or why there are
// none.
func outputText(lines []string, err error, log string) string {
	if err != nil {
		return fmt.Sprintf(" Its output cannot be read (%s).", printable(err.Error()))
	}
	if len(lines) == 0 {
		return fmt.Sprintf(" It wrote nothing (%s).", log)
	}
	return fmt.Sprintf(" Its last lines of output (all of it is in %s): %s.", log, strings.Join(lines, " | "))
}

// lastLines is the end of the program's output: at most n non-empty
// lines, at most max bytes in all, each line's control characters
// escaped (the output is the program's, read by an assistant). Only the
// user's own output file is read (openOwn): what another account put at
// its name, or a link to another file, is not quoted.
func lastLines(path string, n, max int) ([]string, error) {
	f, err := openOwn(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	const window = 16 << 10
	var buf []byte
	if fi, err := f.Stat(); err == nil && fi.Size() > window {
		if _, err := f.Seek(fi.Size()-window, 0); err != nil {
			return nil, err
		}
	}
	buf = make([]byte, window)
	k, _ := f.Read(buf)
	buf = buf[:k]
	var out []string
	size := 0
	lines := strings.Split(strings.ToValidUTF8(string(buf), "\uFFFD"), "\n")
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		line := strings.TrimSpace(lines[i])
		if line == "" {
			continue
		}
		line = printable(line)
		line = cut.Chars(line, 200)
		if size+len(line) > max {
			break
		}
		size += len(line)
		out = append(out, line)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// printable escapes controls and invisible formatting (\x1b, \u202e) in
// s, and makes it valid UTF-8; everything else, backslashes included,
// stays as it is. What a program writes, or a command holds, cannot then
// break a message's line, move a terminal's cursor or reorder its text.
func printable(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == ' ' || r == '\t' || unicode.IsGraphic(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			fmt.Fprintf(&b, "\\u%04x", r)
		}
	}
	return b.String()
}

// proc is a program a launch waits for: one this process started (child,
// whose exit it sees), or one another bridge started (foreign: only
// whether it runs is known).
type proc interface {
	id() int
	done() <-chan struct{} // closed when it has exited; nil when that is not seen
	// failure, once done: how it ended, and whether that is a failure
	// (status 0 is not: a launcher that hands over to another process).
	failure() (how string, failed bool)
}

func (c *child) id() int                 { return c.pid }
func (c *child) done() <-chan struct{}   { return c.exited }
func (c *child) failure() (string, bool) { return exitText(c.state, c.waitErr) }

// exitText says how a program ended: "exited with status 3", "was killed
// by signal 9" (as Go words it), and whether that is a failure.
func exitText(st *os.ProcessState, waitErr error) (string, bool) {
	if st == nil {
		return fmt.Sprintf("could not be waited for (%v)", waitErr), true
	}
	if st.Exited() {
		return fmt.Sprintf("exited with status %d", st.ExitCode()), st.ExitCode() != 0
	}
	return "ended: " + st.String(), true
}

type foreign int

func (f foreign) id() int                 { return int(f) }
func (f foreign) done() <-chan struct{}   { return nil }
func (f foreign) failure() (string, bool) { return "exited", true }
