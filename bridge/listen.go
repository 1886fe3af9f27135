package bridge

import (
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// listen is an open modern-era subscriptions/listen request: the stream on
// which a modern client gets notifications/tools/list_changed. The bridge
// offers that one notification type (it compares each fresh tools/list with
// the last); when a client asks for nothing it offers, the request is
// acknowledged and answered at once. Otherwise it stays open until the
// client cancels it (no answer) or stdin closes (an empty result).
type listen struct {
	id    rpc.ID
	batch *batch
}

func (b *bridge) listen(r *rpc.Request, bt *batch) {
	wantTools := string(rpc.Field(rpc.Field(r.Params, "notifications"), "toolsListChanged")) == "true"
	agreed := `{}`
	if wantTools {
		agreed = `{"toolsListChanged":true}`
	}
	params := fmt.Sprintf(`{"notifications":%s,"_meta":{%q:%s}}`, agreed, lifecycle.MetaSubscriptionID, r.ID.Raw())
	b.mu.Lock()
	hold := wantTools && !b.closed
	if hold {
		b.listens[r.ID.String()] = &listen{id: r.ID, batch: bt}
		if bt != nil {
			bt.add()
		}
	}
	b.mu.Unlock()
	b.log.Debug().Str("id", r.ID.String()).Bool("toolsListChanged", hold).Msg("subscriptions/listen opened")
	// The acknowledgement is the first message of the stream, before anything
	// else for this subscription, batch or not.
	_ = b.out.WriteNotification("notifications/subscriptions/acknowledged", []byte(params))
	if !hold {
		b.reply(bt, r.ID, b.listenResult(r.ID), nil)
	}
}

// listenResult ends a listen stream.
func (b *bridge) listenResult(id rpc.ID) []byte {
	return b.cfg.Server.Decorate("", []byte(fmt.Sprintf(`{"_meta":{%q:%s}}`, lifecycle.MetaSubscriptionID, id.Raw())))
}

// sendListChanged tells the client that the tool list changed: a legacy
// client that initialized (it was told tools.listChanged) by a plain
// notification, each modern listen stream that asked for it on that stream.
func (b *bridge) sendListChanged(changed bool) {
	if !changed {
		return
	}
	if b.initialized.Load() {
		_ = b.out.WriteNotification("notifications/tools/list_changed", nil)
	}
	b.mu.Lock()
	var ids []rpc.ID
	for _, l := range b.listens {
		ids = append(ids, l.id)
	}
	b.mu.Unlock()
	for _, id := range ids {
		params := fmt.Sprintf(`{"_meta":{%q:%s}}`, lifecycle.MetaSubscriptionID, id.Raw())
		_ = b.out.WriteNotification("notifications/tools/list_changed", []byte(params))
	}
}

// endListens answers every open listen with an empty result, at shutdown.
func (b *bridge) endListens() {
	b.mu.Lock()
	ls := b.listens
	b.listens = map[string]*listen{}
	b.mu.Unlock()
	for _, l := range ls {
		b.reply(l.batch, l.id, b.listenResult(l.id), nil)
		if l.batch != nil {
			l.batch.done()
		}
	}
}
