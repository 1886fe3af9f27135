package bridge

import (
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
	msg := tcpbase.FailureMessage(err, addr, method, limit)
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
