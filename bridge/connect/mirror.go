package connect

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/httpheader"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// As a client of the 2026-07-28 HTTP transport, connect mirrors the
// arguments a tool's schema marks with "x-mcp-header" into Mcp-Param-*
// headers when it relays a call (SEP-2243), from the latest tool list it
// relayed; it leaves out of a relayed tool list the tools whose
// declarations break the rules, as a client must; and when the remote
// refuses a call as HeaderMismatch (400, -32020: it ran nothing) while the
// tool list connect holds may be stale, it reads the list once more and
// sends the call again if the headers that list asks for differ.

// learnTools keeps the declarations of a relayed tools/list answer: a list
// asked for without a cursor replaces what connect held, a later page adds
// to it.
func (r *relay) learnTools(req *lifecycle.Request, result []byte) {
	r.toolsMu.Lock()
	defer r.toolsMu.Unlock()
	if req == nil || req.Tool.Cursor == nil || r.tools == nil {
		r.tools = httpheader.Read(result)
		return
	}
	r.tools.Add(result)
}

// declared is what connect's tool list says tool name mirrors; nil for
// nothing (or no list yet).
func (r *relay) declared(name string) *httpheader.Tool {
	r.toolsMu.Lock()
	defer r.toolsMu.Unlock()
	d, _ := r.tools.Lookup(name)
	return d
}

// paramHeaders are the Mcp-Param-* headers of a modern tools/call.
func (r *relay) paramHeaders(o *outgoing) map[string]string {
	if !o.modern || o.method != "tools/call" || o.req == nil {
		return nil
	}
	return r.declared(o.req.Tool.Name).Headers(o.req.Tool.Args)
}

// relayedList is a tools/list answer on its way to the client: its
// declarations are learnt, and in the 2026-07-28 era the tools a client
// must reject are left out, each with a warning.
func (r *relay) relayedList(o *outgoing, res *rpc.Response) {
	if o.method != "tools/list" || o.batch || res.Result == nil || rpc.Kind(res.Result) != rpc.KindObject {
		return
	}
	r.learnTools(o.req, res.Result)
	if !o.modern {
		return
	}
	kept, dropped := httpheader.Valid(res.Result)
	for _, d := range dropped {
		r.log.Warn().Str("tool", d).Msg("a tool of the remote's list declares x-mcp-header against the rules: left out of the list, as the 2026-07-28 transport asks of a client")
	}
	res.Result = kept
}

// relistOnMismatch: the remote refused o, a modern tools/call sent with
// the headers sent, with a 400 whose body is body. When that is a
// HeaderMismatch, connect reads the remote's tool list again; it reports
// whether the Mcp-Param-* headers that list asks for differ from those
// sent, so that the call goes once more.
func (r *relay) relistOnMismatch(ctx context.Context, o *outgoing, sent http.Header, body []byte) bool {
	if !o.modern || o.method != "tools/call" || o.req == nil {
		return false
	}
	if m, ok := rpc.DecodeMessage(bytes.TrimSpace(body)).Msg.(*rpc.Response); !ok || m.Error == nil || m.Error.Code != clienterr.CodeHeaderMismatch {
		return false
	}
	if !r.relist(ctx, o.req) {
		return false
	}
	now := r.paramHeaders(o)
	same := true
	for k, v := range sent {
		if len(k) > len(httpheader.ParamPrefix) && strings.EqualFold(k[:len(httpheader.ParamPrefix)], httpheader.ParamPrefix) {
			same = same && len(v) == 1 && now[k] == v[0]
			delete(now, k)
		}
	}
	if same && len(now) == 0 {
		return false
	}
	r.log.Info().Str("tool", o.req.Tool.Name).Msg("the remote refused the call's Mcp-Param headers, and its tool list has changed: sending the call again with the headers it asks for now")
	return true
}

// relistID is the id of connect's own tools/list; the stateless transport
// gives each request its own scope, so it cannot meet a client's.
var relistID, _ = rpc.ParseID([]byte(`"mcp-bridge-connect-relist"`))

// relist reads the remote's whole tool list (every page,
// lifecycle.ReadPages: bounded, never a cursor twice) with the _meta of the
// client's request, and learns it; false when no whole list came (what
// connect held stays).
func (r *relay) relist(ctx context.Context, req *lifecycle.Request) bool {
	if rpc.Kind(req.Meta) != rpc.KindObject {
		return false
	}
	meta := rpc.WithoutMember(req.Meta, "progressToken")
	pages, err := lifecycle.ReadPages(func(cursor []byte) ([]byte, error) {
		params := append([]byte(`{"_meta":`), meta...)
		if cursor != nil {
			params = append(append(params, `,"cursor":`...), cursor...)
		}
		return r.listPage(ctx, req, append(params, '}'))
	}, r.cfg.MaxMessage)
	if err != nil {
		r.log.Debug().Err(err).Msg("the remote's tool list could not be read again")
		return false
	}
	r.learnTools(nil, lifecycle.JoinPages(pages))
	return true
}

// listPage asks the remote for one page of its tool list (params as
// given) and returns its result.
func (r *relay) listPage(ctx context.Context, req *lifecycle.Request, params []byte) ([]byte, error) {
	body := rpc.EncodeRequest(relistID, "tools/list", params).AppendTo(nil)
	hdr := http.Header{}
	hdr.Set(lifecycle.HeaderVersion, httpheader.Encode(req.Version))
	hdr.Set(lifecycle.HeaderMethod, "tools/list")
	a := r.post(ctx, body, hdr, false, func() {})
	if a.err != nil {
		return nil, a.err
	}
	defer a.resp.Body.Close()
	if a.resp.StatusCode != http.StatusOK {
		return nil, errors.New(a.resp.Status)
	}
	var result []byte
	take := func(data []byte) bool {
		if m, ok := rpc.DecodeMessage(bytes.TrimSpace(data)).Msg.(*rpc.Response); ok && m.ID.Key() == relistID.Key() && m.Result != nil {
			result = bytes.Clone(m.Result)
			return false
		}
		return true
	}
	if isSSE(a.resp) {
		_ = readSSE(a.resp.Body, r.cfg.MaxMessage, take)
	} else if data, err := readAll(a.resp, r.cfg.MaxMessage); err == nil {
		take(data)
	}
	if result == nil {
		return nil, errors.New("no tools/list result in the remote's answer")
	}
	return result, nil
}
