package launch

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// state is the last launch of a base, kept in its lock file so that every
// bridge on the machine sees it: a program on its way up (Pid, Started),
// the base up (Up), or a failure that holds launches off until Until.
// The file is the user's, but what it says is checked like anything read:
// a back-off longer than this bridge's own is ignored, and Why is cut.
type state struct {
	Pid     int       `json:"pid,omitempty"`
	Started time.Time `json:"started,omitzero"`
	Up      bool      `json:"up,omitempty"`
	Until   time.Time `json:"until,omitzero"`
	Why     string    `json:"why,omitempty"`
}

// maxWhy bounds the reason a back-off gives.
const maxWhy = 1000

// lockedFile is the lock file, held. Its zero value (no file: it could
// not be made) reads nothing, writes nothing and releases nothing.
type lockedFile struct{ f *os.File }

// openLock opens (creating) the lock file: readable by this user only,
// and only the user's own (openOwn).
func openLock(path string) (*lockedFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := openOwn(path, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, err
	}
	return &lockedFile{f: f}, nil
}

// openOwn opens path (creating it 0600 when flag says so) only when it is
// a regular file of this user's that nobody else may write (mine): no
// link followed, and a FIFO or device put there is refused without
// waiting for its other end.
func openOwn(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|openNoFollow, 0o600)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	if err == nil {
		err = mine(fi)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// try takes the lock if it is free; it never waits.
func (lk *lockedFile) try() (bool, error) { return tryLock(lk.f) }

func (lk *lockedFile) close() {
	if lk.f != nil {
		lk.f.Close()
	}
}

// release gives the lock up (closing the file does too, on every system).
func (lk *lockedFile) release() {
	if lk.f != nil {
		unlock(lk.f)
		lk.f.Close()
	}
}

// read is the state the file holds; the zero state when it holds none
// that can be read.
func (lk *lockedFile) read() state {
	var st state
	if lk.f == nil {
		return st
	}
	if _, err := lk.f.Seek(0, io.SeekStart); err != nil {
		return st
	}
	data, err := io.ReadAll(io.LimitReader(lk.f, 8<<10))
	if err != nil || json.Unmarshal(data, &st) != nil {
		return state{}
	}
	if r := []rune(st.Why); len(r) > maxWhy {
		st.Why = string(r[:maxWhy]) + "…"
	}
	return st
}

// write replaces the state (the lock is held).
func (lk *lockedFile) write(st state) {
	if lk.f == nil {
		return
	}
	data, _ := json.Marshal(st) // plain fields always marshal
	if err := lk.f.Truncate(0); err != nil {
		return
	}
	_, _ = lk.f.WriteAt(append(data, '\n'), 0)
}

// poll paces a wait: a dial that backs off from 50 ms to 1 s (tick, then
// rearm), and progress every every (none when every < 0).
type poll struct {
	next  time.Duration
	timer *time.Timer
	every *time.Ticker
}

func newPoll(every time.Duration) *poll {
	p := &poll{next: 50 * time.Millisecond}
	p.timer = time.NewTimer(p.next)
	if every > 0 {
		p.every = time.NewTicker(every)
	}
	return p
}

func (p *poll) tick() <-chan time.Time { return p.timer.C }

// rearm starts the next wait, after a tick was received.
func (p *poll) rearm() {
	p.next = min(2*p.next, time.Second)
	p.timer.Reset(p.next)
}

func (p *poll) progress() <-chan time.Time {
	if p.every == nil {
		return nil
	}
	return p.every.C
}

func (p *poll) stop() {
	p.timer.Stop()
	if p.every != nil {
		p.every.Stop()
	}
}
