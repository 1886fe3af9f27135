package connect

import (
	"net"
	"net/url"
	"strconv"

	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Telemetry in connect: a SERVER span for each request relayed (the
// client's trace context in params._meta continued), and a CLIENT span
// for the round trip to the remote, whose context replaces the client's
// in the _meta sent on, so that the remote bridge's spans join the one
// trace. Off (Config.Telemetry nil), the client's line goes as it came.

// startOp begins a relayed request's span; nil when telemetry is off.
func (r *relay) startOp(req *lifecycle.Request) *telemetry.Op {
	t := r.cfg.Telemetry
	if t == nil {
		return nil
	}
	tr := telemetry.Request{Method: req.Method, ID: req.ID.Raw(), Transport: telemetry.TransportPipe}
	if req.Method == lifecycle.MethodToolsCall {
		tr.Tool = req.Tool.Name
	}
	if req.Era == lifecycle.Modern {
		tr.ProtocolVersion = req.Version
	} else if _, v := r.sess.current(); v != "" {
		tr.ProtocolVersion = v
	}
	tr.Traceparent, tr.Tracestate = telemetry.MetaTraceContext(req.Meta)
	return t.Start(tr)
}

// withTraceContext is body (one request) with params._meta's traceparent
// and tracestate set to call's context: the client's own are replaced
// (or, with no context to give, left as they are). The rest of the line
// is what the client sent.
func withTraceContext(body []byte, req *lifecycle.Request, call *telemetry.Call) []byte {
	tp, ts := call.TraceMeta()
	if tp == "" || req == nil || req.ParamsErr != nil {
		return body // nothing to give, or params the remote must see (and refuse) as they are
	}
	m, ok := rpc.DecodeMessage(body).Msg.(*rpc.Request)
	if !ok {
		return body
	}
	params := m.Params
	if params == nil {
		params = []byte(`{}`)
	}
	if rpc.Kind(params) != rpc.KindObject {
		return body // the remote refuses it as it is
	}
	if _, _, twins := rpc.FoldTwins(params, true); twins {
		return body // a key twice, or in two cases: rewriting would make one of two
	}
	meta := rpc.Field(params, "_meta")
	switch {
	case meta == nil:
		meta = []byte(`{}`)
	case rpc.Kind(meta) != rpc.KindObject:
		return body // the remote refuses it as it is
	}
	if _, _, twins := rpc.FoldTwins(meta, true); twins {
		return body
	}
	meta = rpc.WithoutMember(meta, "tracestate")
	meta = setMember(meta, "traceparent", rpc.AppendString(nil, tp))
	if ts != "" {
		meta = setMember(meta, "tracestate", rpc.AppendString(nil, ts))
	}
	return rpc.EncodeRequest(m.ID, m.Method, setMember(params, "_meta", meta)).AppendTo(nil)
}

// failure is how telemetry names an error connect answered itself.
func failure(e *rpc.WireError) telemetry.Result {
	res := telemetry.Result{Code: e.Code, Message: e.Message}
	if rpc.Kind(e.Data) == rpc.KindObject {
		res.Kind, _ = rpc.String(rpc.Field(e.Data, "kind"))
	}
	return res
}

// hostPort is a URL's host and port (the scheme's default when it names
// none).
func hostPort(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	if p := u.Port(); p != "" {
		return net.JoinHostPort(u.Hostname(), p)
	}
	port := 80
	if u.Scheme == "https" {
		port = 443
	}
	return net.JoinHostPort(u.Hostname(), strconv.Itoa(port))
}
