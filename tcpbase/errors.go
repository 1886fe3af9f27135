package tcpbase

import (
	"errors"
	"fmt"
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
