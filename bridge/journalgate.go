package bridge

import (
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// journalGate is --journal-required: a tools/call is refused, before
// anything reaches CAD, while the journal cannot be written (its last
// write failed, or it cannot be opened now). The refusal is journalled
// like any answer, and the first write that works ends the outage.
func (b *bridge) journalGate(j *job) *rpc.WireError {
	w := b.rules.journal
	if !b.cfg.JournalRequired || w == nil || j.req.Method != lifecycle.MethodToolsCall {
		return nil
	}
	err := w.Ready()
	if err == nil {
		return nil
	}
	b.log.Warn().Err(err).Str("tool", j.req.Tool.Name).Msg("journal cannot be written: call refused (--journal-required); not sent to CAD")
	return clienterr.Journal.With(map[string]string{"journal": w.Path(), "tool": j.req.Tool.Name}, w.Path(), err)
}
