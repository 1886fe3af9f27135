package bridge

import (
	"context"
	"encoding/json"

	"github.com/mcp-bridge/mcp-bridge/bridge/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// A 2026-07-28 client mirrors the arguments a tool's schema marks with
// "x-mcp-header" into Mcp-Param-* headers, so that a gateway in front of
// the bridge can route and authorize on them (SEP-2243). Whatever the
// gateway read must be what CAD gets: a call whose headers do not say what
// its arguments say is refused (400, HeaderMismatch) before any rule sees
// it, and nothing is sent to CAD. The policy, the question and the journal
// read the arguments, which the headers then say too.
//
// The declarations come from the base's tool list the bridge holds (every
// complete list it relays, reads for a policy, or the prober fetches). When
// that list cannot settle a call, the worker reads the list from the base
// first and checks with that: when it has no such tool (no list read yet,
// or a tool the base added since), and when the call carries an
// Mcp-Param-* header the tool does not declare there (its client read
// another schema, perhaps a newer one: a tool whose list changed must not
// let a header through that its new schema declares).

// mirrored checks a call's headers (Message.Headers; nil when it did not
// come over the 2026-07-28 HTTP transport) with the tool list the bridge
// holds. It returns false when it refused the call; true when the call may
// go on, its check then done or left to the worker (j.headers).
func (b *bridge) mirrored(j *job, headers map[string][]string) bool {
	if headers == nil {
		return true
	}
	decl, listed := b.tools.declared(j.req.Tool.Name)
	if !listed || decl.Undeclared(headers) != nil {
		j.headers = headers
		return true
	}
	return b.checkMirrored(j, decl.Check(j.req.Tool.Args, headers))
}

// mirroredLate is the worker's check of a call left to it, with the tool
// list read from the base now. A tool the base does not list declares
// nothing (the base answers its call as an unknown tool). False when it
// refused the call.
func (b *bridge) mirroredLate(hardCtx context.Context, j *job) bool {
	if j.headers == nil {
		return true
	}
	if _, err := b.readList(hardCtx); err != nil {
		failure := baseFailure(err, b.cfg.BaseAddr, "tools/list", &b.cfg)
		j.reply.fail(clienterr.HeadersUnchecked.New(j.req.Tool.Name, failure.Message).WithData(json.RawMessage(failure.Data)))
		return false
	}
	decl, _ := b.tools.declared(j.req.Tool.Name)
	return b.checkMirrored(j, decl.Check(j.req.Tool.Args, j.headers))
}

func (b *bridge) checkMirrored(j *job, err error) bool {
	if err == nil {
		return true
	}
	b.log.Warn().Str("tool", j.req.Tool.Name).Str("id", j.req.ID.String()).Str("why", err.Error()).
		Msg("call refused: its Mcp-Param headers do not say what its arguments say (a gateway in front would read another value than CAD gets); not sent to CAD")
	j.reply.fail(clienterr.HeaderMismatch.New(err.Error()))
	return false
}

// readList reads the base's tool list now and keeps it; clients that
// listen hear when it changed.
func (b *bridge) readList(hardCtx context.Context) ([]byte, error) {
	ctx, cancel := context.WithTimeout(hardCtx, b.cfg.ListTimeout)
	defer cancel()
	ans, err := b.cfg.Base.Call(ctx, listFrame)
	back := b.baseResult(err)
	if err != nil {
		b.sendListChanged(back)
		return nil, err
	}
	r, ok := rpc.DecodeValidMessage(ans).Msg.(*rpc.Response)
	if !ok || r.Error != nil || rpc.Kind(r.Result) != rpc.KindObject || rpc.Kind(rpc.Field(r.Result, "tools")) != rpc.KindArray {
		b.sendListChanged(back)
		return nil, errNotAList
	}
	b.sendListChanged(b.recordList(r.Result) || back)
	return r.Result, nil
}
