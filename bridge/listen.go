package bridge

import (
	"context"
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
	id rpc.ID
	o  origin
}

func (b *bridge) listen(o origin, r *rpc.Request) {
	wantTools := string(rpc.Field(rpc.Field(r.Params, "notifications"), "toolsListChanged")) == "true"
	agreed := `{}`
	if wantTools {
		agreed = `{"toolsListChanged":true}`
	}
	params := fmt.Sprintf(`{"notifications":%s,"_meta":{%q:%s}}`, agreed, lifecycle.MetaSubscriptionID, r.ID.Raw())
	l := &listen{id: r.ID, o: o}
	b.mu.Lock()
	hold := wantTools && !b.closed
	if hold {
		b.listens[l] = true
		if o.bt != nil {
			o.bt.add()
		}
	}
	b.mu.Unlock()
	b.log.Debug().Str("id", r.ID.String()).Bool("toolsListChanged", hold).Msg("subscriptions/listen opened")
	// The acknowledgement is the first message of the stream, before anything
	// else for this subscription, batch or not.
	_ = o.out.WriteNotification("notifications/subscriptions/acknowledged", []byte(params))
	if !hold {
		b.reply(o, r.ID, b.listenResult(r.ID), nil)
		return
	}
	if o.ctx != nil {
		// The client closed the stream: forget the listen, answer nothing.
		context.AfterFunc(o.ctx, func() {
			b.mu.Lock()
			delete(b.listens, l)
			b.mu.Unlock()
		})
	}
}

// listenResult ends a listen stream.
func (b *bridge) listenResult(id rpc.ID) []byte {
	return b.cfg.Server.Decorate("", []byte(fmt.Sprintf(`{"_meta":{%q:%s}}`, lifecycle.MetaSubscriptionID, id.Raw())))
}

// sendListChanged tells the clients that the tool list changed: a legacy
// client that initialized (it was told tools.listChanged) by a plain
// notification, each modern listen stream that asked for it on that stream.
func (b *bridge) sendListChanged(changed bool) {
	if !changed {
		return
	}
	b.mu.Lock()
	var legacy []*rpc.Writer
	for c := range b.clients {
		if c.notify != nil && c.initialized.Load() {
			legacy = append(legacy, c.notify)
		}
	}
	var ls []*listen
	for l := range b.listens {
		ls = append(ls, l)
	}
	b.mu.Unlock()
	for _, w := range legacy {
		_ = w.WriteNotification("notifications/tools/list_changed", nil)
	}
	for _, l := range ls {
		params := fmt.Sprintf(`{"_meta":{%q:%s}}`, lifecycle.MetaSubscriptionID, l.id.Raw())
		_ = l.o.out.WriteNotification("notifications/tools/list_changed", []byte(params))
	}
}

// endListens answers every open listen with an empty result, at shutdown.
func (b *bridge) endListens() {
	b.mu.Lock()
	ls := b.listens
	b.listens = map[*listen]bool{}
	b.mu.Unlock()
	for l := range ls {
		b.reply(l.o, l.id, b.listenResult(l.id), nil)
		if l.o.bt != nil {
			l.o.bt.done()
		}
	}
}

// listenCount is the number of open listen streams.
func (b *bridge) listenCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.listens)
}
