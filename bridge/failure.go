package bridge

import (
	"errors"
	"fmt"
	"time"

	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// baseFailure is the one place where a failed call to the base becomes
// what the client reads: -32603 with a message a person can act on, and
// data naming the address and the kind of failure.
func baseFailure(err error, addr, method string, cfg *Config) *rpc.WireError {
	if werr := launchFailure(err, addr, method); werr != nil {
		return werr
	}
	limit := cfg.CallTimeout
	if method == "tools/list" {
		limit = cfg.ListTimeout
	}
	msg := FailureMessage(err, addr, method, limit)
	e := clienterr.BaseError
	switch tcpbase.KindOf(err) {
	case tcpbase.ErrUnreachable:
		e = clienterr.BaseUnreachable
	case tcpbase.ErrTimeout:
		e = clienterr.BaseTimeout
	case tcpbase.ErrClosed:
		e = clienterr.BaseClosed
	case tcpbase.ErrMalformed:
		e = clienterr.BaseNotJSON
	case tcpbase.ErrTooLarge:
		e = clienterr.BaseTooLarge
	}
	return e.With(map[string]string{"address": addr, "method": method}, msg)
}

// FailureMessage is what a person reads when a call to the base failed:
// what happened and what to do. The bridge's clients read it in -32603
// answers; `mcp-bridge tools`, `call` and `request` print the same.
// limit is the deadline the call had, for timeouts.
func FailureMessage(err error, addr, method string, limit time.Duration) string {
	switch tcpbase.KindOf(err) {
	case tcpbase.ErrUnreachable:
		var te *tcpbase.Error
		if errors.As(err, &te) && te.Refused {
			return fmt.Sprintf("CAD base at %s refused the connection: is the CAD program running with its MCP base enabled?", addr)
		}
		return fmt.Sprintf("CAD base at %s could not be reached (%v): is the CAD program running, and are --host and --port right?", addr, errors.Unwrap(te.Err))
	case tcpbase.ErrTimeout:
		return fmt.Sprintf("CAD base at %s did not answer %s within %s. The call may still be running in CAD: check the drawing before trying again.", addr, method, limit)
	case tcpbase.ErrClosed:
		return fmt.Sprintf("CAD base at %s closed the connection without answering %s; it may or may not have run. Check the CAD program's command line.", addr, method)
	case tcpbase.ErrMalformed:
		return fmt.Sprintf("CAD base at %s answered %s with something that is not a JSON-RPC response; the call may have run. Is another program listening on that port?", addr, method)
	case tcpbase.ErrTooLarge:
		return fmt.Sprintf("CAD base at %s answered %s with more than --max-message allows; the call has run. Ask for less, or raise --max-message.", addr, method)
	}
	return fmt.Sprintf("calling the CAD base at %s failed: %v", addr, err)
}

// malformedAnswer is baseFailure for an answer that is JSON but not a
// response.
func malformedAnswer(addr, method, why string) *rpc.WireError {
	return clienterr.BaseMalformed.With(map[string]string{"address": addr, "method": method}, addr, method, why)
}

// errIDInUse refuses a request whose id names one still in progress, as
// x/tools jsonrpc2_v2 acceptRequest does: the first keeps its id.
func errIDInUse(id rpc.ID) *rpc.WireError {
	return clienterr.IDInUse.New(id)
}

// answerTooLarge replaces an answer longer than --max-message (alone, or
// within the array that answers a batch). The request has run.
func answerTooLarge(method string, size, limit int, inBatch bool) *rpc.WireError {
	if inBatch {
		return clienterr.TooLargeInBatch.With(map[string]string{"method": method}, size, limit)
	}
	return clienterr.AnswerTooLarge.With(map[string]string{"method": method}, method, size, limit)
}
