// Package journal records what the assistant did to the drawing: one JSON
// line per forwarded (or refused) tool request, appended to a file that
// several bridges may share. Lines are written whole under a lock that
// spans processes, the file is rotated when it reaches its size cap (under
// the same lock, so no line is lost or split), and it is created readable
// by its owner only.
package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// ClientInfo is the client's clientInfo, where known.
type ClientInfo struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
}

// Outcomes.
const (
	OK            = "ok"             // a result from the base
	ToolError     = "tool_error"     // a result with isError: true from the base
	Error         = "error"          // a JSON-RPC error (the base's or the bridge's)
	Denied        = "denied"         // refused by the policy, not sent
	Declined      = "declined"       // confirmation not given, not sent
	InputRequired = "input_required" // a 2026-07-28 client was asked to confirm
)

// Entry is one journal line.
type Entry struct {
	Time      time.Time   `json:"time"`
	PID       int         `json:"pid"`
	Transport string      `json:"transport"` // stdio or http
	Client    *ClientInfo `json:"client,omitempty"`
	Era       string      `json:"era"` // legacy or modern
	Method    string      `json:"method"`
	Tool      string      `json:"tool,omitempty"`
	ID        string      `json:"id,omitempty"` // the request id's JSON token
	Outcome   string      `json:"outcome"`
	IsError   bool        `json:"isError,omitempty"`
	Code      int64       `json:"code,omitempty"` // JSON-RPC error code
	Kind      string      `json:"kind,omitempty"` // failure kind: unreachable, timeout, …
	Message   string      `json:"message,omitempty"`
	// DurationMs is from the request's arrival to its answer.
	DurationMs float64 `json:"durationMs"`
	Bytes      int     `json:"bytes"` // size of the answer as sent: the whole JSON-RPC message
	Denied     bool    `json:"denied,omitempty"`
	Confirmed  bool    `json:"confirmed,omitempty"`
	Declined   bool    `json:"declined,omitempty"`
	// Confirm says how confirmation went when the call needed it: asked
	// (a 2026-07-28 input_required answer), accepted, declined, cancelled,
	// timed out, unsupported, refused.
	Confirm string          `json:"confirm,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"` // only with --journal-args
}

// Failed reports whether the entry is a request that did not succeed.
func (e *Entry) Failed() bool { return e.Outcome != OK && e.Outcome != InputRequired }

// Defaults for Open.
const (
	DefaultMaxBytes = 10 << 20
	DefaultKeep     = 5
)

// Writer appends entries to a journal file. It is safe for concurrent use
// and for several processes sharing the file. The journal is opened for
// each line and closed after it, under the lock, so that whichever bridge
// rotates it can rename it (Windows refuses to rename an open file) and
// every bridge follows the name.
type Writer struct {
	path string
	max  int64 // rotate before a line would take the file past this
	keep int   // rotated files kept: path.1 (newest) … path.keep

	mu   sync.Mutex
	lock *os.File // path + ".lock", locked around every append; nil once closed
}

// Open prepares the journal at path, creating it (0600) if needed, so that
// a path that cannot be written is reported at start. maxBytes ≤ 0 and
// keep ≤ 0 take the defaults.
func Open(path string, maxBytes int64, keep int) (*Writer, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if keep <= 0 {
		keep = DefaultKeep
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	f, err := open(path)
	if err != nil {
		lock.Close()
		return nil, err
	}
	f.Close()
	return &Writer{path: path, max: maxBytes, keep: keep, lock: lock}, nil
}

// open opens the journal for appending, user-only.
func open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().Perm()&0o077 != 0 {
		_ = f.Chmod(0o600) // an older file with wider access: it may hold arguments
	}
	return f, nil
}

// Write appends one entry as one line.
func (w *Writer) Write(e *Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return w.WriteLine(append(line, '\n'))
}

// WriteLine appends one line (which must end in a newline and hold no
// other) under the cross-process lock, in one write, rotating first when
// the line would take the file past its cap.
func (w *Writer) WriteLine(line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lock == nil {
		return errors.New("journal: closed")
	}
	if err := lockFile(w.lock); err != nil {
		return fmt.Errorf("journal: lock: %w", err)
	}
	defer unlockFile(w.lock)

	if fi, err := os.Stat(w.path); err == nil && fi.Size() > 0 && fi.Size()+int64(len(line)) > w.max {
		if err := w.rotate(); err != nil {
			return err
		}
	}
	f, err := open(w.path)
	if err != nil {
		return err
	}
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// rotate shifts path.(keep-1) … path.1 up by one (the oldest is removed)
// and renames the journal to path.1; the next write starts a new one.
// Called with the lock held, so no other bridge writes in between.
func (w *Writer) rotate() error {
	// Only the files that exist move: path.1 … path.n, contiguous.
	n := 0
	for n < w.keep {
		if _, err := os.Stat(fmt.Sprintf("%s.%d", w.path, n+1)); err != nil {
			break
		}
		n++
	}
	if n == w.keep {
		_ = os.Remove(fmt.Sprintf("%s.%d", w.path, w.keep))
		n--
	}
	for i := n; i >= 1; i-- {
		_ = os.Rename(fmt.Sprintf("%s.%d", w.path, i), fmt.Sprintf("%s.%d", w.path, i+1))
	}
	if err := os.Rename(w.path, w.path+".1"); err != nil {
		return fmt.Errorf("journal: rotate: %w", err)
	}
	return nil
}

// Close releases the lock file. Later writes fail.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lock == nil {
		return nil
	}
	err := w.lock.Close()
	w.lock = nil
	return err
}
