// Package journal records what the assistant did to the drawing: one JSON
// line per forwarded (or refused) tool request, appended to a file that
// several bridges may share. Lines are written whole under a lock that
// spans processes, the file is rotated when it reaches its size cap (under
// the same lock, so no line is lost or split), and it is created readable
// by its owner only.
//
// The journal is the user's record, so a file planted at its path cannot
// take it over: it is opened without following a link and only as a
// regular file, never waiting on a FIFO. A line that could not be written
// whole is cut back off, so the next one starts on a line of its own. Every
// entry is bounded (MaxEntry), so rotation always keeps the last entries.
package journal

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm"
	"github.com/mcp-bridge/mcp-bridge/configs/userfile"
)

// ClientInfo is the client's clientInfo, where known.
type ClientInfo struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
}

// Bounded is c as a journal line records it: name and version cut to 256
// bytes as written. What is kept of a client for its whole session is
// this, not the megabytes its initialize may have named.
func (c ClientInfo) Bounded() ClientInfo {
	return ClientInfo{Name: cutJSON(c.Name, maxShort), Version: cutJSON(c.Version, maxShort)}
}

// Outcomes.
const (
	OK            = "ok"             // a result from the base
	ToolError     = "tool_error"     // a result with isError: true from the base
	Error         = "error"          // a JSON-RPC error (the base's or the bridge's)
	Denied        = "denied"         // refused by the policy, not sent
	Declined      = "declined"       // confirmation not given, not sent
	InputRequired = "input_required" // a 2026-07-28 client was asked to confirm
	// Cancelled: the client cancelled the call, or its session ended,
	// while CAD ran it; it may have run.
	Cancelled = "cancelled"
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
	// Confirm says how confirmation went when the call needed it: a
	// confirm.Outcome's word (asked, accepted, declined, cancelled, timed
	// out, unsupported, refused). Kept a string: it is read back from
	// files, whatever they hold (Confirmation).
	Confirm string `json:"confirm,omitempty"`
	// AskedBy is who asked the user: client (an elicitation) or desktop
	// (a dialog on the bridge's machine); so Confirmed or Declined says
	// who agreed or declined.
	AskedBy string          `json:"askedBy,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"` // only with --journal-args
	// ArgsBytes and ArgsSHA256 stand for arguments longer than MaxArgs,
	// which are not written: their size and SHA-256 (hex) identify them.
	ArgsBytes  int    `json:"argsBytes,omitempty"`
	ArgsSHA256 string `json:"argsSha256,omitempty"`
}

// Confirmation is how the call's confirmation went, in the gate's
// vocabulary.
func (e *Entry) Confirmation() confirm.Outcome { return confirm.Outcome(e.Confirm) }

// Failed reports whether the entry is a request that did not succeed.
func (e *Entry) Failed() bool { return e.Outcome != OK && e.Outcome != InputRequired }

// Defaults for Open.
const (
	DefaultMaxBytes = 10 << 20
	DefaultKeep     = 5
)

// Bounds on one entry, so that a few huge calls cannot rotate the whole
// history out: arguments longer than MaxArgs bytes as written (JSON
// escaping included: "<" is written as six bytes) are replaced by their
// size and SHA-256, and each text field is cut (on a character boundary,
// ending in "…") at maxText bytes as written, or maxShort for names and
// ids. No line is longer than MaxEntry. With rotation at M bytes and K rotated files,
// the journal thus keeps at least the last K × max(1, M/MaxEntry − 1)
// entries: 2555 with the defaults.
const (
	MaxArgs  = 16 << 10
	MaxEntry = 20 << 10
	maxText  = 1 << 10
	maxShort = 256
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
	// Log gets one warning when the journal stops taking entries and one
	// when it takes them again (set it before the first Write).
	Log zerolog.Logger

	mu     sync.Mutex
	lock   *os.File // path + ".lock", locked around every append; nil once closed
	outage error    // why the last write failed; nil while the journal works
	lost   int      // entries not written during the outage
	// write appends b to f; tests replace it to fail part way.
	write func(f *os.File, b []byte) (int, error)
}

// Open prepares the journal at path, creating it (0600) if needed, so that
// a path that cannot be written, or that is a link, a FIFO or anything but
// a regular file, is reported at start. maxBytes ≤ 0 and keep ≤ 0 take the
// defaults.
func Open(path string, maxBytes int64, keep int) (*Writer, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if keep <= 0 {
		keep = DefaultKeep
	}
	lock, err := userfile.Open(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	f, err := open(path)
	if err != nil {
		lock.Close()
		return nil, err
	}
	f.Close()
	return &Writer{path: path, max: maxBytes, keep: keep, lock: lock, Log: zerolog.Nop(),
		write: func(f *os.File, b []byte) (int, error) { return f.Write(b) }}, nil
}

// open opens the journal for appending, user-only, refusing a link or a
// non-regular file (see package userfile).
func open(path string) (*os.File, error) {
	f, err := userfile.Open(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().Perm()&0o077 != 0 {
		_ = f.Chmod(0o600) // an older file with wider access: it may hold arguments
	}
	return f, nil
}

// Path is the journal's file.
func (w *Writer) Path() string { return w.path }

// Write appends one entry, bounded (see MaxEntry), as one line of valid
// UTF-8 JSON.
func (w *Writer) Write(e *Entry) error {
	line, err := marshal(bound(*e))
	if err != nil {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.failed(fmt.Errorf("journal: %w", err))
	}
	return w.WriteLine(append(line, '\n'))
}

// marshal is json.Marshal without its HTML escaping: the journal records
// arguments as the base got them ("&", not "\u0026"), and no browser reads
// it. escapedLen still counts "<", ">" and "&" as six bytes, an upper bound.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// bound cuts what could make an entry long; it works on a copy.
func bound(e Entry) Entry {
	if e.Args != nil {
		// Arguments are valid JSON, so bytes that are not UTF-8 can only be
		// inside its strings: each becomes U+FFFD there. What is measured is
		// what Marshal writes (compacted, escaped).
		written, err := marshal(json.RawMessage(bytes.ToValidUTF8(e.Args, []byte("\uFFFD"))))
		if err != nil || len(written) > MaxArgs {
			sum := sha256.Sum256(e.Args)
			e.ArgsBytes, e.ArgsSHA256, written = len(e.Args), hex.EncodeToString(sum[:]), nil
		}
		e.Args = written
	}
	if e.Client != nil {
		ci := e.Client.Bounded()
		e.Client = &ci
	}
	e.Tool, e.ID, e.Kind = cutJSON(e.Tool, maxShort), cutJSON(e.ID, maxShort), cutJSON(e.Kind, maxShort)
	e.Message, e.Confirm = cutJSON(e.Message, maxText), cutJSON(e.Confirm, maxShort)
	e.Transport, e.Era, e.Method = cutJSON(e.Transport, maxShort), cutJSON(e.Era, maxShort), cutJSON(e.Method, maxShort)
	return e
}

// cutJSON shortens s so that json.Marshal writes it in at most n bytes
// (quotes aside), ending in "…" when it was cut. Invalid UTF-8 becomes
// U+FFFD first (json.Marshal would write each such byte as six).
func cutJSON(s string, n int) string {
	s = string(bytes.ToValidUTF8([]byte(s), []byte("\uFFFD")))
	room := n - len("…")
	end, size := 0, 0
	for i, r := range s {
		size += escapedLen(r)
		if size > n {
			return s[:end] + "…"
		}
		if size <= room {
			end = i + utf8.RuneLen(r)
		}
	}
	return s
}

// escapedLen is how many bytes json.Marshal writes for r inside a string.
func escapedLen(r rune) int {
	switch {
	case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t':
		return 2
	case r < 0x20 || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029':
		return 6
	}
	return utf8.RuneLen(r)
}

// WriteLine appends one line (which must end in a newline and hold no
// other) under the cross-process lock, in one write, rotating first when
// the line would take the file past its cap. A write that fails part way
// is cut back off, so the file still ends with a whole line.
func (w *Writer) WriteLine(line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failed(w.writeLine(line))
}

func (w *Writer) writeLine(line []byte) error {
	if w.lock == nil {
		return errors.New("journal: closed")
	}
	if err := userfile.Lock(w.lock); err != nil {
		return fmt.Errorf("journal: lock: %w", err)
	}
	defer userfile.Unlock(w.lock)
	f, err := open(w.path)
	if err != nil {
		return err
	}
	size, err := sizeOf(f)
	if err == nil && size > 0 && size+int64(len(line)) > w.max {
		f.Close()
		if err := w.rotate(); err != nil {
			return err
		}
		if f, err = open(w.path); err != nil {
			return err
		}
		size, err = sizeOf(f)
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("journal: %w", err)
	}
	n, err := w.write(f, line)
	if err == nil && n < len(line) {
		err = errors.New("short write")
	}
	if err != nil && n > 0 {
		if terr := truncate(f, w.path, size); terr != nil {
			err = fmt.Errorf("%w; and cutting the partial line off failed: %v", err, terr)
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("journal %s: %w", w.path, err)
	}
	return nil
}

func sizeOf(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// truncate cuts the journal back to size. Windows cannot truncate through
// an append-only handle: then the file is opened again to write.
func truncate(f *os.File, path string, size int64) error {
	if f.Truncate(size) == nil {
		return nil
	}
	g, err := userfile.Open(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = g.Truncate(size)
	if cerr := g.Close(); err == nil {
		err = cerr
	}
	return err
}

// failed keeps track of outages: the first failure of one is logged, and
// so is the first success after it, with the count of entries lost.
// Called with w.mu held.
func (w *Writer) failed(err error) error {
	switch {
	case err != nil && w.outage == nil:
		w.outage, w.lost = err, 1
		w.Log.Warn().Err(err).Str("journal", w.path).Msg("the journal cannot be written: entries are lost until it can (logged once until then)")
	case err != nil:
		w.outage = err
		w.lost++
	case w.outage != nil:
		w.Log.Warn().Str("journal", w.path).Int("lost", w.lost).Msg("the journal can be written again")
		w.outage, w.lost = nil, 0
	}
	return err
}

// Ready reports why the journal cannot take an entry now: the last write
// failed, or the file cannot be opened for appending. nil when it can.
func (w *Writer) Ready() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lock == nil {
		return errors.New("journal: closed")
	}
	if w.outage != nil {
		return w.outage
	}
	f, err := open(w.path)
	if err != nil {
		return err
	}
	return f.Close()
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
