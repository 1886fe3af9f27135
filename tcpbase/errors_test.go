package tcpbase

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFailureMessage: each kind has its own sentence, naming the address
// (and the method, and the limit for a timeout) and what to do; a refused
// connection is told apart from one that found nobody; an error that is
// none of tcpbase's still names the base.
func TestFailureMessage(t *testing.T) {
	const addr = "127.0.0.1:8080"
	fail := func(k *Kind, refused bool, cause error) error {
		return &Error{Kind: k, Addr: addr, Refused: refused, Err: cause}
	}
	tests := []struct {
		err  error
		want []string
	}{
		{fail(ErrUnreachable, true, syscall.ECONNREFUSED), []string{"CAD base at 127.0.0.1:8080 refused the connection", "is the CAD program running"}},
		{fail(ErrUnreachable, false, errors.Join(errors.New("dial"), errors.New("no route to host"))), []string{"could not be reached", "--host and --port"}},
		{fail(ErrTimeout, false, nil), []string{"did not answer tools/call within 2m0s", "check the drawing"}},
		{fail(ErrClosed, false, nil), []string{"closed the connection without answering tools/call", "may or may not have run"}},
		{fail(ErrMalformed, false, nil), []string{"not a JSON-RPC response", "another program listening"}},
		{fail(ErrTooLarge, false, nil), []string{"more than --max-message allows", "the call has run"}},
		{errors.New("boom"), []string{"calling the CAD base at 127.0.0.1:8080 failed: boom"}},
	}
	for _, tt := range tests {
		got := FailureMessage(tt.err, addr, "tools/call", 2*time.Minute)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("FailureMessage(%v) = %q, want it to say %q", tt.err, got, w)
			}
		}
	}
}
