package simbase

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// faultTools make the base misbehave on demand, so that every way a real
// base can fail is reproducible. Each handles the connection itself.
func faultTools() []tool {
	none := object(nil)
	return []tool{
		{Name: "fault_sleep", Description: "Test only: answer after ms milliseconds.",
			Schema: object(map[string]schema{"ms": integer("Delay in milliseconds", 0, 3600000)}, "ms"),
			conn: func(s *Server, c net.Conn, id rpc.ID, a args) {
				ms := a.num("ms", 0)
				select {
				case <-time.After(time.Duration(ms) * time.Millisecond):
				case <-s.done:
					return
				}
				s.answer(c, id, toolResult(fmt.Sprintf("slept %s ms", f(ms)), false))
			}},
		{Name: "fault_close", Description: "Test only: close the connection without answering.", Schema: none,
			conn: func(*Server, net.Conn, rpc.ID, args) {}},
		{Name: "fault_garbage", Description: "Test only: answer with bytes that are not JSON.", Schema: none,
			conn: func(s *Server, c net.Conn, _ rpc.ID, _ args) {
				s.send(c, []byte("<html>500 Internal Server Error</html>"))
			}},
		{Name: "fault_half", Description: "Test only: answer half a JSON value, then close.", Schema: none,
			conn: func(s *Server, c net.Conn, id rpc.ID, _ args) {
				whole := rpc.AppendResult(nil, id, toolResult("cut off here", false))
				s.send(c, whole[:len(whole)-len(`ff here"}],"isError":false}}`)])
			}},
		{Name: "fault_big", Description: "Test only: answer with a text result of about mib MiB.",
			Schema: object(map[string]schema{"mib": {"type": "number", "description": "Size in MiB", "minimum": 0, "maximum": 64}}, "mib"),
			conn: func(s *Server, c net.Conn, id rpc.ID, a args) {
				n := int(a.num("mib", 1) * (1 << 20))
				res := make([]byte, 0, n+64)
				res = append(res, `{"content":[{"type":"text","text":"`...)
				res = append(res, strings.Repeat("x", n)...)
				res = append(res, `"}],"isError":false}`...)
				s.answer(c, id, res)
			}},
		{Name: "fault_pretty", Description: "Test only: answer with a pretty-printed, multi-line JSON value.", Schema: none,
			conn: func(s *Server, c net.Conn, id rpc.ID, _ args) {
				var res any
				_ = json.Unmarshal(toolResult("pretty\nprinted", false), &res)
				out, _ := json.MarshalIndent(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id.Raw()), "result": res}, "", "  ")
				s.send(c, append(out, '\n'))
			}},
		{Name: "fault_hang", Description: "Test only: never answer; wait until the client gives up.", Schema: none,
			conn: func(s *Server, c net.Conn, _ rpc.ID, _ args) { s.waitClosed(c) }},
		{Name: "fault_trickle", Description: "Test only: answer one byte at a time, every ms milliseconds.",
			Schema: object(map[string]schema{"ms": integer("Milliseconds between bytes", 1, 60000)}, "ms"),
			conn: func(s *Server, c net.Conn, id rpc.ID, a args) {
				b := rpc.AppendResult(nil, id, toolResult("trickled", false))
				tick := time.NewTicker(time.Duration(a.num("ms", 1000)) * time.Millisecond)
				defer tick.Stop()
				for _, ch := range b {
					select {
					case <-tick.C:
					case <-s.done:
						return
					}
					if _, err := c.Write([]byte{ch}); err != nil {
						return // the client gave up
					}
				}
			}},
		{Name: "fault_keep_open", Description: "Test only: answer, then keep the connection open until the client closes it.", Schema: none,
			conn: func(s *Server, c net.Conn, id rpc.ID, _ args) {
				s.answer(c, id, toolResult("answered; socket left open", false))
				s.waitClosed(c)
			}},
		{Name: "fault_rpc_error", Description: "Test only: answer with a JSON-RPC error carrying data.", Schema: none,
			conn: func(s *Server, c net.Conn, id rpc.ID, _ args) {
				s.answerError(c, id, rpc.Errorf(-32001, "CAD is busy with a modal dialog").WithData(map[string]any{"dialog": "Plot", "retry": true}))
			}},
		{Name: "fault_foreign_id", Description: `Test only: answer with an id other than the request's: kind "swap" (a number for a string id, a string for a number), "other" (another number), "null"; with a JSON-RPC error instead of a result when error is true.`,
			Schema: object(map[string]schema{
				"kind":  {"type": "string", "description": "Which foreign id", "enum": []string{"swap", "other", "null"}},
				"error": boolean("Answer with an error"),
			}, "kind"),
			conn: func(s *Server, c net.Conn, id rpc.ID, a args) {
				foreign := foreignID(id, a.str("kind", "null"))
				if a.boolean("error") {
					s.sendRaw(c, foreign, "error", []byte(`{"code":-32001,"message":"an error with a foreign id"}`))
					return
				}
				s.sendRaw(c, foreign, "result", toolResult("a result with a foreign id", false))
			}},
		{Name: "fault_untyped_schema", Description: "Test only: a tool whose inputSchema lacks \"type\": \"object\".",
			rawSchema: map[string]any{"properties": map[string]any{"note": map[string]any{"type": "string"}}},
			conn: func(s *Server, c net.Conn, id rpc.ID, a args) {
				s.answer(c, id, toolResult("note: "+a.str("note", ""), false))
			}},
		{Name: "fault_bool_subschema", Description: "Test only: a tool whose inputSchema has a bare true where a schema is expected (the Inspector's --strict calls that an error).",
			rawSchema: map[string]any{"type": "object", "properties": map[string]any{"anything": true}},
			conn: func(s *Server, c net.Conn, id rpc.ID, _ args) {
				s.answer(c, id, toolResult("accepted anything", false))
			}},
		{Name: "sim_stats", Description: "Test only: how many tools/call requests the sim has executed, for how many distinct ids, how many ids ran more than once, and the most frames it answered at once.", Schema: none,
			conn: func(s *Server, c net.Conn, id rpc.ID, _ args) {
				distinct, repeated := s.idStats()
				s.answer(c, id, toolResult(fmt.Sprintf(`{"calls":%d,"ids":%d,"repeated":%d,"max_concurrent":%d}`, s.Calls(), distinct, repeated, s.MaxConcurrent()), false))
			}},
	}
}

// foreignID is an id that is not id: kind "swap" gives a number for a
// string and a string for a number, "other" another number, anything else
// null.
func foreignID(id rpc.ID, kind string) []byte {
	switch kind {
	case "swap":
		if rpc.Kind(id.Raw()) == rpc.KindString {
			return []byte("7")
		}
		return []byte(`"7"`)
	case "other":
		if string(id.Raw()) == "424242" {
			return []byte("424243")
		}
		return []byte("424242")
	}
	return []byte("null")
}

// sendRaw answers with a raw id and a result or error member as given.
func (s *Server) sendRaw(c net.Conn, id []byte, member string, value []byte) {
	s.send(c, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,%q:%s}`, id, member, value))
}

// listAnswer answers tools/list, with the foreign id or the error the
// options ask for.
func (s *Server) listAnswer(c net.Conn, id rpc.ID) {
	if s.opts.ListID == nil && !s.opts.ListError {
		s.answer(c, id, s.list)
		return
	}
	raw := id.Raw()
	if s.opts.ListID != nil {
		raw = s.opts.ListID
	}
	if s.opts.ListError {
		s.sendRaw(c, raw, "error", []byte(`{"code":-32603,"message":"the tool list is not available"}`))
		return
	}
	s.sendRaw(c, raw, "result", s.list)
}
