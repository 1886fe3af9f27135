package guard

import (
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// How a question the core asked ended, decided: confirm.Accepted (the
// call runs) or the outcome that refuses it and why, for the refusal the
// client gets (confirm.Refusal).

// Elicited decides a client's response to the question
// (elicitation/create): its error, or the answer its result holds.
func Elicited(resp *rpc.Response) (confirm.Outcome, string) {
	if resp.Error != nil {
		return confirm.Refused, "the client could not ask you (" + resp.Error.Message + ")"
	}
	switch a := confirm.Read(resp.Result); a {
	case confirm.Accepted:
		return a, ""
	case confirm.Invalid:
		return confirm.Refused, "the client's answer to the question was not an elicitation result"
	default:
		return a, "you " + a.String() + " it"
	}
}

// Dialog decides how a desktop dialog ended: the asker's answer and
// error, and whether the question was withdrawn meanwhile (the dialog was
// closed for it).
func (g *Gate) Dialog(ans desktop.Answer, err error, withdrawn bool) (confirm.Outcome, string) {
	switch {
	case err != nil && !withdrawn:
		return confirm.Refused, "the question could not be shown on the desktop (" + err.Error() + ")"
	case ans == desktop.Run && !withdrawn:
		return confirm.Accepted, ""
	case ans == desktop.TimedOut:
		return g.TimedOut(policy.AskDesktop)
	case ans == desktop.DontRun:
		return confirm.Declined, "you declined it on the desktop"
	}
	return Withdrawn(true)
}

// TimedOut is a question nobody answered within the confirmation
// timeout; by is who asked.
func (g *Gate) TimedOut(by string) (confirm.Outcome, string) {
	where := ""
	if by == policy.AskDesktop {
		where = " on the desktop"
	}
	return confirm.TimedOut, fmt.Sprintf("nobody answered the question%s within %s", where, g.ttl)
}

// Withdrawn is a question withdrawn because the client cancelled the
// call, its session ended, or the bridge stopped: while the question was
// out (asked), or before it was.
func Withdrawn(asked bool) (confirm.Outcome, string) {
	if !asked {
		return confirm.Cancelled, "it was cancelled or mcp-bridge stopped before you were asked"
	}
	return confirm.Cancelled, "it was cancelled or mcp-bridge stopped while waiting for your answer"
}

// StreamClosed is a question whose stream (an HTTP response) closed
// before the answer came: nobody can answer it any more.
func StreamClosed() (confirm.Outcome, string) {
	return confirm.Cancelled, "the stream carrying the question closed before you answered"
}

// NotSent is a question that could not be written to the client.
func NotSent() (confirm.Outcome, string) {
	return confirm.Refused, "the question could not be sent to the client"
}
