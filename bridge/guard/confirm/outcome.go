package confirm

// Outcome is how a call's confirmation went: the one vocabulary the
// journal writes (its "confirm" field), telemetry counts
// (mcp_bridge.confirmation.answer, by Label) and the status page shows.
// Its value is the journal's word, so that every journal written before
// reads the same.
type Outcome string

// The outcomes. The zero value is NotAsked.
const (
	NotAsked Outcome = "" // the call needed no confirmation
	// Asked: a 2026-07-28 client was handed the question (an
	// input_required result); the answer comes with the call sent again.
	Asked    Outcome = "asked"
	Accepted Outcome = "accepted" // the user agreed: the call runs
	// Declined: the user said no, or accepted without ticking the box.
	Declined Outcome = "declined"
	// Cancelled: the question was dismissed, or withdrawn before an
	// answer (the client cancelled, its stream ended, the bridge stopped).
	Cancelled Outcome = "cancelled"
	TimedOut  Outcome = "timed out" // nobody answered within --confirm-timeout
	// Unsupported: nobody the user chose (--confirm-with) can ask this
	// call's user.
	Unsupported Outcome = "unsupported"
	// Refused: no valid answer: the question could not show every
	// argument or could not be shown, the answer was none, or a 2026-07-28
	// requestState was not one the bridge issued.
	Refused Outcome = "refused"
)

// Answer is the outcome an elicitation result names (Read): Accepted,
// Declined, Cancelled, or Invalid.
type Answer = Outcome

// Invalid is what Read makes of a result that is no elicitation result:
// the call is refused.
const Invalid = Refused

func (o Outcome) String() string { return string(o) }

// Label is the outcome as metrics and traces name an answer
// (docs/telemetry.md): agreed, declined, cancelled, timeout; "" for an
// outcome that is no answer of the user's (counted as other).
func (o Outcome) Label() string {
	switch o {
	case Accepted:
		return "agreed"
	case Declined, Cancelled:
		return string(o)
	case TimedOut:
		return "timeout"
	}
	return ""
}

// Withheld reports whether the call was not run for want of the user's
// agreement: asked (or meant to be) and not agreed, nor still waiting for
// a 2026-07-28 client's answer.
func (o Outcome) Withheld() bool { return o != NotAsked && o != Accepted && o != Asked }
