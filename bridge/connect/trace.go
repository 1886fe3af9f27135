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
	tr.Traceparent, tr.Tracestate = telemetry.TraceContext(req.Traceparent, req.Tracestate)
	return t.Start(tr)
}

// withTraceContext is body (one request) with params._meta's traceparent
// and tracestate set to call's context: the client's own are replaced
// (or, with no context to give, left as they are). The rest of the line
// is what the client sent, byte for byte: the new values are spliced in
// where the old ones were (a member the client did not send is added at
// its object's end), so members the relay does not know, their order and
// their escapes all reach the remote as they came.
func withTraceContext(body []byte, req *lifecycle.Request, call *telemetry.Call) []byte {
	tp, ts := call.TraceMeta()
	if tp == "" || req == nil || req.ParamsErr != nil || rpc.Kind(body) != rpc.KindObject {
		return body // nothing to give, or params the remote must see (and refuse) as they are
	}
	if _, _, twins := rpc.FoldTwins(body, false); twins {
		return body // a key twice: rewriting would make one of two
	}
	params := member(body, "params")
	if params == nil {
		params = []byte(`{}`)
	}
	if rpc.Kind(params) != rpc.KindObject {
		return body // the remote refuses it as it is
	}
	if _, _, twins := rpc.FoldTwins(params, true); twins {
		return body
	}
	meta := member(params, "_meta")
	switch {
	case meta == nil:
		meta = []byte(`{}`)
	case rpc.Kind(meta) != rpc.KindObject:
		return body // the remote refuses it as it is
	}
	meta = spliceMember(meta, "traceparent", rpc.AppendString(nil, tp))
	if ts != "" {
		meta = spliceMember(meta, "tracestate", rpc.AppendString(nil, ts))
	} else {
		meta = rpc.WithoutMember(meta, "tracestate")
	}
	return spliceMember(body, "params", spliceMember(params, "_meta", meta))
}

// member is the raw value of obj's member key, nil when there is none.
func member(obj []byte, key string) []byte {
	var v []byte
	_ = rpc.ScanObject(obj, func(k string, s, e int) bool {
		if k == key {
			v = obj[s:e]
		}
		return v == nil
	})
	return v
}

// spliceMember is obj (a JSON object without twin keys) with member key's
// value replaced by v where it stands, or key:v added at the end: nothing
// else of obj changes.
func spliceMember(obj []byte, key string, v []byte) []byte {
	start, end := -1, -1
	_ = rpc.ScanObject(obj, func(k string, s, e int) bool {
		if k == key {
			start, end = s, e
		}
		return start < 0
	})
	if start < 0 {
		return setMember(obj, key, v)
	}
	out := make([]byte, 0, len(obj)-(end-start)+len(v))
	return append(append(append(out, obj[:start]...), v...), obj[end:]...)
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
