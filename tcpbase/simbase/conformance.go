package simbase

import (
	"encoding/json"
	"fmt"
	"net"
	"sort"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// ProgressToolDelay is how long test_tool_with_progress takes: long enough
// for a bridge with --progress-interval 100ms to send its heartbeats.
const ProgressToolDelay = 600 * time.Millisecond

// Small media for the content tools: a 1×1 PNG and a WAV of one silent
// sample.
const (
	testPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	testWAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA=="
)

// conformanceTools are the tools of the official MCP conformance suite's
// server scenarios (@modelcontextprotocol/conformance) that a tools-only
// base can serve, as its reference server names them, and one whose
// arguments a 2026-07-28 client mirrors into headers (x-mcp-header,
// SEP-2243): make test-conformance runs the suite against the bridge in
// front of them.
func conformanceTools() []tool {
	none := object(nil)
	result := func(v any) func(*Server, net.Conn, rpc.ID, args) {
		raw, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return func(s *Server, c net.Conn, id rpc.ID, _ args) { s.answer(c, id, raw) }
	}
	type m = map[string]any
	text := func(t string) m { return m{"type": "text", "text": t} }
	header := func(s schema, name string) schema { s["x-mcp-header"] = name; return s }
	return []tool{
		{Name: "test_simple_text", Description: "Conformance: returns simple text content.", Schema: none,
			conn: result(m{"content": []m{text("This is a simple text response for testing.")}})},
		{Name: "test_image_content", Description: "Conformance: returns image content.", Schema: none,
			conn: result(m{"content": []m{{"type": "image", "data": testPNG, "mimeType": "image/png"}}})},
		{Name: "test_audio_content", Description: "Conformance: returns audio content.", Schema: none,
			conn: result(m{"content": []m{{"type": "audio", "data": testWAV, "mimeType": "audio/wav"}}})},
		{Name: "test_embedded_resource", Description: "Conformance: returns an embedded resource.", Schema: none,
			conn: result(m{"content": []m{{"type": "resource", "resource": m{"uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."}}}})},
		{Name: "test_multiple_content_types", Description: "Conformance: returns text, image and resource content.", Schema: none,
			conn: result(m{"content": []m{text("Multiple content types test:"),
				{"type": "image", "data": testPNG, "mimeType": "image/png"},
				{"type": "resource", "resource": m{"uri": "test://mixed-content-resource", "mimeType": "application/json", "text": `{"test":"data","value":123}`}}}})},
		{Name: "test_error_handling", Description: "Conformance: a tool that fails (isError).", Schema: none,
			conn: result(m{"isError": true, "content": []m{text("This tool intentionally returns an error for testing")}})},
		{Name: "test_tool_with_progress", Description: fmt.Sprintf("Conformance: takes %v, so that the bridge's progress heartbeats reach a client that asked for progress.", ProgressToolDelay), Schema: none,
			conn: func(s *Server, c net.Conn, id rpc.ID, _ args) {
				select {
				case <-time.After(ProgressToolDelay):
				case <-s.done:
					return
				}
				s.answer(c, id, toolResult("done", false))
			}},
		{Name: "json_schema_2020_12_tool", Description: "Conformance: an inputSchema with JSON Schema 2020-12 keywords, to be kept as it is.",
			rawSchema: m{
				"$schema": "https://json-schema.org/draft/2020-12/schema",
				"type":    "object",
				"$defs": m{"address": m{"$anchor": "addressDef", "type": "object",
					"properties": m{"street": m{"type": "string"}, "city": m{"type": "string"}}}},
				"properties": m{"name": m{"type": "string"}, "address": m{"$ref": "#/$defs/address"},
					"contactMethod": m{"type": "string", "enum": []string{"phone", "email"}},
					"phone":         m{"type": "string"}, "email": m{"type": "string"}},
				"allOf":                []m{{"anyOf": []m{{"required": []string{"phone"}}, {"required": []string{"email"}}}}},
				"if":                   m{"properties": m{"contactMethod": m{"const": "phone"}}, "required": []string{"contactMethod"}},
				"then":                 m{"required": []string{"phone"}},
				"else":                 m{"required": []string{"email"}},
				"additionalProperties": false,
			},
			conn: func(s *Server, c net.Conn, id rpc.ID, a args) {
				b, _ := json.Marshal(a)
				s.answer(c, id, toolResult("JSON Schema 2020-12 tool called with: "+string(b), false))
			}},
		{Name: "test_x_mcp_header", Description: "Conformance: arguments a 2026-07-28 client mirrors into Mcp-Param-* headers (x-mcp-header); answers with the arguments it got.",
			Schema: object(map[string]schema{
				"region": header(str("Region to run in"), "Region"),
				"count":  header(integer("A count", -1000000, 1000000), "Count"),
				"flag":   header(boolean("A flag"), "Flag"),
				"target": object(map[string]schema{"layer": header(str("Layer"), "Layer")}),
				"query":  str("Not mirrored"),
			}, "region"),
			run: func(_ *Server, a args) (string, error) {
				keys := make([]string, 0, len(a))
				for k := range a {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				var b strings.Builder
				for _, k := range keys {
					v, _ := json.Marshal(a[k])
					fmt.Fprintf(&b, "%s=%s ", k, v)
				}
				return "got " + strings.TrimSpace(b.String()), nil
			}},
	}
}
