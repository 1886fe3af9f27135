package bridge

import (
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// listen is an open modern-era subscriptions/listen request. The bridge
// cannot yet tell when the base's tool list changes, so it agrees to no
// notifications and just holds the request open, which is what Go SDK
// clients that registered list-changed handlers need in order to connect.
// It ends when the client cancels it (no answer) or stdin closes (an empty
// result).
type listen struct {
	id    rpc.ID
	batch *batch
}

func (b *bridge) listen(r *rpc.Request, bt *batch) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		b.reply(bt, r.ID, b.cfg.Server.Empty(), nil)
		return
	}
	b.listens[r.ID.String()] = &listen{id: r.ID, batch: bt}
	if bt != nil {
		bt.add()
	}
	b.mu.Unlock()
	params := fmt.Sprintf(`{"notifications":{},"_meta":{%q:%s}}`, lifecycle.MetaSubscriptionID, r.ID.Raw())
	_ = b.out.WriteNotification("notifications/subscriptions/acknowledged", []byte(params))
}

// endListens answers every open listen with an empty result, at shutdown.
func (b *bridge) endListens() {
	b.mu.Lock()
	ls := b.listens
	b.listens = map[string]*listen{}
	b.mu.Unlock()
	for _, l := range ls {
		b.reply(l.batch, l.id, b.cfg.Server.Empty(), nil)
		if l.batch != nil {
			l.batch.done()
		}
	}
}
