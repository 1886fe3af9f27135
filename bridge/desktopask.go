package bridge

import (
	"context"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard"
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
			return refused(guard.Withdrawn(true))
		}
	}
	select {
	case b.onScreen <- struct{}{}:
	default:
		b.log.Debug().Str("tool", j.req.Tool.Name).Msg("desktop question waits for the dialog on screen")
		select {
		case b.onScreen <- struct{}{}:
		case <-ctx.Done():
			b.log.Info().Str("tool", j.req.Tool.Name).AnErr("why", context.Cause(ctx)).Msg("desktop question withdrawn before it was shown")
			return refused(guard.Withdrawn(true))
		}
	}
	defer func() { <-b.onScreen }()
	q := desktop.Question{Bridge: b.cfg.Name, Client: clientName(j.clientInfo()), Tool: j.req.Tool.Name, Args: j.req.Tool.Args, Timeout: b.gate.ConfirmTimeout()}
	b.log.Info().Str("tool", q.Tool).Str("asker", b.cfg.Desktop.Name()).Msg("asking the user to confirm on the desktop")
	ans, err := b.cfg.Desktop.Ask(ctx, q)
	withdrawn := ctx.Err() != nil
	how, why := b.gate.Dialog(ans, err, withdrawn)
	switch {
	case how == confirm.Accepted:
		j.rule.Confirm = how
		return nil
	case err != nil && !withdrawn:
		b.log.Warn().Err(err).Str("tool", q.Tool).Msg("the desktop question could not be shown; call not sent to CAD")
	case how == confirm.Cancelled:
		b.log.Info().Str("tool", q.Tool).AnErr("why", context.Cause(ctx)).Msg("desktop question withdrawn")
	}
	return refused(how, why)
}

// clientName is the name a client gave, for the desktop question.
func clientName(ci *journal.ClientInfo) string {
	if ci == nil {
		return ""
	}
	return ci.Name
}
