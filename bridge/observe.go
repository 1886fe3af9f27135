package bridge

import (
	"strconv"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/status"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// Where the core reports to telemetry (Config.Telemetry, package
// bridge/telemetry) and to the base's health (Config.Health). With
// telemetry off every call here is a nil check: no allocation, no lock.

// Describe is how a front end describes a client, for telemetry and the
// status page: set it once, before the client's first Dispatch.
type Describe struct {
	Transport   string // telemetry.TransportPipe (stdio) or TransportTCP (HTTP)
	SessionID   string // Mcp-Session-Id, where there is one
	HTTPVersion string // "1.1", "2": for HTTP
	Addr        string // the HTTP client's address (host:port)
}

// Describe sets what telemetry says of c's requests. Call it before the
// client's first Dispatch: a request's telemetry reads it without a lock
// (the status page, which may look at any time, takes the lock).
func (c *Client) Describe(d Describe) {
	c.mu.Lock()
	c.desc, c.since = d, time.Now()
	c.mu.Unlock()
}

// startOp begins a request's telemetry when it is decoded: nil (nothing)
// when telemetry is off.
func (b *bridge) startOp(c *Client, m *Message) *telemetry.Op {
	t := b.cfg.Telemetry
	if t == nil {
		return nil
	}
	req := m.Req
	tr := telemetry.Request{
		LinkTraceparent: m.LinkTraceparent,
		LinkTracestate:  m.LinkTracestate,
		Method:          req.Method,
		ID:              req.ID.Raw(),
		Transport:       c.desc.Transport,
		SessionID:       c.desc.SessionID,
		HTTPVersion:     c.desc.HTTPVersion,
		ClientAddr:      c.desc.Addr,
	}
	if req.Method == lifecycle.MethodToolsCall {
		tr.Tool = req.Tool.Name
	}
	switch {
	case req.Era == lifecycle.Modern:
		tr.ProtocolVersion = req.Version
	case req.Method == lifecycle.MethodInitialize:
		tr.ProtocolVersion = req.AskedVersion
	case c.initialized.Load():
		tr.ProtocolVersion = c.LegacyVersion()
	}
	tr.Traceparent, tr.Tracestate = telemetry.TraceContext(req.Traceparent, req.Tracestate)
	return t.Start(tr)
}

// replyTel is a request's telemetry, kept apart so that a reply is no
// larger when telemetry is off: its span and metrics, and the stream an
// open listen counts as.
type replyTel struct {
	op     *telemetry.Op
	stream *telemetry.Stream
}

// op is r's telemetry handle: nil (its methods do nothing) when off.
func (r *reply) op() *telemetry.Op {
	if r.tel == nil {
		return nil
	}
	return r.tel.op
}

// endOp ends r's telemetry with what its answer m says.
func (r *reply) endOp(m rpc.Encoded) {
	if r.tel == nil || r.tel.op == nil {
		return
	}
	r.tel.op.End(answerResult(r.method, m))
}

// answerResult reads how a request ended from its answer: an error's code,
// message and data.kind (the bridge's own errors name their kind there);
// a tools/call result's isError. Only telemetry calls it.
func answerResult(method string, m rpc.Encoded) telemetry.Result {
	p, isErr := m.Payload()
	if !isErr {
		if method == lifecycle.MethodToolsCall && rpc.Kind(p) == rpc.KindObject {
			return telemetry.Result{ToolError: rpc.Kind(rpc.Field(p, "isError")) == 't'}
		}
		return telemetry.Result{}
	}
	code, _ := strconv.ParseInt(string(rpc.Field(p, "code")), 10, 64)
	msg, _ := rpc.String(rpc.Field(p, "message"))
	var kind string
	if data := rpc.Field(p, "data"); rpc.Kind(data) == rpc.KindObject {
		kind, _ = rpc.String(rpc.Field(data, "kind"))
	}
	if code == 0 {
		code = -32603 // an error object without a usable code is still a failure
	}
	return telemetry.Result{Code: code, Message: msg, Kind: kind}
}

// callKind names a base call's failure as tcpbase does, for the CAD span:
// "" when it answered.
func callKind(err error) string {
	if err == nil {
		return ""
	}
	if k := tcpbase.KindOf(err); k != nil {
		return k.String()
	}
	return telemetry.Other
}

// baseDown records in Health that the base could not be reached, and
// tcpbase's words for why (they name the address and what the system
// said: "CAD base 127.0.0.1:8080: unreachable: … connection refused").
func (b *bridge) baseDown(err error) { b.cfg.Health.Down(err.Error()) }

// snapshot is the core's part of the status page: the base, the tools as
// clients see them, the clients and their requests in progress. It never
// calls the base.
func (b *bridge) snapshot() status.Snapshot {
	s := status.Snapshot{Base: status.Base{Addr: b.cfg.BaseAddr, Status: b.cfg.Health.Status()}}
	if b.cfg.Journal != nil {
		s.Journal = b.cfg.Journal.Path()
	}
	if list := b.tools.lastList(); list != nil {
		shown := b.cfg.Policy.ApplyList(list) // what clients are shown
		for _, name := range lifecycle.ToolNames(shown) {
			ask := b.gate.NeedsConfirm(name)
			ann := lifecycle.ToolAnnotations(shown, name)
			s.Tools = append(s.Tools, status.Tool{Name: name, Confirm: ask,
				ReadOnly: rpc.Kind(ann) == rpc.KindObject && rpc.Kind(rpc.Field(ann, "readOnlyHint")) == 't'})
		}
	}
	for _, c := range b.allClients() {
		cl := status.Client{Transport: "stdio", Era: "legacy"}
		if ci := c.asker.info.Load(); ci != nil {
			cl.Name, cl.Version = ci.Name, ci.Version
		}
		c.mu.Lock()
		cl.Session, cl.Address, cl.Since = c.desc.SessionID, c.desc.Addr, c.since
		if c.desc.Transport == telemetry.TransportTCP {
			cl.Transport = "http"
		}
		for _, r := range c.ids {
			cl.InProgress++
			if r.listen {
				continue
			}
			who := cl.Name
			if r.req != nil && r.req.Era == lifecycle.Modern {
				cl.Era = "modern"
				if r.req.ClientInfo.Name != "" {
					who = r.req.ClientInfo.Name
				}
			}
			if who == "" {
				who = cl.Transport
			}
			call := status.Call{Method: r.method, Client: who, Since: r.stateAt}
			if r.req != nil && r.method == lifecycle.MethodToolsCall {
				call.Tool = r.req.Tool.Name
			}
			switch reqState(r.state.Load()) {
			case reqRunning:
				s.InFlight = append(s.InFlight, call)
			case reqWaiting:
				s.Queued = append(s.Queued, call)
			case reqAsking:
				s.Questions = append(s.Questions, status.Question{Tool: call.Tool, Client: who, AskedBy: askedBy(r.askedDesktop), Since: r.stateAt})
			}
		}
		c.mu.Unlock()
		s.Clients = append(s.Clients, cl)
	}
	return s
}

func askedBy(desktop bool) string {
	if desktop {
		return AskDesktop
	}
	return AskClient
}
