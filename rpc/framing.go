package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// DefaultMaxMessage is the largest message, in bytes, read or forwarded by
// default: 16 MiB, as real MCP clients cap theirs.
const DefaultMaxMessage = 16 << 20

// OversizeError reports a line longer than the reader's limit. The line has
// been discarded; the next call to Next reads the line after it.
type OversizeError struct {
	Limit int
	Size  int // bytes of the discarded line, excluding the newline
}

func (e *OversizeError) Error() string {
	return fmt.Sprintf("message of %d bytes exceeds the limit of %d bytes", e.Size, e.Limit)
}

// LineReader reads newline-framed messages. It accepts "\r\n" line ends and
// a leading UTF-8 byte order mark, and skips blank lines.
type LineReader struct {
	r     *bufio.Reader
	max   int
	first bool
}

// NewLineReader returns a LineReader that refuses lines over max bytes
// (DefaultMaxMessage when max <= 0).
func NewLineReader(r io.Reader, max int) *LineReader {
	if max <= 0 {
		max = DefaultMaxMessage
	}
	return &LineReader{r: bufio.NewReaderSize(r, 64<<10), max: max, first: true}
}

// Next returns the next non-blank line without its line end, in a buffer of
// its own that the caller may keep. At the end of input it returns io.EOF; a
// final line without a newline is returned first. A line over the limit
// yields an *OversizeError, and reading goes on after it: the excess is
// discarded as it streams past, never held in memory.
func (lr *LineReader) Next() ([]byte, error) {
	for {
		line, err := lr.readLine()
		if lr.first && (len(line) > 0 || err == nil) {
			lr.first = false
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if err != nil && (err != io.EOF || len(line) == 0) {
			return nil, err
		}
		// A last line with no newline is handed over now, EOF next time.
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			if err != nil {
				return nil, err
			}
			continue
		}
		return line, nil
	}
}

// readLine reads up to and including the next '\n' (or to the end of
// input) and returns the line without the '\n'. Past the limit it stops
// keeping bytes and only counts them. A blank line is blank whatever its
// length: one over the limit comes back empty, not as an OversizeError.
func (lr *LineReader) readLine() ([]byte, error) {
	var line []byte
	size, over, blank := 0, false, true
	for {
		chunk, err := lr.r.ReadSlice('\n')
		size += len(chunk)
		blank = blank && skipSpace(chunk, 0) == len(chunk)
		if !over && size > lr.max+2 { // +2: room for "\r\n"
			over, line = true, nil
		}
		if !over {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if over {
			if blank {
				return nil, err
			}
			if err == nil {
				size-- // the newline
			}
			return nil, &OversizeError{Limit: lr.max, Size: size}
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		if n := len(bytes.TrimSuffix(line, []byte("\r"))); n > lr.max {
			return nil, &OversizeError{Limit: lr.max, Size: n}
		}
		return line, err
	}
}

// Writer frames messages onto a stream, one per line. It only frames and
// locks: each message (see Encoded) is written whole, under a lock, so lines
// never interleave, and is never bigger than its encoder made it. After the
// first failed write every write fails; OnFail learns of it at once,
// whichever goroutine wrote.
type Writer struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	err    error
	onFail func(error)
}

// NewWriter returns a Writer on w. w should be unbuffered (a process's
// standard output is) or the caller must flush it: every message is handed
// to w complete.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// OnFail sets f to be called, once, with the first write error. f runs on
// the goroutine whose write failed and must not write to w.
func (w *Writer) OnFail(f func(error)) {
	w.mu.Lock()
	w.onFail = f
	w.mu.Unlock()
}

// bigPayload is the size above which a body is written straight from where
// it lies instead of being copied into the line buffer.
const bigPayload = 64 << 10

// Write writes one message and its newline.
func (w *Writer) Write(m Encoded) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.add(m)
	w.buf = append(w.buf, '\n')
	return w.flush()
}

// WriteBatch writes messages as one JSON array on one line: the answer to
// a batch.
func (w *Writer) WriteBatch(ms []Encoded) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, '[')
	for i, m := range ms {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.add(m)
	}
	w.buf = append(w.buf, "]\n"...)
	return w.flush()
}

// Err returns the first write error, after which every write fails.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// add puts m in the line buffer, writing a large body from where it lies.
func (w *Writer) add(m Encoded) {
	w.buf = append(w.buf, m.head...)
	if len(m.body) > bigPayload {
		w.flush()
		w.send(m.body)
	} else {
		w.buf = append(w.buf, m.body...)
	}
	w.buf = append(w.buf, m.tail...)
}

// flush writes the line buffer and empties it, keeping a modest one for
// the next message.
func (w *Writer) flush() error {
	err := w.send(w.buf)
	w.buf = w.buf[:0]
	if cap(w.buf) > 1<<20 {
		w.buf = nil
	}
	return err
}

func (w *Writer) send(b []byte) error {
	if w.err != nil {
		return w.err
	}
	if len(b) == 0 {
		return nil
	}
	if _, err := w.w.Write(b); err != nil {
		w.err = err
		if w.onFail != nil {
			w.onFail(err)
		}
	}
	return w.err
}

func hasNewline(b []byte) bool {
	return bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0
}

// Compact returns v without line breaks: v itself when it has none, which
// is nearly always (a raw newline can only be whitespace in valid JSON).
func Compact(v []byte) []byte {
	if !hasNewline(v) {
		return v
	}
	var out bytes.Buffer
	if err := json.Compact(&out, v); err != nil {
		return v
	}
	return out.Bytes()
}
