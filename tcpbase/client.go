package tcpbase

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/mcp-bridge/mcp-bridge/configs/loopback"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// DefaultMaxAnswer caps an answer from the base: 16 MiB.
const DefaultMaxAnswer = 16 << 20

// Client calls the CAD base. Its zero value is not usable; set Addr. A
// Client has no state between calls and is safe for concurrent use.
type Client struct {
	Addr           string
	ConnectTimeout time.Duration // default DefaultConnectTimeout
	MaxAnswer      int           // default DefaultMaxAnswer
}

// Call sends one request frame (a complete JSON-RPC request, compact, no
// newline) on a fresh connection and returns the base's answer: exactly one
// JSON value, whether the base ends it with a newline, with nothing, or by
// closing the socket. Cancelling ctx, or its deadline passing, closes the
// connection at once.
func (c *Client) Call(ctx context.Context, frame []byte) ([]byte, error) {
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}

	msg := make([]byte, 0, len(frame)+1)
	msg = append(append(msg, frame...), '\n')
	if _, err := conn.Write(msg); err != nil {
		return nil, c.fail(ctx, ErrClosed, err)
	}
	return c.readAnswer(ctx, conn)
}

func (c *Client) dial(ctx context.Context) (net.Conn, error) {
	timeout := c.ConnectTimeout
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	d := net.Dialer{Timeout: timeout}
	if loopback.Addr(c.Addr) {
		// A peer on this machine cannot vanish without its kernel closing
		// the socket: keep-alive probes would only cost four setsockopt
		// calls on every connection.
		d.KeepAlive = -1
	}
	conn, err := d.DialContext(ctx, "tcp", c.Addr)
	if err == nil {
		return conn, nil
	}
	if ctx.Err() == context.Canceled {
		return nil, &Error{Kind: ErrCanceled, Addr: c.Addr, Err: ctx.Err()}
	}
	return nil, &Error{Kind: ErrUnreachable, Addr: c.Addr, Refused: isRefused(err), Err: err}
}

// readAnswer reads until one complete JSON value has arrived, the peer
// closes, or the cap is passed. It stops at the value's end: a base that
// answers and keeps the socket open is still served at once.
func (c *Client) readAnswer(ctx context.Context, conn net.Conn) ([]byte, error) {
	max := c.MaxAnswer
	if max <= 0 {
		max = DefaultMaxAnswer
	}
	var r answerReader
	defer r.release()
	for {
		n, err := conn.Read(r.space())
		buf, start := r.filled(n)
		if end, done := r.scan.Feed(buf, start); done {
			return c.finish(r.bytes(end))
		}
		if r.size > max {
			return nil, &Error{Kind: ErrTooLarge, Addr: c.Addr, Err: fmt.Errorf("answer exceeds %d bytes", max)}
		}
		if err == nil {
			continue
		}
		if err == io.EOF {
			if r.size == 0 {
				return nil, &Error{Kind: ErrClosed, Addr: c.Addr}
			}
			return c.finish(r.bytes(len(r.cur)))
		}
		if r.size == 0 && isReset(err) && ctx.Err() == nil {
			return nil, &Error{Kind: ErrClosed, Addr: c.Addr, Err: err}
		}
		return nil, c.fail(ctx, ErrMalformed, err)
	}
}

// finish checks that what arrived is exactly one JSON value.
func (c *Client) finish(answer []byte) ([]byte, error) {
	answer = trimSpace(answer)
	if len(answer) > c.maxAnswer() {
		return nil, &Error{Kind: ErrTooLarge, Addr: c.Addr, Err: fmt.Errorf("answer of %d bytes exceeds %d", len(answer), c.maxAnswer())}
	}
	if !rpc.Valid(answer) {
		return nil, &Error{Kind: ErrMalformed, Addr: c.Addr, Err: fmt.Errorf("not one JSON value: %q", preview(answer))}
	}
	return answer, nil
}

func (c *Client) maxAnswer() int {
	if c.MaxAnswer <= 0 {
		return DefaultMaxAnswer
	}
	return c.MaxAnswer
}

// fail classifies an I/O error after the request may have been sent.
func (c *Client) fail(ctx context.Context, otherwise *Kind, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return &Error{Kind: ErrCanceled, Addr: c.Addr, Err: ctx.Err()}
	case ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded):
		return &Error{Kind: ErrTimeout, Addr: c.Addr, Err: context.DeadlineExceeded}
	case isReset(err):
		return &Error{Kind: ErrClosed, Addr: c.Addr, Err: err}
	}
	return &Error{Kind: otherwise, Addr: c.Addr, Err: err}
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// preview is the first 60 bytes of an answer that is not JSON, for %q:
// bytes, not text (cut.Bytes would make U+FFFD of what %q shows as \xNN,
// which says what the base sent).
func preview(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}
