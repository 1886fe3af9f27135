package bridge

import (
	"context"
	"errors"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// While a policy is in force, a call runs only for a tool the base lists
// under exactly the name the policy checked (guard.Gate.Listed). The
// worker reads the base's tool list first when it knows none (beforeSend);
// a question, before it is asked (listedBeforeAsking).

// listFrame asks the base for its tool list on the bridge's own account
// (the prober, the policy's check); its id is never a client's.
var listFrame = []byte(`{"jsonrpc":"2.0","id":"mcp-bridge-probe","method":"tools/list"}`)

// listID is listFrame's id, for the pages after the first (fetchList).
var listID, _ = rpc.ParseID([]byte(`"mcp-bridge-probe"`))

// learnTools runs first in the worker when a policy is in force: the base's
// tool list is read at start, so that patterns that match none of its
// tools are logged at once and calls are checked against it.
func (b *bridge) learnTools(hardCtx context.Context) {
	if b.gate.Policy() == nil {
		return
	}
	if _, err := b.knownList(hardCtx); err != nil {
		b.log.Debug().Err(err).Msg("the base's tool list could not be read at start; the policy's patterns are checked when it can")
	}
}

// listedBeforeAsking applies the rule before anyone is asked about a call
// (question.go): a name the base does not list is refused then, not after
// the user chose Run in a dialog titled with a look-alike. It reads the
// list when none is known yet, within ctx (the question's). nil when the
// call may be asked about; also when CAD is down and --launch starts it
// once the user agreed (the worker checks the name then).
func (b *bridge) listedBeforeAsking(ctx context.Context, j *job) *outcome {
	if b.gate.Policy() == nil {
		return nil
	}
	list, err := b.knownList(ctx)
	switch {
	case err != nil && ctx.Err() != nil:
		how, why := guard.Withdrawn(false)
		o := b.refusal(j, how, why)
		return &o
	case err != nil && b.cfg.Launch != nil && tcpbase.KindOf(err) == tcpbase.ErrUnreachable:
		return nil
	}
	return b.listedIn(list, err, j)
}

// listedNow is the rule for a call the reader would have asked about at
// once (a 2026-07-28 client's input_required): the refusal, or nil, when
// the base's list is known; known false when it is not, or when the call's
// Mcp-Param headers wait for the list to be read again (the call is then
// asked about outside the reader, after headersLate and
// listedBeforeAsking).
func (b *bridge) listedNow(j *job) (o *outcome, known bool) {
	if j.headers != nil {
		return nil, false
	}
	if b.gate.Policy() == nil {
		return nil, true
	}
	list := b.tools.lastList()
	if list == nil {
		return nil, false
	}
	return b.listedIn(list, nil, j), true
}

// listedIn is the gate's rule on names (guard.Gate.Listed) given the
// base's list, or why it could not be read: nil when the call may go on,
// else the refusal.
func (b *bridge) listedIn(list []byte, err error, j *job) *outcome {
	var failure *rpc.WireError
	if err != nil {
		failure = baseFailure(err, b.cfg.BaseAddr, "tools/list", &b.cfg)
	}
	return b.decided(j, b.gate.Listed(&j.rule, j.req, list, failure))
}

// knownList is the base's last tool list, read from the base now if this
// process has none yet: by one caller at a time (the worker, a question),
// the others wait for it within their ctx and then use what it read.
func (b *bridge) knownList(ctx context.Context) ([]byte, error) {
	if list := b.tools.lastList(); list != nil {
		return list, nil
	}
	select {
	case b.tools.reading <- struct{}{}:
		defer func() { <-b.tools.reading }()
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if list := b.tools.lastList(); list != nil {
		return list, nil
	}
	return b.readList(ctx)
}

// errNotAList: the base answered tools/list with something else.
var errNotAList = errors.New("its answer to tools/list is not a tool list")

// recordList keeps a complete tool list from the base (toolState.record)
// and reports whether it changed. The first one this process sees is when
// the policy's patterns that match no tool are logged, once.
func (b *bridge) recordList(result []byte) bool {
	b.cfg.Telemetry.ToolsListed(result)
	changed, headers, err := b.tools.record(result)
	if err != nil {
		b.log.Warn().Err(err).Msg("could not write the tool list cache")
	}
	for _, p := range headers.Problems() {
		b.log.Warn().Str("tool", p).Msg("the base's tool declares x-mcp-header against the rules: 2026-07-28 HTTP clients leave it out of their tool list, and the bridge refuses its calls over HTTP (HeaderMismatch)")
	}
	b.gate.ListSeen(result)
	return changed
}
