package bridge

import (
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/health"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/status"
)

// What a front end in a package of its own (the Streamable HTTP one,
// bridge/streamable) sees of the core; stdio (Run) uses the same pieces
// from within. The front end starts the core (Start), makes a Client for
// each client it serves with the Stream its messages go to, decodes what
// the client sends once (Core.Decode) and hands it over (Core.Dispatch),
// which never blocks; answers and notifications come back on a Stream.
// A Stream that can end before its client does (one HTTP response) also
// has a method Ended() <-chan struct{}: a confirmation question asked on
// it is withdrawn when that channel closes.

// Core is the bridge's core as a front end drives it: the decoder, the
// dispatcher, the queue in front of the one worker, the worker and the
// prober.
type Core struct{ b *bridge }

// Start starts the core for a front end: its worker and its prober, with
// cfg's defaults set. transport names the front end in the journal. Stop
// ends them.
func Start(cfg Config, transport string) *Core { return &Core{start(cfg, transport)} }

// Config is the core's configuration, its defaults set.
func (c *Core) Config() Config { return c.b.cfg }

// Stop ends the core as a signal ends Run, once the front end has stopped
// taking requests: the call in flight gets Grace to finish, the queued
// ones are answered unsent with the shutdown error, open listens end.
func (c *Core) Stop() { c.b.stop(true, c.b.cfg.Grace) }

// Decode decodes one body of client messages (one line's worth: a message
// or a batch), once: the front end routes by what it reads in the
// messages' Req, and hands them to Dispatch unchanged.
func (c *Core) Decode(body []byte) (msgs []Message, isBatch bool) { return c.b.decode(body) }

// Dispatch handles decoded messages from cl: each is answered at once or
// queued for the worker (it never blocks), its answer and the
// notifications about it going to out (a batch's answers as one array).
func (c *Core) Dispatch(cl *Client, out Stream, msgs []Message, isBatch bool) {
	c.b.dispatchAll(cl, out, msgs, isBatch)
}

// AsksFirst reports whether m is a handshake-era tools/call that cl's user
// may be asked to confirm before it runs: the question then travels where
// its answer goes, which must be able to carry a request first.
func (c *Core) AsksFirst(cl *Client, m *Message) bool { return c.b.asksFirst(cl, m) }

// NewClient makes a client whose own messages (notifications not about a
// request of it) go to out, nil for none, and which takes its turns with
// the worker in t (nil: a turn of its own). It counts among the core's
// clients until RemoveClient.
func (c *Core) NewClient(out Stream, t *Turn) *Client {
	cl := newClient(out, c.b.cfg.MaxMessage, c.b.log)
	if t != nil {
		cl.turn = t
	}
	c.b.addClient(cl)
	return cl
}

// RemoveClient forgets a client: it gets no list changes, and no longer
// counts in Health.
func (c *Core) RemoveClient(cl *Client) { c.b.removeClient(cl) }

// Telemetry is the core's telemetry (Config.Telemetry): nil when off.
func (c *Core) Telemetry() *telemetry.Telemetry { return c.b.cfg.Telemetry }

// BaseHealth is what the core last saw of the base, for /healthz.
func (c *Core) BaseHealth() *health.State { return c.b.cfg.Health }

// Status is the core's part of the status page (the front end adds how
// clients reach it, its sessions and streams).
func (c *Core) Status() status.Snapshot { return c.b.snapshot() }

// Health is what the core can say of itself without asking the base.
type Health struct {
	BaseDown bool // the last call found the base unreachable
	Queued   int  // jobs waiting for the worker
	Clients  int  // clients of every front end
}

// Health is the core's state now.
func (c *Core) Health() Health {
	return Health{BaseDown: c.b.tools.isDown(), Queued: c.b.queue.len(), Clients: len(c.b.allClients())}
}
