package verify

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"
)

// Session is one bridge process and the client end of its stdio.
type Session struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string

	mu     sync.Mutex
	stdout bytes.Buffer // every byte the bridge wrote to stdout
	stderr bytes.Buffer

	exited  chan struct{}
	waitErr error
}

// StartSession starts the bridge binary with args and extra environment.
func StartSession(bin string, args []string, env []string) (*Session, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(cmd.Environ(), env...)
	s := &Session{cmd: cmd, lines: make(chan string, 4096), exited: make(chan struct{})}
	var err error
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = lockedWriter{&s.mu, &s.stderr}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		r := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			s.mu.Lock()
			s.stdout.Write(line)
			s.mu.Unlock()
			if len(line) > 0 && line[len(line)-1] == '\n' {
				s.lines <- string(line[:len(line)-1])
			}
			if err != nil {
				break
			}
		}
		close(s.lines)
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	return s, nil
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Send writes one line (a newline is added).
func (s *Session) Send(line string) error {
	_, err := io.WriteString(s.stdin, line+"\n")
	return err
}

// SendRaw writes bytes as they are.
func (s *Session) SendRaw(b []byte) error {
	_, err := s.stdin.Write(b)
	return err
}

// errTimeout is returned by Recv when no line came in time.
var errTimeout = errors.New("no answer in time")

// Recv returns the next line the bridge wrote, waiting at most d.
func (s *Session) Recv(d time.Duration) (string, error) {
	select {
	case l, ok := <-s.lines:
		if !ok {
			return "", fmt.Errorf("the bridge closed stdout (exited: %v)", s.waitErr)
		}
		return l, nil
	case <-time.After(d):
		return "", errTimeout
	}
}

// Quiet reports whether no line arrives within d.
func (s *Session) Quiet(d time.Duration) (string, bool) {
	l, err := s.Recv(d)
	if errors.Is(err, errTimeout) {
		return "", true
	}
	return l, false
}

// CloseStdin ends the bridge's input, as a client that quits does.
func (s *Session) CloseStdin() error { return s.stdin.Close() }

// Wait waits up to d for the process to exit and returns its exit code.
func (s *Session) Wait(d time.Duration) (int, error) {
	select {
	case <-s.exited:
		if s.cmd.ProcessState == nil {
			return -1, s.waitErr
		}
		return s.cmd.ProcessState.ExitCode(), nil
	case <-time.After(d):
		return -1, errors.New("the bridge did not exit in time")
	}
}

// Kill ends the process at once and waits for it.
func (s *Session) Kill() {
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// PID is the bridge's process id.
func (s *Session) PID() int { return s.cmd.Process.Pid }

// Stdout is every byte the bridge has written to stdout so far.
func (s *Session) Stdout() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.stdout.Bytes())
}

// Stderr is what the bridge has logged so far.
func (s *Session) Stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// Close kills the process if it still runs.
func (s *Session) Close() {
	select {
	case <-s.exited:
	default:
		s.Kill()
	}
}
