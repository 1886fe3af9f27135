package tcpbase

import (
	"errors"
	"fmt"
	"time"
)

// Kind is one way a call to the base can fail. Branch on it with errors.Is:
//
//	if errors.Is(err, tcpbase.ErrUnreachable) { /* nothing was sent */ }
type Kind struct{ name string }

func (k *Kind) Error() string { return k.name }

// String is the kind's short name, as used in logs and error data.
func (k *Kind) String() string { return k.name }

// The failure kinds. Only ErrUnreachable guarantees that nothing reached
// the base, so only it may be retried.
var (
	ErrUnreachable = &Kind{"unreachable"} // no connection: refused, no route, connect timed out
	ErrTimeout     = &Kind{"timeout"}     // sent, but no complete answer before the deadline
	ErrClosed      = &Kind{"closed"}      // the base closed the connection without answering
	ErrMalformed   = &Kind{"malformed"}   // the answer is not one JSON value
	ErrTooLarge    = &Kind{"too_large"}   // the answer exceeds the size cap
	ErrCanceled    = &Kind{"canceled"}    // the caller canceled the call
)

// Error is a failed call to the base at Addr.
type Error struct {
	Kind    *Kind
	Addr    string
	Refused bool  // for ErrUnreachable: the base actively refused the connection
	Err     error // the underlying cause, if any
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("CAD base %s: %s: %v", e.Addr, e.Kind, e.Err)
	}
	return fmt.Sprintf("CAD base %s: %s", e.Addr, e.Kind)
}

// Unwrap exposes both the kind (for errors.Is) and the cause.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// KindOf returns the kind of a tcpbase error, or nil.
func KindOf(err error) *Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return nil
}

// FailureMessage is what a person reads when a call to the base at addr
// failed: what happened, in the words of its kind, and what to do. The
// bridge's clients read it in -32603 answers; doctor and `mcp-bridge
// tools`, `call` and `request` print the same. limit is the deadline the
// call had, for timeouts.
func FailureMessage(err error, addr, method string, limit time.Duration) string {
	switch KindOf(err) {
	case ErrUnreachable:
		var te *Error
		if errors.As(err, &te) && te.Refused {
			return fmt.Sprintf("CAD base at %s refused the connection: is the CAD program running with its MCP base enabled?", addr)
		}
		return fmt.Sprintf("CAD base at %s could not be reached (%v): is the CAD program running, and are --host and --port right?", addr, errors.Unwrap(te.Err))
	case ErrTimeout:
		return fmt.Sprintf("CAD base at %s did not answer %s within %s. The call may still be running in CAD: check the drawing before trying again.", addr, method, limit)
	case ErrClosed:
		return fmt.Sprintf("CAD base at %s closed the connection without answering %s; it may or may not have run. Check the CAD program's command line.", addr, method)
	case ErrMalformed:
		return fmt.Sprintf("CAD base at %s answered %s with something that is not a JSON-RPC response; the call may have run. Is another program listening on that port?", addr, method)
	case ErrTooLarge:
		return fmt.Sprintf("CAD base at %s answered %s with more than --max-message allows; the call has run. Ask for less, or raise --max-message.", addr, method)
	}
	return fmt.Sprintf("calling the CAD base at %s failed: %v", addr, err)
}
