package verify

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Bridge is one bridge child process and the client end of its stdio: the
// one driver every job of verify (and its tests) uses.
//
// One goroutine reads stdout line by line: it checks each line with the
// purity rule of CheckStdout and hands it to Recv. After stdout ends it
// waits for the process; exited is closed once the exit status is known.
type Bridge struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr io.Writer // where the log goes: o.Stderr or logs
	logs   LockedBuffer

	mu      sync.Mutex
	written int64  // bytes the bridge wrote to stdout
	impure  string // the first offence against the purity rule, or ""

	killed  chan struct{} // closed by Kill: lines nobody will read are dropped
	once    sync.Once
	exited  chan struct{}
	waitErr error // set before exited is closed; read only after
}

// Options configure Start.
type Options struct {
	// Env is added to this process's environment.
	Env []string
	// Stderr receives the bridge's log. Nil keeps it for Stderr().
	Stderr io.Writer
}

// Start starts the bridge binary bin with args.
func Start(bin string, args []string, o Options) (*Bridge, error) {
	b := &Bridge{lines: make(chan string, 4096), killed: make(chan struct{}), exited: make(chan struct{})}
	b.stderr = &b.logs
	if o.Stderr != nil {
		b.stderr = o.Stderr
	}
	var out io.ReadCloser
	cmd, err := startCmd(func() (*exec.Cmd, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(cmd.Environ(), o.Env...)
		cmd.Stderr = b.stderr
		var err error
		if b.stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
		out, err = cmd.StdoutPipe()
		return cmd, err
	})
	if err != nil {
		return nil, err
	}
	b.cmd = cmd
	go b.readStdout(out)
	return b, nil
}

// readStdout hands each stdout line to Recv until stdout ends, then waits
// for the process. It ends when the bridge closes stdout (or exits).
func (b *Bridge) readStdout(out io.Reader) {
	r := bufio.NewReaderSize(out, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			b.note(line)
		}
		if len(line) > 0 && line[len(line)-1] == '\n' {
			select {
			case b.lines <- string(line[:len(line)-1]):
			case <-b.killed:
			}
		}
		if err != nil {
			break
		}
	}
	close(b.lines)
	b.waitErr = b.cmd.Wait()
	close(b.exited)
}

// note counts a piece of stdout and checks it against the purity rule.
func (b *Bridge) note(line []byte) {
	bad := CheckStdout(line)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.written += int64(len(line))
	if b.impure == "" {
		b.impure = bad
	}
}

// Send writes one line (a newline is added).
func (b *Bridge) Send(line string) error {
	_, err := io.WriteString(b.stdin, line+"\n")
	return err
}

// SendRaw writes bytes as they are.
func (b *Bridge) SendRaw(p []byte) error {
	_, err := b.stdin.Write(p)
	return err
}

// ErrTimeout is returned by Recv when no line came in time.
var ErrTimeout = errors.New("no answer in time")

// Recv returns the next line the bridge wrote, waiting at most d.
func (b *Bridge) Recv(d time.Duration) (string, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case l, ok := <-b.lines:
		if !ok {
			return "", b.closedStdout()
		}
		return l, nil
	case <-t.C:
		return "", ErrTimeout
	}
}

// closedStdout says that stdout ended, and how the process did if known.
func (b *Bridge) closedStdout() error {
	select {
	case <-b.exited:
		return fmt.Errorf("the bridge closed stdout and exited (%s)", b.exitStatus())
	default:
		return errors.New("the bridge closed stdout")
	}
}

// exitStatus describes how the process ended; call it after exited.
func (b *Bridge) exitStatus() string {
	if b.waitErr != nil {
		return b.waitErr.Error()
	}
	return "exit status 0"
}

// Quiet reports whether no line arrives within d, and the line if one did.
func (b *Bridge) Quiet(d time.Duration) (string, bool) {
	l, err := b.Recv(d)
	if errors.Is(err, ErrTimeout) {
		return "", true
	}
	return l, false
}

// CloseStdin ends the bridge's input, as a client that quits does.
func (b *Bridge) CloseStdin() error { return b.stdin.Close() }

// Wait waits up to d for the process to exit and returns its exit code.
func (b *Bridge) Wait(d time.Duration) (int, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-b.exited:
		if b.cmd.ProcessState == nil {
			return -1, b.waitErr
		}
		return b.cmd.ProcessState.ExitCode(), nil
	case <-t.C:
		return -1, errors.New("the bridge did not exit in time")
	}
}

// Exited is closed once the process has exited and stdout has ended.
func (b *Bridge) Exited() <-chan struct{} { return b.exited }

// Signal sends sig to the process.
func (b *Bridge) Signal(sig os.Signal) error { return b.cmd.Process.Signal(sig) }

// Kill ends the process at once and waits for it.
func (b *Bridge) Kill() {
	b.once.Do(func() { close(b.killed) })
	_ = b.cmd.Process.Kill()
	<-b.exited
}

// PID is the bridge's process id.
func (b *Bridge) PID() int { return b.cmd.Process.Pid }

// Written is how many bytes the bridge has written to stdout so far.
func (b *Bridge) Written() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.written
}

// Impure describes the first piece of stdout that was not one protocol
// message on its own line (see CheckStdout), or is "" when all were. Call
// it after the process exited to include an unterminated last line.
func (b *Bridge) Impure() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.impure
}

// Stderr is what the bridge has logged so far, when Options.Stderr was nil.
func (b *Bridge) Stderr() string { return b.logs.String() }

// Close kills the process if it still runs.
func (b *Bridge) Close() {
	select {
	case <-b.exited:
	default:
		b.Kill()
	}
}

// LockedBuffer is a bytes.Buffer that goroutines may write and read at once.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String returns what was written so far.
func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
