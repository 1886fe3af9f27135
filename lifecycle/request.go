package lifecycle

import (
	"bytes"
	"slices"

	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Request is one request or notification from a client, as the bridge
// reads it: everything any part of the bridge needs from its params,
// worked out once, when the message is decoded (ReadRequest). Both front
// ends, the worker and the rules (policy, confirmation, journal) read this
// value, never the params again; the frame for the base is built from it.
type Request struct {
	ID     rpc.ID // zero for a notification
	Method string
	Params []byte  // as sent; nil when absent
	Info   *Method // the method table's entry; nil when the method is unknown

	Era     Era
	Version string // 2026-07-28: params._meta's protocol version
	// EraErr is why the modern era's per-request rules refuse it
	// (checkModern); nil when they pass or the request is of the
	// handshake era.
	EraErr *rpc.WireError

	// ProgressToken is params._meta.progressToken when a string or a number.
	ProgressToken []byte
	// ClientInfo is what the client says it is: params._meta's clientInfo
	// (2026-07-28), or initialize's clientInfo.
	ClientInfo ClientInfo
	// Elicits: the client can show a form elicitation (2026-07-28: its
	// _meta clientCapabilities; initialize: its capabilities).
	Elicits bool
	// Capabilities are those capabilities as sent, Elicitation their member
	// elicitation, and Meta is params._meta as sent when it is an object:
	// for a relay (mcp-bridge connect) that passes them on amended.
	Capabilities, Elicitation []byte
	Meta                      []byte
	// Traceparent and Tracestate are params._meta's W3C trace context
	// members, raw as sent (any JSON value): telemetry decodes and checks
	// them when it is on (telemetry.TraceContext), and nothing else reads
	// them.
	Traceparent, Tracestate []byte

	// ParamsErr is why the method's reader refused the params (-32602);
	// nil when they can be used.
	ParamsErr *rpc.WireError
	// Tool is what tools/call and tools/list carry, read by exact keys.
	Tool ToolParams
	// RequestState and Input: a 2026-07-28 tools/call sent again with the
	// answer to the bridge's input request. Input is that answer as sent
	// (the member InputKey of inputResponses), for the confirmation;
	// nil when absent, or when two members of inputResponses are one to a
	// case-insensitive reader.
	RequestState []byte
	Input        []byte
	// ListensTools: a subscriptions/listen that asks for
	// notifications/tools/list_changed.
	ListensTools bool
	// AskedVersion: the protocolVersion an initialize asks for.
	AskedVersion string
	// Cancels: the request notifications/cancelled names; zero when it
	// names none that can be one.
	Cancels rpc.ID
}

// ClientInfo is a client's name and version as it wrote them, read by the
// members' exact names.
type ClientInfo struct {
	Name, Version string
}

// ToolParams is a tool request's params as the bridge read them: what the
// policy, the question, the requestState and the journal check, and all
// that the base gets.
type ToolParams struct {
	Present bool   // the request had params
	Name    string // tools/call: the tool
	Args    []byte // tools/call: "arguments", an object or null as sent; nil when absent
	Cursor  []byte // tools/list: "cursor", a JSON string as sent; nil when absent
}

// IsNotification reports whether the message is owed no answer.
func (r *Request) IsNotification() bool { return r.ID.IsZero() }

// EraChecked reports whether the request passed its era's per-request
// rules: always in the handshake era.
func (r *Request) EraChecked() bool { return r.EraErr == nil }

// ReadRequest is the decoder: it reads a request's (or a notification's)
// params once, by exact keys, into the value the rest of the bridge reads:
// one pass over the params and one over their _meta, then the method's own
// reader. Which members count, and every rule on them, are here and
// nowhere else.
func ReadRequest(id rpc.ID, method string, params []byte) *Request {
	r := &Request{ID: id, Method: method, Params: params, Info: methods[method]}
	var p paramMembers
	if rpc.Kind(params) == rpc.KindObject {
		var known [][]byte
		if r.Info != nil {
			known = r.Info.exact
		}
		p = scanParams(params, method, known)
	}
	if rpc.Kind(p.v[pMeta]) == rpc.KindObject {
		r.Meta = p.v[pMeta]
		r.readMeta(p.v[pMeta])
	}
	if r.Info != nil && r.Info.read != nil {
		r.Info.read(r, params, p)
	}
	return r
}

// The params members the decoder keeps, and the _meta members; each is
// kept raw, the last of a name given twice, as encoding/json takes it.
const (
	pMeta = iota
	pName
	pArguments
	pCursor
	pRequestState
	pInputResponses
	pNotifications
	pRequestID
	pClientInfo
	pCapabilities
	pVersion
	pCount
)

var paramKeys = map[string]int{"_meta": pMeta, "name": pName, "arguments": pArguments, "cursor": pCursor,
	"requestState": pRequestState, "inputResponses": pInputResponses, "notifications": pNotifications,
	"requestId": pRequestID, "clientInfo": pClientInfo, "capabilities": pCapabilities, "protocolVersion": pVersion}

const (
	mVersion = iota
	mCapabilities
	mClientInfo
	mProgressToken
	mTraceparent
	mTracestate
	mCount
)

var metaKeys = map[string]int{MetaProtocolVersion: mVersion, MetaClientCapabilities: mCapabilities,
	MetaClientInfo: mClientInfo, "progressToken": mProgressToken, "traceparent": mTraceparent, "tracestate": mTracestate}

// paramMembers are the params members the bridge reads (paramKeys), raw;
// problem is a member given twice or spelled like a known one in another
// case, when the method has known members (Method.members).
type paramMembers struct {
	v       [pCount][]byte
	problem *rpc.WireError
}

// eachKey calls fn with each member of obj (an object) whose key is in
// keys, by its index there, the last of a name given twice winning as fn
// overwrites; every key, known or not, goes to all when it is not nil.
// Keys are compared unescaped, without allocating for plain ones.
func eachKey(obj []byte, keys map[string]int, fn func(i int, v []byte), all func(key []byte)) {
	_ = rpc.EachMember(obj, func(raw []byte, s, e int) bool {
		key := raw[1 : len(raw)-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			k, ok := rpc.Unquote(raw)
			if !ok {
				return false
			}
			key = []byte(k)
		}
		if i, ok := keys[string(key)]; ok {
			fn(i, obj[s:e])
		}
		if all != nil {
			all(key)
		}
		return true
	})
}

// scanParams reads the members of params (an object) in one pass. known,
// when not nil, are the method's members spelled exactly: the first key
// that repeats one before it, or that differs from a known one only in
// case (as Unicode folds it, which is how case-insensitive decoders match:
// "ſ" matches "s"), is the problem.
func scanParams(params []byte, method string, known [][]byte) paramMembers {
	var p paramMembers
	var seenBuf [8][]byte
	seen := seenBuf[:0]
	var check func(key []byte)
	if known != nil {
		check = func(key []byte) {
			if p.problem != nil {
				return
			}
			for _, k := range seen {
				if bytes.Equal(k, key) {
					p.problem = clienterr.MemberTwice.New(method, string(key))
					return
				}
			}
			seen = append(seen, key)
			for _, want := range known {
				if !bytes.Equal(key, want) && bytes.EqualFold(key, want) {
					p.problem = clienterr.MemberCase.New(method, string(key), string(want))
					return
				}
			}
		}
	}
	eachKey(params, paramKeys, func(i int, v []byte) { p.v[i] = v }, check)
	return p
}

// readMeta reads params._meta (an object): the era and version, what the
// client says of itself, its progress token, its trace context.
func (r *Request) readMeta(meta []byte) {
	var m [mCount][]byte
	eachKey(meta, metaKeys, func(i int, v []byte) { m[i] = v }, nil)
	r.Traceparent, r.Tracestate = m[mTraceparent], m[mTracestate]
	if k := rpc.Kind(m[mProgressToken]); k == rpc.KindString || k == rpc.KindNumber {
		r.ProgressToken = m[mProgressToken]
	}
	if v, ok := rpc.String(m[mVersion]); ok {
		r.Era, r.Version = Modern, v
		r.EraErr = checkModern(v, m[mCapabilities])
		r.readCapabilities(m[mCapabilities])
		r.ClientInfo = readClientInfo(m[mClientInfo])
	}
}

// readCapabilities reads what the client can do: whether it shows a form.
func (r *Request) readCapabilities(caps []byte) {
	r.Capabilities = caps
	r.Elicitation = rpc.Field(caps, "elicitation")
	r.Elicits = ElicitsForms(r.Elicitation)
}

// readClientInfo reads a clientInfo object by its members' exact names, as
// a client wrote them (encoding/json would also take "NAME" for "name").
func readClientInfo(raw []byte) ClientInfo {
	name, _ := rpc.String(rpc.Field(raw, "name"))
	version, _ := rpc.String(rpc.Field(raw, "version"))
	return ClientInfo{Name: name, Version: version}
}

// The methods' own readers (Method.read).

func readInitialize(r *Request, params []byte, p paramMembers) {
	if params != nil && rpc.Kind(params) != rpc.KindObject {
		r.ParamsErr = clienterr.InitializeParams.New()
		return
	}
	r.AskedVersion, _ = rpc.String(p.v[pVersion])
	r.ClientInfo = readClientInfo(p.v[pClientInfo])
	r.readCapabilities(p.v[pCapabilities])
}

func readListen(r *Request, _ []byte, p paramMembers) {
	r.ListensTools = string(rpc.Field(p.v[pNotifications], "toolsListChanged")) == "true"
}

func readCancelled(r *Request, _ []byte, p paramMembers) {
	r.Cancels, _ = rpc.ParseID(p.v[pRequestID])
}

// toolParams is the start of both tool readers: params absent, not an
// object, or with a member twice or in another case are refused. ok false
// when r.ParamsErr is set or there is nothing more to read.
func toolParams(r *Request, params []byte, p paramMembers) bool {
	switch {
	case params == nil:
		if r.Method == MethodToolsCall {
			r.ParamsErr = clienterr.NoToolName.New()
		}
		return false
	case rpc.Kind(params) != rpc.KindObject:
		r.ParamsErr = clienterr.ParamsNotObject.New(r.Method)
		return false
	case p.problem != nil:
		r.ParamsErr = p.problem
		return false
	}
	r.Tool.Present = true
	return true
}

func readToolsList(r *Request, params []byte, p paramMembers) {
	if !toolParams(r, params, p) {
		return
	}
	r.Tool.Cursor = p.v[pCursor]
	if p.v[pCursor] != nil && rpc.Kind(p.v[pCursor]) != rpc.KindString {
		r.ParamsErr = clienterr.CursorNotString.New()
	}
}

func readToolsCall(r *Request, params []byte, p paramMembers) {
	// The name as sent, even when the params are refused below: the HTTP
	// front end compares it with the Mcp-Name header first.
	r.Tool.Name, _ = rpc.String(p.v[pName])
	if !toolParams(r, params, p) {
		return
	}
	var ok bool
	if r.Tool.Name, ok = rpc.String(p.v[pName]); !ok {
		r.ParamsErr = clienterr.NoToolName.New()
		return
	}
	// Bytes that are not UTF-8 can only be inside strings here; a UTF-8
	// decoder (the base's, the journal's) reads each run as U+FFFD, so the
	// checks, the question, the frame and the journal all see that text:
	// "\xcf" and "\xce" are one name to the base, and must be to the checks.
	if r.Tool.Args = p.v[pArguments]; r.Tool.Args != nil {
		r.Tool.Args = bytes.ToValidUTF8(r.Tool.Args, []byte("\uFFFD"))
	}
	switch rpc.Kind(r.Tool.Args) {
	case rpc.KindNone, rpc.KindNull:
	case rpc.KindObject:
		if werr := checkArguments(r.Tool.Args); werr != nil {
			r.ParamsErr = werr
			return
		}
	default:
		r.ParamsErr = clienterr.ArgumentsNotObject.New()
		return
	}
	r.RequestState = p.v[pRequestState]
	if _, _, twins := rpc.FoldTwins(p.v[pInputResponses], false); !twins { // else two answers to one question: none
		r.Input = rpc.Field(p.v[pInputResponses], InputKey)
	}
}

// checkArguments refuses arguments in which an object, at any depth, has
// two members that a case-insensitive decoder takes for one (rpc.FoldTwins):
// a name given twice, or "layer" and "LAYER". The question shows, and the
// requestState binds, one value per name; the base must not pick another.
func checkArguments(v []byte) *rpc.WireError {
	first, second, twins := rpc.FoldTwins(v, true)
	switch {
	case !twins:
		return nil
	case first == second:
		return clienterr.ArgumentTwice.New(first)
	}
	return clienterr.ArgumentCaseTwins.New(first, second)
}

// checkModern applies the per-request rules of the modern era to the
// _meta members read: an unsupported version gets -32022 with the
// supported list, and missing or non-object client capabilities get
// -32602.
func checkModern(v string, caps []byte) *rpc.WireError {
	if !slices.Contains(ModernVersions, v) {
		return clienterr.UnsupportedVersion.New(v, ModernVersions).
			WithData(map[string]any{"supported": ModernVersions, "requested": v})
	}
	if rpc.Kind(caps) != rpc.KindObject {
		return clienterr.NoCapabilities.New(MetaClientCapabilities)
	}
	return nil
}
