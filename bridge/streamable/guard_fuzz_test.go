package streamable

import (
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/httpheader"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// FuzzModernHeaders: whatever the body and the three headers, the
// stateless checks never panic; a request they let through has headers
// that say what its body says, and one they refuse gets 400 or 404 with a
// code a modern client recognizes.
func FuzzModernHeaders(f *testing.F) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"draw_line",` + bridgetest.ModernMeta + `}}`
	f.Add(body, "2026-07-28", "tools/call", "draw_line")
	f.Add(body, "2026-07-28", "tools/call", "=?base64?"+base64.StdEncoding.EncodeToString([]byte("draw_line"))+"?=")
	f.Add(body, "2026-07-28", "tools/call", "=?base64?ZHJhd19saW5l?")
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{`+bridgetest.ModernMeta+`}}`, "2026-07-28", "ping", "")
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`, "2099-01-01", "tools/list", "")
	f.Fuzz(func(t *testing.T, body, version, method, name string) {
		d := rpc.DecodeMessage([]byte(body))
		req, ok := d.Msg.(*rpc.Request)
		if !ok {
			return
		}
		h := http.Header{}
		for k, v := range map[string]string{lifecycle.HeaderVersion: version, lifecycle.HeaderMethod: method, lifecycle.HeaderName: name} {
			if v != "" {
				h.Set(k, v)
			}
		}
		f := lifecycle.ReadRequest(req.ID, req.Method, req.Params)
		status, werr := checkModernRequest(h, f)
		if werr == nil {
			// The version as a reader of its own sees it: params._meta's.
			v, _ := rpc.String(rpc.Field(rpc.Field(req.Params, "_meta"), lifecycle.MetaProtocolVersion))
			got, ok := httpheader.Decode(name)
			if status != 0 || !f.EraChecked() || v != version || method != req.Method || (req.Method == "tools/call" && (!ok || got != string(unquoted(rpc.Field(req.Params, "name"))))) {
				t.Fatalf("let through: status %d, headers %q %q %q, body %s", status, version, method, name, body)
			}
			return
		}
		switch {
		case status == http.StatusBadRequest && (werr.Code == clienterr.CodeHeaderMismatch || werr.Code == rpc.CodeUnsupportedVersion || werr.Code == rpc.CodeInvalidParams):
		case status == http.StatusNotFound && werr.Code == rpc.CodeMethodNotFound:
		default:
			t.Fatalf("refused with %d and %d: %s", status, werr.Code, werr.Message)
		}
	})
}

func unquoted(raw []byte) string {
	s, _ := rpc.String(raw)
	return s
}
