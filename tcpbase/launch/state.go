package launch

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mcp-bridge/mcp-bridge/configs/cut"
	"github.com/mcp-bridge/mcp-bridge/configs/userfile"
)

// state is the last launch of a base, kept in its lock file so that every
// bridge on the machine sees it: a program on its way up (Pid, Started),
// the base up (Up), and the commands whose launch failed, each held off
// until its own time (Backoffs). A back-off belongs to its command: a
// bridge given another one (the user corrected a typo) tries it at once.
// The file is the user's, but what it says is checked like anything read:
// a back-off longer than this bridge's own is ignored, and Why is cut.
type state struct {
	Pid      int       `json:"pid,omitempty"`
	Started  time.Time `json:"started,omitzero"`
	Up       bool      `json:"up,omitempty"`
	Backoffs []backoff `json:"backoffs,omitempty"`
}

// backoff holds launches of Command (as Command.String shows it) off
// until Until, for the reason Why.
type backoff struct {
	Command string    `json:"command"`
	Until   time.Time `json:"until"`
	Why     string    `json:"why,omitempty"`
}

// maxWhy bounds the reason a back-off gives; maxBackoffs the commands the
// file remembers.
const (
	maxWhy      = 1000
	maxBackoffs = 16
)

// backoffFor is command's back-off, if one runs at now that is no longer
// than limit (a longer one was not written by a bridge with these
// settings: ignored).
func (st state) backoffFor(command string, now time.Time, limit time.Duration) (backoff, bool) {
	for _, b := range st.Backoffs {
		if b.Command == command && b.Until.After(now) && b.Until.Sub(now) <= limit {
			return b, true
		}
	}
	return backoff{}, false
}

// withBackoff is the back-offs that still run at now, command's replaced
// by b (or dropped when b is the zero backoff), the newest last, at most
// maxBackoffs.
func (st state) withBackoff(command string, b backoff, now time.Time) []backoff {
	var out []backoff
	for _, o := range st.Backoffs {
		if o.Command != command && o.Until.After(now) {
			out = append(out, o)
		}
	}
	if b.Command != "" {
		out = append(out, b)
	}
	if len(out) > maxBackoffs {
		out = out[len(out)-maxBackoffs:]
	}
	return out
}

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

// openOwn opens one of the launcher's files (creating it 0600 when flag
// says so) only when it is a regular file of this user's that nobody else
// may write, with no other name (userfile.OpenOwn): they sit beside the
// tool cache, in a folder that may be shared (a --cache-dir others can
// write, the temporary folder when the user has none), where another
// account could plant a lock that holds every launch off, read CAD's
// output, or link another of the user's files to be emptied.
func openOwn(path string, flag int) (*os.File, error) {
	return userfile.OpenOwn(path, flag, 0o600)
}

// try takes the lock if it is free; it never waits.
func (lk *lockedFile) try() (bool, error) { return userfile.TryLock(lk.f) }

func (lk *lockedFile) close() {
	if lk.f != nil {
		lk.f.Close()
	}
}

// release gives the lock up (closing the file does too, on every system).
func (lk *lockedFile) release() {
	if lk.f != nil {
		userfile.Unlock(lk.f)
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
	if len(st.Backoffs) > maxBackoffs {
		st.Backoffs = st.Backoffs[len(st.Backoffs)-maxBackoffs:]
	}
	for i, b := range st.Backoffs {
		st.Backoffs[i].Why = cut.Chars(b.Why, maxWhy)
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
