package bridge

import (
	"fmt"
	"strconv"

	"github.com/mcp-bridge/mcp-bridge/bridge/clientfit"
	"github.com/mcp-bridge/mcp-bridge/configs/cut"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Each client's limits (bridge/clientfit, docs/limits.md) are applied
// here, where its answer is settled, and nowhere behind: the queue, the
// base, the tool cache and the journal never know which client asked
// (habit 26). Two things change for a client the table (or the user's
// --max-result-bytes) limits, and nothing at all, not a byte read, for
// one it does not:
//   - a tools/call result too large for it is made to fit (fitted), the
//     JSON-RPC message around it counted;
//   - a tools/list result gets the tool metadata it acts on (listMeta).

// alwaysLoadMax is the most tools a base may list for each of them to
// carry anthropic/alwaysLoad to Claude Code. A CAD base's tools (its
// drawing, layers, views: 26 in the simulated base and the FreeCAD one)
// are what every prompt about the drawing needs, and a deferred tool is
// often not called at all (colbymchenry/codegraph#1696); but a model picks
// tools less well past 30 to 50 of them (Anthropic's tool search notes),
// which is what Claude Code's deferring is for: past 30, none is loaded
// ahead (docs/limits.md).
const alwaysLoadMax = 30

// The _meta keys Claude Code reads on a tool (docs/limits.md).
const (
	metaAlwaysLoad     = "anthropic/alwaysLoad"
	metaMaxResultChars = "anthropic/maxResultSizeChars"
)

// fitAs keeps the name a handshake-era client gave in initialize, for its
// limits. Only a name the table knows is kept: any other has the same
// limits as none (the settings alone), and may be megabytes long.
func (c *Client) fitAs(name string) {
	if _, known := clientfit.Lookup(name); !known {
		name = ""
	}
	c.fitName.Store(&name)
}

// clientLimits is what the client that sent j takes: a 2026-07-28
// request's own clientInfo, else what its client named itself in
// initialize (exactly as sent: the table matches names exactly), with the
// user's settings laid over the table.
func (b *bridge) clientLimits(j *job) clientfit.Limits {
	name := ""
	if j.req.Era == lifecycle.Modern {
		name = j.req.ClientInfo.Name
	} else if n := j.reply.client.fitName.Load(); n != nil {
		name = *n
	}
	return b.cfg.Fit.For(name)
}

// fitted is the answer m to j as j's client takes it: m itself, unread,
// unless j is a tools/call answered with a result and its client has a
// limit Fit acts on; then the result fitted so that the whole message (its
// id and envelope too, without the newline) is within the client's
// MaxResultBytes. A result that fits is not copied. It runs where the
// answer is settled: in the worker for the base's answers (on the reader
// only for the bridge's own small input_required results, which Fit lets
// through on their length).
func (b *bridge) fitted(j *job, m rpc.Encoded) rpc.Encoded {
	if j.req.Method != lifecycle.MethodToolsCall {
		return m
	}
	lim := b.clientLimits(j)
	if lim.None() {
		return m
	}
	res, isErr := m.Payload()
	if isErr || res == nil {
		return m
	}
	// The envelope ({"jsonrpc":"2.0","id":…,"result":…}) counts: the
	// client's limit is on the message it reads.
	lim.Envelope = m.Len() - len(res)
	out, rep := clientfit.Fit(res, lim)
	// Fit keeps room for its notes (clientfit.MinResultBytes) whatever the
	// envelope: a long id under a small limit would still go over, and the
	// limit is on the whole message. A short error then, never more.
	if lim.MaxResultBytes > 0 && lim.Envelope+len(out) > lim.MaxResultBytes {
		b.log.Warn().Str("id", j.reply.id.String()).Str("tool", j.req.Tool.Name).Int("limit", lim.MaxResultBytes).Int("envelope", lim.Envelope).Msg("the answer does not fit what the client takes, even reduced: answered with an error")
		return rpc.EncodeError(j.reply.id, clienterr.TooLargeForClient.New(cut.Chars(j.req.Tool.Name, 64), lim.MaxResultBytes, lim.Envelope))
	}
	if !rep.Changed {
		return m
	}
	ev := b.log.Info().Str("id", j.reply.id.String()).Str("tool", j.req.Tool.Name).Str("client", lim.For).
		Int("bytes", rep.Before).Int("sent", rep.After)
	if rep.CutChars > 0 {
		ev = ev.Int("cut_chars", rep.CutChars)
	}
	for _, p := range rep.Pictures {
		if p.To.X > 0 {
			ev = ev.Str("picture", fmt.Sprintf("%d×%d → %d×%d", p.From.X, p.From.Y, p.To.X, p.To.Y))
		}
	}
	ev.Strs("left_out", rep.LeftOut).Msg("result reduced to fit what the client takes")
	return rpc.EncodeResult(j.reply.id, out)
}

// listMeta adds to a tools/list result the tool metadata j's client acts
// on (Claude Code's, per the table): anthropic/alwaysLoad on every tool
// when the list is complete and holds at most alwaysLoadMax of the base's
// (added of its tools are the bridge's own, counted apart), and
// anthropic/maxResultSizeChars where the bridge lets the client's results
// be larger than the client's default. A member the base's tool already
// has in its _meta is kept as the base wrote it; a tool whose _meta is not
// an object is left alone. Other clients get result itself. result is
// never modified: the list the bridge keeps (shownList, the tool cache) is
// the same for every client.
func (b *bridge) listMeta(j *job, result []byte, added int) []byte {
	lim := b.clientLimits(j)
	chars := 0
	if lim.DefaultResultChars > 0 {
		chars = lim.MaxResultSizeChars
		if lim.MaxResultBytes > 0 {
			// A result of N bytes holds at most N characters.
			chars = min(chars, lim.MaxResultBytes)
		}
		if chars <= lim.DefaultResultChars {
			chars = 0
		}
	}
	if !lim.ReadsAlwaysLoad && chars == 0 || rpc.Kind(result) != rpc.KindObject {
		return result
	}
	tools := rpc.Field(result, "tools")
	if rpc.Kind(tools) != rpc.KindArray {
		return result
	}
	n := 0
	rpc.EachElement(tools, func(int, int) { n++ })
	n -= added // the bridge's own (wait_for_cad): not the base's
	load := lim.ReadsAlwaysLoad && n <= alwaysLoadMax && j.req.Tool.Cursor == nil && !lifecycle.Paged(result)
	if !load && chars == 0 {
		return result
	}
	var add []byte
	if load {
		add = append(add, `"`+metaAlwaysLoad+`":true`...)
	}
	if chars > 0 {
		if len(add) > 0 {
			add = append(add, ',')
		}
		add = strconv.AppendInt(append(add, `"`+metaMaxResultChars+`":`...), int64(chars), 10)
	}
	out := make([]byte, 0, len(tools)+n*(len(add)+12))
	out = append(out, '[')
	i := 0
	rpc.EachElement(tools, func(from, to int) {
		if i > 0 {
			out = append(out, ',')
		}
		i++
		out = append(out, toolWithMeta(tools[from:to], load, chars, add)...)
	})
	out = append(out, ']')
	return rpc.AppendMembers(rpc.WithoutMember(result, "tools"), `"tools":`+string(out))
}

// toolWithMeta is one tool with the members of add in its _meta, those its
// _meta already has left as they are.
func toolWithMeta(tool []byte, load bool, chars int, add []byte) []byte {
	if rpc.Kind(tool) != rpc.KindObject {
		return tool
	}
	meta := rpc.Field(tool, "_meta")
	switch rpc.Kind(meta) {
	case rpc.KindNone:
		return rpc.AppendMembers(tool, `"_meta":{`+string(add)+`}`)
	case rpc.KindObject:
	default:
		return tool
	}
	var mine []byte
	if load && rpc.Field(meta, metaAlwaysLoad) == nil {
		mine = append(mine, `"`+metaAlwaysLoad+`":true`...)
	}
	if chars > 0 && rpc.Field(meta, metaMaxResultChars) == nil {
		if len(mine) > 0 {
			mine = append(mine, ',')
		}
		mine = strconv.AppendInt(append(mine, `"`+metaMaxResultChars+`":`...), int64(chars), 10)
	}
	if mine == nil {
		return tool
	}
	merged := rpc.AppendMembers(meta, string(mine))
	return rpc.AppendMembers(rpc.WithoutMember(tool, "_meta"), `"_meta":`+string(merged))
}
