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
// keeping bytes and only counts them.
func (lr *LineReader) readLine() ([]byte, error) {
	var line []byte
	size, over := 0, false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		size += len(chunk)
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

// Writer writes one message per line. It is safe for concurrent use: each
// message is written whole, under a lock, so lines never interleave.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
	err error
}

// NewWriter returns a Writer on w. w should be unbuffered (a process's standard output is) or
// the caller must flush it: every message is handed to w complete.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// bigPayload is the size above which a payload is written straight from its
// own buffer instead of being copied into the line buffer.
const bigPayload = 64 << 10

// WriteResult writes {"jsonrpc":"2.0","id":id,"result":result}.
func (w *Writer) WriteResult(id ID, result []byte) error {
	return w.write(id, `,"result":`, result, nil)
}

// WriteError writes an error response. A zero id is omitted, never null.
func (w *Writer) WriteError(id ID, e *WireError) error {
	return w.write(id, `,"error":`, nil, e)
}

// WriteErrorRaw writes an error response whose error object is raw JSON,
// passed on unchanged (re-compacted only if it spans lines).
func (w *Writer) WriteErrorRaw(id ID, errObj []byte) error {
	return w.write(id, `,"error":`, errObj, nil)
}

// WriteNotification writes {"jsonrpc":"2.0","method":method,"params":params}.
func (w *Writer) WriteNotification(method string, params []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := append(w.buf[:0], `{"jsonrpc":"2.0","method":`...)
	b = appendString(b, method)
	if params != nil {
		b = append(b, `,"params":`...)
		b = appendCompact(b, params)
	}
	b = append(b, "}\n"...)
	w.buf = b
	return w.flush(b)
}

// WriteLine writes one complete message that the caller has already encoded
// as a single line (no trailing newline); used for batch answers.
func (w *Writer) WriteLine(msg []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := appendCompact(w.buf[:0], msg)
	b = append(b, '\n')
	w.buf = b
	return w.flush(b)
}

// Err returns the first write error, after which every write fails.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *Writer) write(id ID, key string, payload []byte, e *WireError) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := AppendResponseHead(w.buf[:0], id)
	b = append(b, key...)
	if e != nil {
		b = e.appendJSON(b)
	} else if len(payload) > bigPayload && !hasNewline(payload) {
		// Large and already one line: write it from where it lies.
		w.buf = b
		if err := w.flush(b); err != nil {
			return err
		}
		if err := w.flush(payload); err != nil {
			return err
		}
		return w.flush([]byte("}\n"))
	} else {
		b = appendCompact(b, payload)
	}
	b = append(b, "}\n"...)
	if cap(b) <= 1<<20 {
		w.buf = b // keep a modest buffer for the next message
	}
	return w.flush(b)
}

func (w *Writer) flush(b []byte) error {
	if w.err != nil {
		return w.err
	}
	_, err := w.w.Write(b)
	w.err = err
	return err
}

// AppendResponseHead appends `{"jsonrpc":"2.0"` and, when the id is not
// zero, `,"id":<id>`.
func AppendResponseHead(b []byte, id ID) []byte {
	b = append(b, `{"jsonrpc":"2.0"`...)
	if !id.IsZero() {
		b = append(b, `,"id":`...)
		b = append(b, id.raw...)
	}
	return b
}

func hasNewline(b []byte) bool {
	return bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0
}

// appendCompact appends valid JSON without line breaks (see Compact).
func appendCompact(b, v []byte) []byte { return append(b, Compact(v)...) }

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
