package bridge

import (
	"context"
	"encoding/json"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// A 2026-07-28 client mirrors the arguments a tool's schema marks with
// "x-mcp-header" into Mcp-Param-* headers, so that a gateway in front of
// the bridge can route and authorize on them (SEP-2243). Whatever the
// gateway read must be what CAD gets: a call whose headers do not say what
// its arguments say is refused (400, HeaderMismatch) before any rule sees
// it, and nothing is sent to CAD. The policy, the question and the journal
// read the arguments, which the headers then say too.
//
// The declarations come from the base's whole tool list the bridge holds
// (every complete list it relays, reads for a policy, or the prober
// fetches; a list in pages is read page by page, lifecycle.ReadPages). A
// tool name the list does not hold exactly stands for every tool whose
// name folds to it (a base may match names without case), all of whose
// declarations the call must satisfy. When that list cannot settle a call,
// the list is read from the base again first, and the call checked with
// that: when it has no such tool (no list read yet, or a tool the base
// added since), and when the call carries an Mcp-Param-* header the tool
// does not declare there (its client read another schema, perhaps a newer
// one: a tool whose list changed must not let a header through that its
// new schema declares). The list is read again once for each such call
// (the same tool, the same undeclared headers) until the base next answers
// tools/list, and for at most maxRereads of them: a header of a gateway's
// own is no reason to ask CAD for its list before every call.
//
// That read, and the check, come before anything else the call meets: in
// the worker (runJob), or before anyone is asked about the call
// (runQuestion), whichever comes first.

// mirrored checks a call's headers (Message.Headers; nil when it did not
// come over the 2026-07-28 HTTP transport) with the tool list the bridge
// holds, in the reader. It returns false when it refused the call; true
// when the call may go on, its check then done or left for the list read
// again (j.headers, headersLate).
func (b *bridge) mirrored(j *job, headers map[string][]string) bool {
	if headers == nil {
		return true
	}
	decl, _, settled := b.tools.settles(j.req.Tool.Name, headers)
	if !settled {
		j.headers = headers
		return true
	}
	return b.checkMirrored(j, decl.Check(j.req.Tool.Args, headers))
}

// headersLate finishes the check the reader left (j.headers): with the
// tool list read from the base now, unless a call like it had it read
// since the base last answered tools/list. It reports false when it
// answered the call (refused, or the list could not be read: nothing of
// the call was sent); true when the call may go on.
//
// In the worker it may start CAD (--launch) to read the list, as the call
// itself would. Before a question it does not: a call whose list cannot be
// read because CAD is down and --launch would start it is asked about,
// and checked by the worker once CAD is up (as listedBeforeAsking leaves
// its name).
func (b *bridge) headersLate(ctx context.Context, j *job, worker bool) bool {
	if j.headers == nil {
		return true
	}
	name := j.req.Tool.Name
	decl, _, settled := b.tools.settles(name, j.headers)
	if !settled {
		_, err := b.readList(ctx)
		if err != nil && worker && b.mayLaunch(j, err) {
			if b.launchForList(j) {
				return false // answered, or ended, while CAD was starting
			}
			_, err = b.readList(ctx)
		}
		switch {
		case err != nil && !worker && ctx.Err() != nil:
			how, why := guard.Withdrawn(false)
			b.settle(j, b.refusal(j, how, why))
			return false
		case err != nil && !worker && b.cfg.Launch != nil && tcpbase.KindOf(err) == tcpbase.ErrUnreachable:
			return true // the worker checks once it has started CAD
		case err != nil:
			failure := baseFailure(err, b.cfg.BaseAddr, "tools/list", &b.cfg)
			j.reply.fail(clienterr.HeadersUnchecked.New(name, failure.Message).WithData(json.RawMessage(failure.Data)))
			return false
		}
		var key uint64
		if decl, key, settled = b.tools.settles(name, j.headers); !settled {
			b.tools.markReread(key)
		}
	}
	headers := j.headers
	j.headers = nil // checked, whoever did
	return b.checkMirrored(j, decl.Check(j.req.Tool.Args, headers))
}

// launchForList starts CAD for a job in the worker whose tool list could
// not be read because the base is down, before anything of it is sent; the
// request waits meanwhile, as it does in launchIfDown. It reports whether
// the job is over: answered (the launch failed) or ended meanwhile.
func (b *bridge) launchForList(j *job) (over bool) {
	r := j.reply
	if !r.client.update(r, reqWaiting, reqRunning) || b.launchIfDown(j) {
		return true
	}
	return !r.client.update(r, reqRunning, reqWaiting)
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

// readList reads the base's whole tool list now, every page of it, and
// keeps it; clients that listen hear when it changed.
func (b *bridge) readList(hardCtx context.Context) ([]byte, error) {
	ctx, cancel := context.WithTimeout(hardCtx, b.cfg.ListTimeout)
	defer cancel()
	list, callErr, err := b.fetchList(ctx, nil)
	back := b.baseResult(callErr)
	if err != nil {
		b.sendListChanged(back)
		return nil, err
	}
	b.sendListChanged(b.recordList(list) || back)
	return list, nil
}

// fetchList reads the base's tool list, page after page
// (lifecycle.ReadPages: bounded, never a cursor twice), within ctx (one
// deadline for them all), and joins the pages into one list. first is the
// first page's result when the caller has it already. callErr is the
// base's own failure, if any (for its liveness); err is why there is no
// list.
func (b *bridge) fetchList(ctx context.Context, first []byte) (list []byte, callErr, err error) {
	pages, err := lifecycle.ReadPages(func(cursor []byte) ([]byte, error) {
		if cursor == nil && first != nil {
			return first, nil
		}
		frame := listFrame
		if cursor != nil {
			frame = rpc.EncodeRequest(listID, "tools/list", append(append([]byte(`{"cursor":`), cursor...), '}')).AppendTo(nil)
		}
		ans, err := b.cfg.Base.Call(ctx, frame)
		if err != nil {
			callErr = err
			return nil, err
		}
		r, ok := rpc.DecodeValidMessage(ans).Msg.(*rpc.Response)
		if !ok || r.Error != nil {
			return nil, errNotAList
		}
		return r.Result, nil
	}, b.cfg.MaxMessage)
	if err != nil {
		return nil, callErr, err
	}
	return lifecycle.JoinPages(pages), nil, nil
}
