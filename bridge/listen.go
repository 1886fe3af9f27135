package bridge

import (
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// listen handles a modern-era subscriptions/listen request: the stream on
// which a modern client gets notifications/tools/list_changed. The bridge
// offers that one notification type (it compares each fresh tools/list with
// the last); when a client asks for nothing it offers, the request is
// acknowledged and answered at once. Otherwise its reply stays open, among
// the client's requests in progress, until the client cancels it (no
// answer) or the bridge stops (an empty result).
func (b *bridge) listen(c *Client, req *lifecycle.Request, r *reply) {
	wantTools := req.ListensTools
	agreed := `{}`
	if wantTools {
		agreed = `{"toolsListChanged":true}`
	}
	hold := false
	if wantTools && !b.queue.isClosed() {
		r.listen = true
		r.withContext(b.hardCtx)
		if s := b.cfg.Telemetry.StreamOpened(); s != nil { // closed as the listen ends, whatever ends it
			if r.tel == nil {
				r.tel = &replyTel{}
			}
			r.tel.stream = s
		}
		if werr := c.track(r, false); werr != nil {
			r.fail(werr)
			return
		}
		hold = true
	}
	b.log.Debug().Str("id", r.id.String()).Bool("toolsListChanged", hold).Msg("subscriptions/listen opened")
	// The acknowledgement is the first message of the stream, before anything
	// else for this subscription, batch or not.
	r.notify(rpc.EncodeNotification("notifications/subscriptions/acknowledged",
		fmt.Appendf(nil, `{"notifications":%s,%s}`, agreed, subscriptionMeta(r.id))))
	if !hold {
		r.result(b.listenResult(r.id))
	}
}

// subscriptionMeta is the _meta member that ties a message to the listen
// stream id.
func subscriptionMeta(id rpc.ID) string {
	return fmt.Sprintf(`"_meta":{%q:%s}`, lifecycle.MetaSubscriptionID, id.Raw())
}

// listenResult ends a listen stream.
func (b *bridge) listenResult(id rpc.ID) []byte {
	return b.cfg.Server.Decorate("", []byte("{"+subscriptionMeta(id)+"}"))
}

// sendListChanged tells the client that the tool list changed: a legacy
// client that initialized (it was told tools.listChanged) by a plain
// notification, each modern listen stream that asked for it on that stream.
func (b *bridge) sendListChanged(changed bool) {
	if !changed {
		return
	}
	for _, c := range b.allClients() {
		if c.initialized.Load() {
			c.notify(rpc.EncodeNotification("notifications/tools/list_changed", nil))
		}
		for _, l := range c.listening() {
			l.notify(rpc.EncodeNotification("notifications/tools/list_changed", []byte("{"+subscriptionMeta(l.id)+"}")))
		}
	}
}

// endListens answers every open listen with an empty result, at shutdown.
func (b *bridge) endListens() {
	for _, c := range b.allClients() {
		for _, l := range c.listening() {
			l.result(b.listenResult(l.id))
		}
	}
}
