package bridge

import (
	"context"
	"fmt"
	"slices"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
)

// Who asks the user to confirm a call (Config.ConfirmWith).
const (
	AskClient  = policy.AskClient  // the client, through elicitation
	AskDesktop = policy.AskDesktop // a dialog on the desktop of the machine the bridge runs on
)

// whoAsks is who asks this call's user (policy.WhoAsks): "" when nobody
// the user chose can.
func (g *rules) whoAsks(clientCan bool) string {
	return policy.WhoAsks(g.confirmWith, clientCan, g.desktop != nil)
}

// cannotAsk is why a call that needs confirmation was refused: nobody the
// user chose can ask, and what would make it work. With --confirm-with
// client it is what it always was.
func (g *rules) cannotAsk(clientCan bool) string {
	why := "it needs your confirmation, and "
	switch {
	case !slices.Contains(g.confirmWith, AskClient):
		why += "the client is not asked (--confirm-with desktop)"
	default:
		why += "this client cannot ask (it did not declare the elicitation capability)"
	}
	if slices.Contains(g.confirmWith, AskDesktop) {
		why += ", and no dialog can be shown on this machine's desktop: " + g.desktopWhy
	}
	return why
}

// askWith sends a call that needs confirmation on to be asked by who, or
// refuses it when nobody can ask; true when the job goes to the queue.
func (b *bridge) askWith(j *job, who string, clientCan bool) bool {
	if who == "" {
		b.refuse(j, confirm.Unsupported, b.rules.cannotAsk(clientCan))
		return false
	}
	j.ask, j.askedBy = true, who
	return true
}

// askDesktop shows the question on this machine's desktop, once the
// client's question before it has ended and no other dialog of this
// bridge is on screen, and waits for the user, the timeout, or ctx (the
// question withdrawn: the dialog closes at once, or never shows). It
// returns the refusal to give, or nil when the user chose Run.
//
// One dialog at a time per client keeps a client's questions in the
// order it sent them; one at a time per bridge keeps them from piling up
// on the desktop when clients are many (a --listen bridge asks on the CAD
// machine's one desktop), or when one is taken for many: a stateless
// 2026-07-28 client is known by the clientInfo it names in each request,
// and one that names another each time had each of its dialogs opened at
// once, on top of each other.
func (b *bridge) askDesktop(ctx context.Context, j *job, gone <-chan struct{}) *outcome {
	g := b.rules
	refused := func(how confirm.Outcome, why string) *outcome { o := b.refusal(j, how, why); return &o }
	if gone != nil {
		var stop context.CancelFunc
		ctx, stop = context.WithCancel(ctx)
		defer stop()
		go func() {
			select {
			case <-gone:
				stop()
			case <-ctx.Done():
			}
		}()
	}
	if j.askAfter != nil {
		// One dialog at a time per client: after the one before it.
		select {
		case <-j.askAfter:
		default:
			b.log.Debug().Str("tool", j.req.Tool.Name).Msg("desktop question waits for the client's one before it")
		}
		select {
		case <-j.askAfter:
		case <-ctx.Done():
			b.log.Info().Str("tool", j.req.Tool.Name).AnErr("why", context.Cause(ctx)).Msg("desktop question withdrawn before it was shown")
			return refused(confirm.Cancelled, "it was cancelled or mcp-bridge stopped while waiting for your answer")
		}
	}
	select {
	case g.onScreen <- struct{}{}:
	default:
		b.log.Debug().Str("tool", j.req.Tool.Name).Msg("desktop question waits for the dialog on screen")
		select {
		case g.onScreen <- struct{}{}:
		case <-ctx.Done():
			b.log.Info().Str("tool", j.req.Tool.Name).AnErr("why", context.Cause(ctx)).Msg("desktop question withdrawn before it was shown")
			return refused(confirm.Cancelled, "it was cancelled or mcp-bridge stopped while waiting for your answer")
		}
	}
	defer func() { <-g.onScreen }()
	q := desktop.Question{Bridge: g.name, Client: clientName(j.clientInfo()), Tool: j.req.Tool.Name, Args: j.req.Tool.Args, Timeout: g.confirmTTL}
	b.log.Info().Str("tool", q.Tool).Str("asker", g.desktop.Name()).Msg("asking the user to confirm on the desktop")
	ans, err := g.desktop.Ask(ctx, q)
	switch {
	case err != nil && ctx.Err() == nil:
		b.log.Warn().Err(err).Str("tool", q.Tool).Msg("the desktop question could not be shown; call not sent to CAD")
		return refused(confirm.Refused, "the question could not be shown on the desktop ("+err.Error()+")")
	case ans == desktop.Run && ctx.Err() == nil:
		j.confirm = confirm.Accepted
		return nil
	case ans == desktop.TimedOut:
		return refused(confirm.TimedOut, fmt.Sprintf("nobody answered the question on the desktop within %s", g.confirmTTL))
	case ans == desktop.DontRun:
		return refused(confirm.Declined, "you declined it on the desktop")
	}
	b.log.Info().Str("tool", q.Tool).AnErr("why", context.Cause(ctx)).Msg("desktop question withdrawn")
	return refused(confirm.Cancelled, "it was cancelled or mcp-bridge stopped while waiting for your answer")
}

// clientName is the name a client gave, for the desktop question.
func clientName(ci *journal.ClientInfo) string {
	if ci == nil {
		return ""
	}
	return ci.Name
}
