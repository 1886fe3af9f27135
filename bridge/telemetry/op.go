package telemetry

import (
	"context"
	"net"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/tracecontext"
	"github.com/mcp-bridge/mcp-bridge/configs/cut"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Attribute keys: the convention's, and the bridge's own.
const (
	keyMethod          = attribute.Key("mcp.method.name")
	keyTool            = attribute.Key("gen_ai.tool.name")
	keyOperation       = attribute.Key("gen_ai.operation.name")
	keyRequestID       = attribute.Key("jsonrpc.request.id")
	keyProtocolVersion = attribute.Key("mcp.protocol.version")
	keySessionID       = attribute.Key("mcp.session.id")
	keyTransport       = attribute.Key("network.transport")
	keyProtocolName    = attribute.Key("network.protocol.name")
	keyProtocolVer     = attribute.Key("network.protocol.version")
	keyErrorType       = attribute.Key("error.type")
	keyStatusCode      = attribute.Key("rpc.response.status_code")
	keyServerAddress   = attribute.Key("server.address")
	keyServerPort      = attribute.Key("server.port")
	keyClientAddress   = attribute.Key("client.address")
	keyClientPort      = attribute.Key("client.port")
	keyAnswer          = attribute.Key("mcp_bridge.confirmation.answer")
	keyRefusal         = attribute.Key("mcp_bridge.refusal.kind")
)

// Bounds on a client's text kept on a span.
const (
	maxID      = 128
	maxMessage = 256
)

// Request is what the core knows of a request (or notification) when it
// arrives. Every field is as the client sent it: Start keeps only values
// from fixed sets for metrics and span names, and bounds the rest.
type Request struct {
	Method string // mcp.method.name
	Tool   string // tools/call: params.name
	// ID is the JSON-RPC id's raw token (a JSON string or number), nil
	// for a notification.
	ID []byte
	// ProtocolVersion is the request's MCP version: negotiated by
	// initialize, or named in _meta (2026-07-28).
	ProtocolVersion string
	SessionID       string // Mcp-Session-Id, where there is one
	Transport       string // TransportPipe or TransportTCP
	HTTPVersion     string // "1.1", "2": r.Proto's number, for HTTP
	// ClientAddr is the HTTP client's address (host:port; behind a trusted
	// proxy, the one it names).
	ClientAddr string
	// Traceparent and Tracestate are params._meta's (TraceContext decodes
	// them): the client's span becomes the parent when it parses.
	Traceparent, Tracestate string
	// LinkTraceparent and LinkTracestate are the HTTP request's own
	// headers, if any: linked, as the convention asks for the transport's
	// context.
	LinkTraceparent, LinkTracestate string
	// Received is when the request arrived (default: when Start is called).
	Received time.Time
}

// Op is one request in progress, from Start to End. A nil *Op (telemetry
// off) does nothing. Its methods may be called from the goroutines the
// request passes through; each records once.
type Op struct {
	t      *Telemetry
	start  time.Time
	ctx    context.Context // holds the server span, or the client's context when not tracing
	span   trace.Span      // nil: no trace
	method string
	tool   string // "" unless tools/call
	common []attribute.KeyValue
	// asked is the tool name the client sent when tool is Other: the
	// name learned if the base answers the call (End).
	asked string

	mu    sync.Mutex
	ended bool
	// answered: the last round trip to the base brought an answer.
	answered  bool
	inQueue   bool
	queuedAt  time.Time
	queueSpan trace.Span
	asking    bool
	askSpan   trace.Span
}

// Start begins a request's span (SERVER, named "{mcp.method.name}
// {gen_ai.tool.name}" when the tool is one the base lists (or, before any
// list, has run: End names the call it learns that from), else
// "{mcp.method.name}"), a child of the client's trace context when it
// sent a valid one, a new trace otherwise. Call it when the request is
// read; End when its answer is written.
func (t *Telemetry) Start(r Request) *Op {
	if t == nil {
		return nil
	}
	return t.start(r)
}

func (t *Telemetry) start(r Request) *Op {
	o := &Op{t: t, start: r.Received, method: method(r.Method)}
	if o.start.IsZero() {
		o.start = time.Now()
	}
	if r.Method == "tools/call" {
		if o.tool = t.tools.name(r.Tool); o.tool == Other {
			o.asked = r.Tool
		}
	}
	o.common = make([]attribute.KeyValue, 0, 8)
	o.common = append(o.common, keyMethod.String(o.method))
	if o.tool != "" {
		o.common = append(o.common, keyTool.String(o.tool), keyOperation.String("execute_tool"))
	}
	if v := protocolVersion(r.ProtocolVersion); v != "" {
		o.common = append(o.common, keyProtocolVersion.String(v))
	}
	switch r.Transport {
	case TransportPipe:
		o.common = append(o.common, keyTransport.String(TransportPipe))
	case TransportTCP:
		o.common = append(o.common, keyTransport.String(TransportTCP), keyProtocolName.String("http"))
		if v := httpVersion(r.HTTPVersion); v != "" {
			o.common = append(o.common, keyProtocolVer.String(v))
		}
	}

	ctx := context.Background()
	if sc, ok := remoteContext(r.Traceparent, r.Tracestate); ok {
		ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	o.ctx = ctx
	if t.tracer == nil {
		return o
	}
	attrs := append([]attribute.KeyValue(nil), o.common...)
	if id := requestID(r.ID); id != "" {
		attrs = append(attrs, keyRequestID.String(id))
	}
	if r.SessionID != "" {
		attrs = append(attrs, keySessionID.String(cut.Bytes(r.SessionID, maxID)))
	}
	if host, port, err := net.SplitHostPort(r.ClientAddr); err == nil {
		attrs = append(attrs, keyClientAddress.String(cut.Bytes(host, maxID)))
		if p, err := strconv.Atoi(port); err == nil {
			attrs = append(attrs, keyClientPort.Int(p))
		}
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(o.start), trace.WithAttributes(attrs...)}
	if sc, ok := remoteContext(r.LinkTraceparent, r.LinkTracestate); ok {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
	}
	o.ctx, o.span = t.tracer.Start(ctx, o.spanName(), opts...)
	return o
}

// spanName is "{method} {tool}" for a listed tool, else "{method}".
func (o *Op) spanName() string {
	if o.tool != "" && o.tool != Other {
		return o.method + " " + o.tool
	}
	return o.method
}

// remoteContext parses a client's trace context; false when traceparent
// is absent or invalid (then tracestate is ignored too, as W3C asks). A
// bad tracestate alone is dropped and the parent kept.
func remoteContext(traceparent, tracestate string) (trace.SpanContext, bool) {
	if traceparent == "" {
		return trace.SpanContext{}, false
	}
	p, ok := tracecontext.ParseParent(traceparent)
	if !ok {
		return trace.SpanContext{}, false
	}
	cfg := trace.SpanContextConfig{TraceID: p.TraceID, SpanID: p.SpanID, TraceFlags: trace.TraceFlags(p.Flags), Remote: true}
	if s, ok := tracecontext.ParseState(tracestate); ok && s != "" {
		if ts, err := trace.ParseTraceState(s); err == nil {
			cfg.TraceState = ts
		}
	}
	return trace.NewSpanContext(cfg), true
}

// requestID is the id as the convention writes it: a string id's text, a
// number's digits; "" for none (or null).
func requestID(raw []byte) string {
	switch rpc.Kind(raw) {
	case rpc.KindString:
		if len(raw) > 4*maxID {
			raw = raw[:4*maxID] // the text is cut anyway; decode no more than that
			s, _ := rpc.String(append(raw[:len(raw):len(raw)], '"'))
			return cut.Bytes(s, maxID)
		}
		s, _ := rpc.String(raw)
		return cut.Bytes(s, maxID)
	case rpc.KindNumber:
		return cut.Bytes(string(raw), maxID)
	}
	return ""
}

// Result is how a request ended, as its answer says.
type Result struct {
	// Code is the JSON-RPC error's code; 0 for a result.
	Code int64
	// Message is the error's message (the span's status description).
	Message string
	// ToolError: a result with isError: true.
	ToolError bool
	// Kind is the bridge's name for the failure where it has one
	// (unreachable, timeout, closed, malformed, too_large, cancelled,
	// shutdown, denied, declined, …: the data.kind of its errors); it wins
	// over Code as error.type. Names it does not know are Other.
	Kind string
}

// errorType is error.type: the kind, else the code, else tool_error.
func (r Result) errorType() string {
	switch {
	case r.Kind != "":
		if errorKinds[r.Kind] {
			return r.Kind
		}
		return Other
	case r.Code != 0:
		return errorCode(r.Code)
	case r.ToolError:
		return "tool_error"
	}
	return ""
}

// Queued records that the request entered the worker's queue: the queue
// wait span starts, and mcp_bridge.calls.queued counts it.
func (o *Op) Queued() {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended || o.inQueue {
		return
	}
	o.inQueue, o.queuedAt = true, time.Now()
	if o.t.inst.on {
		o.t.inst.queued.Add(context.Background(), 1)
	}
	if o.span != nil {
		_, o.queueSpan = o.t.tracer.Start(o.ctx, "queue wait", trace.WithSpanKind(trace.SpanKindInternal), trace.WithTimestamp(o.queuedAt))
	}
}

// Dequeued records that it left the queue: the worker took it, or it was
// cancelled or pushed out while waiting.
func (o *Op) Dequeued() {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.dequeuedLocked(time.Now())
}

func (o *Op) dequeuedLocked(now time.Time) {
	if !o.inQueue {
		return
	}
	o.inQueue = false
	if o.t.inst.on {
		ctx := context.Background()
		o.t.inst.queued.Add(ctx, -1)
		o.t.inst.queueWait.Record(ctx, now.Sub(o.queuedAt).Seconds(), metric.WithAttributes(o.toolAttrs()...))
	}
	if o.queueSpan != nil {
		o.queueSpan.End(trace.WithTimestamp(now))
		o.queueSpan = nil
	}
}

// toolAttrs are the method and tool, for the bridge's own metrics.
func (o *Op) toolAttrs() []attribute.KeyValue {
	if o.tool == "" {
		return o.common[:1]
	}
	return o.common[:2]
}

// Asked records that a confirmation question went out (an elicitation, a
// desktop dialog, or a 2026-07-28 input_required answer): the
// confirmation wait span starts.
func (o *Op) Asked() {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended || o.asking {
		return
	}
	o.asking = true
	if o.t.inst.on {
		o.t.inst.asked.Add(context.Background(), 1, metric.WithAttributes(o.toolAttrs()...))
	}
	if o.span != nil {
		_, o.askSpan = o.t.tracer.Start(o.ctx, "confirmation wait", trace.WithSpanKind(trace.SpanKindInternal))
	}
}

// Answered records a confirmation's answer: the one Asked waited for, or
// (2026-07-28) the answer a later request brings back.
func (o *Op) Answered(a Answer) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended {
		return
	}
	v := answer(a)
	if o.t.inst.on {
		attrs := append(o.toolAttrs()[:len(o.toolAttrs()):len(o.toolAttrs())], keyAnswer.String(v))
		o.t.inst.answered.Add(context.Background(), 1, metric.WithAttributes(attrs...))
	}
	if o.askSpan != nil {
		o.askSpan.SetAttributes(keyAnswer.String(v))
		o.askSpan.End()
		o.askSpan = nil
	} else if o.span != nil {
		o.span.SetAttributes(keyAnswer.String(v))
	}
	o.asking = false
}

// Refused records that the policy refused the call (kind: Refusal*).
func (o *Op) Refused(kind string) {
	if o == nil {
		return
	}
	v := refusal(kind)
	if o.t.inst.on {
		attrs := append(o.toolAttrs()[:len(o.toolAttrs()):len(o.toolAttrs())], keyRefusal.String(v))
		o.t.inst.refusals.Add(context.Background(), 1, metric.WithAttributes(attrs...))
	}
	if o.span != nil {
		o.span.SetAttributes(keyRefusal.String(v))
	}
}

// End records the request's end when its answer (or, for a notification,
// its handling) is done: the span ends with error.type and an error status
// when res is a failure, and mcp.server.operation.duration is recorded.
// A queue wait or question still open ends with it. Only the first End
// counts.
func (o *Op) End(res Result) {
	if o == nil {
		return
	}
	now := time.Now()
	o.mu.Lock()
	if o.ended {
		o.mu.Unlock()
		return
	}
	o.ended = true
	o.dequeuedLocked(now)
	if o.askSpan != nil {
		o.askSpan.End(trace.WithTimestamp(now))
		o.askSpan = nil
	}
	answered := o.answered
	o.mu.Unlock()

	errType := res.errorType()
	attrs := o.common
	if o.tool == Other && answered && errType == "" {
		// The base ran a tool of this name: it has it (tools.ran).
		if v := o.t.tools.ran(o.asked); v != Other {
			attrs = append([]attribute.KeyValue(nil), attrs...)
			attrs[1] = keyTool.String(v)
			if o.span != nil {
				o.span.SetName(o.method + " " + v)
				o.span.SetAttributes(attrs[1])
			}
		}
	}
	if errType != "" {
		attrs = append(attrs[:len(attrs):len(attrs)], keyErrorType.String(errType))
	}
	if code := errorCode(res.Code); code != "" {
		attrs = append(attrs[:len(attrs):len(attrs)], keyStatusCode.String(code))
	}
	if o.t.inst.on {
		o.t.inst.opDuration.Record(context.Background(), now.Sub(o.start).Seconds(), metric.WithAttributes(attrs...))
	}
	if o.span != nil {
		if errType != "" {
			o.span.SetAttributes(keyErrorType.String(errType))
			if code := errorCode(res.Code); code != "" {
				o.span.SetAttributes(keyStatusCode.String(code))
			}
			o.span.SetStatus(codes.Error, cut.Bytes(res.Message, maxMessage))
		}
		o.span.End(trace.WithTimestamp(now))
	}
}

// Call is one outgoing round trip: to the CAD base, or (connect) to the
// remote bridge. A nil *Call does nothing.
type Call struct {
	o     *Op
	start time.Time
	span  trace.Span
	base  bool
	attrs []attribute.KeyValue

	once sync.Once
}

// CallBase starts the CAD round trip: a CLIENT span (network.transport
// tcp, server.address and server.port of the base), and the call counts
// in mcp_bridge.calls.in_flight until End. Call it just before the frame
// goes to the base.
func (o *Op) CallBase() *Call {
	if o == nil {
		return nil
	}
	return o.call(o.t.baseHost, o.t.basePort, true)
}

// CallRemote starts the round trip to the remote bridge that connect
// relays to (addr is its host:port): a CLIENT span whose context
// TraceMeta gives for the request's _meta, so that the remote's spans
// join the trace.
func (o *Op) CallRemote(addr string) *Call {
	if o == nil {
		return nil
	}
	host, p, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(p)
	return o.call(host, port, false)
}

func (o *Op) call(host string, port int, base bool) *Call {
	c := &Call{o: o, start: time.Now(), base: base}
	c.attrs = make([]attribute.KeyValue, 0, 8)
	c.attrs = append(c.attrs, o.toolAttrs()...)
	c.attrs = append(c.attrs, keyTransport.String(TransportTCP))
	if !base {
		c.attrs = append(c.attrs, keyProtocolName.String("http"))
	}
	if host != "" {
		c.attrs = append(c.attrs, keyServerAddress.String(cut.Bytes(host, maxID)), keyServerPort.Int(port))
	}
	if o.t.inst.on {
		o.t.inst.inFlight.Add(context.Background(), 1)
	}
	if o.span != nil {
		_, c.span = o.t.tracer.Start(o.ctx, o.spanName(), trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(c.start), trace.WithAttributes(c.attrs...))
	}
	return c
}

// TraceMeta returns the traceparent and tracestate to put in the outgoing
// request's params._meta: this round trip's span; when traces are off,
// the client's own context, checked, passed on as the specification asks
// of a hop that does not trace. Both are "" when there is none, and for
// the base unless --otel-propagate-to-base. tracestate may hold any
// printable ASCII (quotes and backslashes too): write both as JSON
// strings.
func (c *Call) TraceMeta() (traceparent, tracestate string) {
	if c == nil || (c.base && !c.o.t.toBase) {
		return "", ""
	}
	var sc trace.SpanContext
	if c.span != nil {
		sc = c.span.SpanContext()
	} else {
		sc = trace.SpanContextFromContext(c.o.ctx)
	}
	if !sc.IsValid() {
		return "", ""
	}
	p := tracecontext.Parent{TraceID: sc.TraceID(), SpanID: sc.SpanID(), Flags: byte(sc.TraceFlags()) & tracecontext.FlagSampled}
	return p.String(), sc.TraceState().String()
}

// End ends the round trip; errType is "" for an answer (whatever it
// says), else the failure's kind (tcpbase's: unreachable, timeout,
// closed, malformed, too_large, canceled). Only the first End counts.
func (c *Call) End(errType string) {
	if c == nil {
		return
	}
	c.once.Do(func() {
		now := time.Now()
		if errType != "" && !errorKinds[errType] {
			errType = Other
		}
		attrs := c.attrs
		if errType != "" {
			attrs = append(attrs[:len(attrs):len(attrs)], keyErrorType.String(errType))
		}
		if c.base {
			c.o.mu.Lock()
			c.o.answered = errType == ""
			c.o.mu.Unlock()
		}
		t := c.o.t
		if t.inst.on {
			ctx := context.Background()
			t.inst.inFlight.Add(ctx, -1)
			t.inst.cadDuration.Record(ctx, now.Sub(c.start).Seconds(), metric.WithAttributes(attrs...))
		}
		if c.span != nil {
			if errType != "" {
				c.span.SetAttributes(keyErrorType.String(errType))
				c.span.SetStatus(codes.Error, errType)
			}
			c.span.End(trace.WithTimestamp(now))
		}
	})
}

// SessionInfo describes a session when it opens.
type SessionInfo struct {
	Transport       string // TransportPipe (the stdio client) or TransportTCP
	ProtocolVersion string
	HTTPVersion     string
}

// Session is one open session. A nil *Session does nothing.
type Session struct {
	t     *Telemetry
	start time.Time
	attrs []attribute.KeyValue
	once  sync.Once
}

// SessionStart records a session opening (mcp_bridge.sessions): the stdio
// client once initialized, or a Streamable HTTP legacy session.
func (t *Telemetry) SessionStart(s SessionInfo) *Session {
	if t == nil || !t.inst.on {
		return nil
	}
	ss := &Session{t: t, start: time.Now()}
	switch s.Transport {
	case TransportPipe:
		ss.attrs = append(ss.attrs, keyTransport.String(TransportPipe))
	case TransportTCP:
		ss.attrs = append(ss.attrs, keyTransport.String(TransportTCP), keyProtocolName.String("http"))
		if v := httpVersion(s.HTTPVersion); v != "" {
			ss.attrs = append(ss.attrs, keyProtocolVer.String(v))
		}
	}
	if v := protocolVersion(s.ProtocolVersion); v != "" {
		ss.attrs = append(ss.attrs, keyProtocolVersion.String(v))
	}
	t.inst.sessions.Add(context.Background(), 1, metric.WithAttributes(ss.attrs...))
	return ss
}

// End records the session's end and its duration; errType names why it
// ended when that was a failure (session_lost, shutdown…), else "".
func (s *Session) End(errType string) {
	if s == nil {
		return
	}
	s.once.Do(func() {
		ctx := context.Background()
		s.t.inst.sessions.Add(ctx, -1, metric.WithAttributes(s.attrs...))
		attrs := s.attrs
		if errType != "" {
			if !errorKinds[errType] {
				errType = Other
			}
			attrs = append(attrs[:len(attrs):len(attrs)], keyErrorType.String(errType))
		}
		s.t.inst.sessDuration.Record(ctx, time.Since(s.start).Seconds(), metric.WithAttributes(attrs...))
	})
}

// Stream is one open long-lived stream. A nil *Stream does nothing.
type Stream struct {
	t    *Telemetry
	once sync.Once
}

// StreamOpened records a stream opening (mcp_bridge.streams): an SSE GET
// stream or a subscriptions/listen.
func (t *Telemetry) StreamOpened() *Stream {
	if t == nil || !t.inst.on {
		return nil
	}
	t.inst.streams.Add(context.Background(), 1)
	return &Stream{t: t}
}

// Closed records its end.
func (s *Stream) Closed() {
	if s == nil {
		return
	}
	s.once.Do(func() { s.t.inst.streams.Add(context.Background(), -1) })
}

// TraceContext decodes a request's traceparent and tracestate, as the
// decoder found them in params._meta (lifecycle.Request's, raw), each only
// when it is a JSON string of sane length. They are checked when the
// request starts, not here.
func TraceContext(traceparent, tracestate []byte) (string, string) {
	return traceString(traceparent), traceString(tracestate)
}

func traceString(raw []byte) string {
	// Longer than any valid value, even with each character escaped
	// (\u0026: Go's encoding/json writes "&", "<" and ">" so), and its
	// quotes: not worth decoding.
	if len(raw) > 6*tracecontext.MaxStateBytes+2 {
		return ""
	}
	s, _ := rpc.String(raw)
	return s
}
