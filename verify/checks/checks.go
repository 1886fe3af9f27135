package checks

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/toolschema"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
	"github.com/mcp-bridge/mcp-bridge/verify"
)

// check is one named end-to-end check.
type check struct {
	name   string
	faults bool // needs the simulator's fault tools
	sim    bool // changes the drawing: only against the simulated base
	run    func(t *T) error
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// exchange is a check that sends lines to a fresh bridge and expects lines.
func exchange(pairs ...string) func(t *T) error {
	return func(t *T) error {
		s, err := t.bridge()
		if err != nil {
			return err
		}
		for i := 0; i+1 < len(pairs); i += 2 {
			if err := expectLine(s, pairs[i], pairs[i+1]); err != nil {
				return err
			}
		}
		return nil
	}
}

// negotiate checks that initialize with asked gets answered with want.
func negotiate(asked, want string) func(t *T) error {
	return func(t *T) error {
		s, err := t.bridge()
		if err != nil {
			return err
		}
		got, err := ask(s, verify.Initialize("1", asked))
		if err != nil {
			return err
		}
		if v := verify.Get(got, "result.protocolVersion"); v != want {
			return fmt.Errorf("initialize %s answered protocolVersion %v, want %s", asked, v, want)
		}
		if verify.Get(got, "result.capabilities.tools") == nil || verify.Get(got, "result.serverInfo.name") == nil {
			return fmt.Errorf("initialize result lacks capabilities.tools or serverInfo: %s", verify.Short(got))
		}
		return nil
	}
}

func echoID(id string) func(t *T) error {
	return func(t *T) error {
		s, err := t.bridge()
		if err != nil {
			return err
		}
		if err := expectLine(s, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"ping"}`, id), fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, id)); err != nil {
			return err
		}
		got, err := ask(s, t.forwarded(id))
		if err != nil {
			return err
		}
		if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":`+id+`,`) {
			return fmt.Errorf("forwarded request came back with another id: %s", verify.Short(got))
		}
		return nil
	}
}

// baseFault checks that a fault of the base becomes -32603 of the given
// kind, and that the bridge goes on serving.
func baseFault(tool, args, kind string, bridgeArgs ...string) func(t *T) error {
	return func(t *T) error {
		s, err := t.bridge(bridgeArgs...)
		if err != nil {
			return err
		}
		got, err := ask(s, verify.ToolCall("1", tool, args))
		if err != nil {
			return err
		}
		if verify.Get(got, "error.code") != float64(rpc.CodeInternalError) || verify.Get(got, "error.data.kind") != kind {
			return fmt.Errorf("want -32603 with data.kind %q, got %s", kind, verify.Short(got))
		}
		if msg, _ := verify.Get(got, "error.message").(string); !strings.Contains(msg, t.v.base) {
			return fmt.Errorf("the message does not name the base address: %q", msg)
		}
		return stillAlive(s)
	}
}

func checks() []check {
	return []check{
		{name: "initialize 2024-11-05", run: negotiate("2024-11-05", "2024-11-05")},
		{name: "initialize 2025-03-26", run: negotiate("2025-03-26", "2025-03-26")},
		{name: "initialize 2025-06-18", run: negotiate("2025-06-18", "2025-06-18")},
		{name: "initialize 2025-11-25", run: negotiate("2025-11-25", "2025-11-25")},
		{name: "initialize unknown version gets 2025-11-25", run: negotiate("2099-12-31", lifecycle.LatestLegacy)},
		{name: "notifications get no reply", run: exchange(
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nobody"}}`+"\n"+
				`{"jsonrpc":"2.0","method":"notifications/unknown"}`+"\n"+
				`{"jsonrpc":"2.0","id":"after","method":"ping"}`,
			`{"jsonrpc":"2.0","id":"after","result":{}}`)},
		{name: "ping answers {}", run: exchange(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`)},
		{name: "ping during a slow tool call", faults: true, run: checkPingDuringSlowCall},
		{name: "tools/list identical to a direct base call", run: checkToolsListIdentical},
		{name: "tools/list: every tool has an object schema", run: checkSchemas},
		{name: "tools/call round trip equals a direct call", run: checkCallRoundTrip},
		{name: "tools/call changes the drawing", sim: true, run: checkDrawingChanges},
		{name: "isError result passed through", sim: true, run: exchange(
			verify.ToolCall("1", "draw_circle", `{"center":{"x":0,"y":0},"radius":-1}`),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Invalid arguments for draw_circle: 'radius' must be greater than 0"}],"isError":true}}`)},
		{name: "unknown tool: the base's answer passed through", run: checkUnknownTool},
		{name: "base error with data passed through", faults: true, run: exchange(verify.ToolCall("1", "fault_rpc_error", `{}`),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"CAD is busy with a modal dialog","data":{"dialog":"Plot","retry":true}}}`)},
		{name: "-32700 for invalid JSON, without id", run: exchange(`{"jsonrpc":"2.0","id":1,`,
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the line is not valid JSON"}}`)},
		{name: "-32600 for an invalid request, with its id", run: exchange(`{"jsonrpc":"1.0","id":"bad","method":"ping"}`,
			`{"jsonrpc":"2.0","id":"bad","error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" must be \"2.0\""}}`)},
		{name: "-32601 for an unknown method", run: exchange(`{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: prompts/list"}}`)},
		{name: "-32602 for tools/call arguments not an object", run: exchange(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_drawing_info","arguments":[1]}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: tools/call \"arguments\" must be an object"}}`)},
		{name: "string id echoed", run: echoID(`"7"`)},
		{name: "number id echoed", run: echoID(`7`)},
		{name: "large id echoed exactly", run: echoID(`12345678901234567890`)},
		{name: "fractional id echoed exactly", run: echoID(`1.0`)},
		{name: "batch answered as one array", run: exchange(
			`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"nope"}]`,
			`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: nope"}}]`)},
		{name: "batch of notifications gets nothing", run: exchange(
			`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`+"\n"+`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":3,"result":{}}`)},
		{name: "empty batch gets -32600", run: exchange(`[]`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: empty batch"}}`)},
		{name: "CRLF line ends accepted", run: exchange(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\r", `{"jsonrpc":"2.0","id":1,"result":{}}`)},
		{name: "leading BOM accepted", run: exchange("\xef\xbb\xbf"+`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`)},
		{name: "oversize line rejected, next line served", run: checkOversizeLine},
		{name: "base down: -32603 naming the address, bridge alive", run: checkBaseDown},
		{name: "base back: the next request is served", run: checkRecovery},
		{name: "fault: closed without answering", faults: true, run: baseFault("fault_close", `{}`, "closed")},
		{name: "fault: garbage answer", faults: true, run: baseFault("fault_garbage", `{}`, "malformed")},
		{name: "fault: half a JSON value", faults: true, run: baseFault("fault_half", `{}`, "malformed")},
		{name: "fault: answer over the size limit", faults: true, run: baseFault("fault_big", `{"mib":17}`, "too_large")},
		{name: "fault: no answer before the timeout", faults: true, run: checkTimeout},
		{name: "fault: multi-line JSON answer comes out as one line", faults: true, run: exchange(verify.ToolCall("1", "fault_pretty", `{}`),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"pretty\nprinted","type":"text"}],"isError":false}}`)},
		{name: "fault: answer without closing the socket", faults: true, run: exchange(verify.ToolCall("1", "fault_keep_open", `{}`),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"answered; socket left open"}],"isError":false}}`)},
		{name: "schema without type object repaired", faults: true, run: checkSchemaRepair},
		{name: "cancel an in-flight call", faults: true, run: checkCancelInFlight},
		{name: "cancel a queued call: never sent", faults: true, run: checkCancelQueued},
		{name: "modern: server/discover", run: checkDiscover},
		{name: "legacy server/discover gets -32601", run: exchange(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: server/discover"}}`)},
		{name: "modern: tools/list fields", run: checkModernList},
		{name: "modern: tools/call fields", run: checkModernCall},
		{name: "modern: unsupported version gets -32022", run: exchange(
			`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version \"2099-01-01\": this server supports [2026-07-28]","data":{"requested":"2099-01-01","supported":["2026-07-28"]}}}`)},
		{name: "modern: missing capabilities get -32602", run: exchange(
			`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: _meta[\"io.modelcontextprotocol/clientCapabilities\"] must be an object"}}`)},
		{name: "modern: ping gets -32601", run: exchange(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{`+modernMeta+`}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: ping"}}`)},
		{name: "modern: subscriptions/listen acknowledged", run: exchange(
			`{"jsonrpc":"2.0","id":"s","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+modernMeta+`}}`,
			`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":"s"}}}`)},
		{name: "discover then initialize (auto fallback)", run: checkDiscoverThenInitialize},
		{name: "cache: tools listed while the base is down", run: checkCache},
		{name: "list_changed when the base comes back", run: checkListChanged},
		{name: "progress heartbeats for a long call", faults: true, run: checkProgress},
		{name: "stdin EOF: every request answered, exit 0", run: checkEOF},
		{name: "stdout carries only protocol messages", run: checkPurity},
	}
}

func checkPingDuringSlowCall(t *T) error {
	s, err := t.bridge()
	if err != nil {
		return err
	}
	// Ordering is the proof: a bridge that forwards ping, or handles one
	// message at a time, answers the call first. (How fast: mcp-bridge bench.)
	if err := s.Send(verify.ToolCall(`"slow"`, "fault_sleep", `{"ms":1000}`)); err != nil {
		return err
	}
	got, err := ask(s, `{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if err != nil {
		return err
	}
	if got != `{"jsonrpc":"2.0","id":"p","result":{}}` {
		return fmt.Errorf("the first answer was not the ping's: %s", verify.Short(got))
	}
	if got, err = s.Recv(answerWait); err != nil || verify.Get(got, "id") != "slow" {
		return fmt.Errorf("the slow call's answer: %s %v", verify.Short(got), err)
	}
	return nil
}

func checkToolsListIdentical(t *T) error {
	_, got, err := t.askFresh(`{"jsonrpc":"2.0","id":"L","method":"tools/list"}`)
	if err != nil {
		return err
	}
	want, err := t.direct(`{"jsonrpc":"2.0","id":"L","method":"tools/list"}`)
	if err != nil {
		return err
	}
	// The bridge adds "type": "object" where a schema lacks it; that is all.
	fixed, _ := toolschema.RepairToolSchemas([]byte(raw(want, "result")))
	if raw(got, "result") != passedOn(string(fixed)) {
		return fmt.Errorf("tools/list through the bridge differs from the base's: %s vs %s", verify.Short(raw(got, "result")), verify.Short(string(fixed)))
	}
	return nil
}

func checkSchemas(t *T) error {
	_, got, err := t.askFresh(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if err != nil {
		return err
	}
	tools, _ := verify.Get(got, "result.tools").([]any)
	if len(tools) == 0 {
		return fmt.Errorf("no tools listed: %s", verify.Short(got))
	}
	for _, tl := range tools {
		m, _ := tl.(map[string]any)
		sch, _ := m["inputSchema"].(map[string]any)
		if sch == nil || sch["type"] != "object" {
			return fmt.Errorf("tool %v: inputSchema root is not type object; SDK clients drop it", m["name"])
		}
		if p, ok := sch["properties"]; ok && p == nil {
			return fmt.Errorf(`tool %v: "properties": null; SDK clients drop it`, m["name"])
		}
	}
	return nil
}

func checkCallRoundTrip(t *T) error {
	tool, err := t.v.chooseTool(t)
	if err != nil {
		return err
	}
	_, got, err := t.askFresh(tool.frame("1"))
	if err != nil {
		return err
	}
	want, err := t.direct(tool.frame("1"))
	if err != nil {
		return err
	}
	if err := sameAnswer(got, want); err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	t.note = tool.String()
	return nil
}

func checkDrawingChanges(t *T) error {
	s, err := t.bridge()
	if err != nil {
		return err
	}
	count := func() (string, error) {
		got, err := ask(s, verify.ToolCall("9", "list_entities", `{"type":"line"}`))
		if err != nil {
			return "", err
		}
		return strings.SplitN(verify.FirstText(got), ":", 2)[0], nil
	}
	before, err := count()
	if err != nil {
		return err
	}
	got, err := ask(s, verify.ToolCall("1", "draw_line", `{"start":{"x":1,"y":1},"end":{"x":4,"y":5}}`))
	if err != nil {
		return err
	}
	if verify.Get(got, "result.isError") != false {
		return fmt.Errorf("draw_line: %s", verify.Short(got))
	}
	after, err := count()
	if err != nil {
		return err
	}
	if before == after {
		return fmt.Errorf("list_entities still says %q after draw_line", after)
	}
	_, err = ask(s, verify.ToolCall("2", "undo", `{}`))
	return err
}

// checkUnknownTool: whatever the base answers a tool it does not have
// (-32602 from the CAD bases we know; an isError result from others), the
// client gets that answer.
func checkUnknownTool(t *T) error {
	s, err := t.bridge()
	if err != nil {
		return err
	}
	frame := verify.ToolCall("1", "verify_no_such_tool", `{}`)
	got, err := ask(s, frame)
	if err != nil {
		return err
	}
	want, err := t.direct(frame)
	if err != nil {
		return err
	}
	if err := sameAnswer(got, want); err != nil {
		return err
	}
	switch {
	case verify.Get(want, "error.code") != nil:
		t.note = fmt.Sprintf("the base answers error %v", verify.Get(want, "error.code"))
	case verify.Get(want, "result.isError") == true:
		t.note = "the base answers an isError result"
	}
	return nil
}

func checkOversizeLine(t *T) error {
	s, err := t.bridge()
	if err != nil {
		return err
	}
	big := make([]byte, 0, rpc.DefaultMaxMessage+64)
	big = append(big, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`...)
	big = append(big, strings.Repeat("x", rpc.DefaultMaxMessage)...)
	big = append(big, "\"}}\n"...)
	if err := s.SendRaw(big); err != nil {
		return err
	}
	got, err := s.Recv(answerWait)
	if err != nil {
		return err
	}
	if verify.Get(got, "error.code") != float64(rpc.CodeInvalidRequest) {
		return fmt.Errorf("oversize line: %s", verify.Short(got))
	}
	return stillAlive(s)
}

// bridgeBaseDown starts a bridge against an address where nothing listens
// and checks what its first call gets: -32603 naming the address, with
// data.kind unreachable.
func bridgeBaseDown(t *T) (*verify.Bridge, string, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	s, err := t.bridgeAt(addr)
	if err != nil {
		return nil, "", err
	}
	got, err := ask(s, verify.ToolCall("1", "get_drawing_info", `{}`))
	if err != nil {
		return nil, "", err
	}
	msg, _ := verify.Get(got, "error.message").(string)
	if verify.Get(got, "error.code") != float64(-32603) || verify.Get(got, "error.data.kind") != "unreachable" || !strings.Contains(msg, addr) {
		return nil, "", fmt.Errorf("want -32603 naming %s with data.kind unreachable, got %s", addr, verify.Short(got))
	}
	return s, addr, nil
}

func checkBaseDown(t *T) error {
	s, _, err := bridgeBaseDown(t)
	if err != nil {
		return err
	}
	return stillAlive(s)
}

func checkRecovery(t *T) error {
	s, addr, err := bridgeBaseDown(t)
	if err != nil {
		return err
	}
	sim, err := simbase.Start(addr, simbase.Options{})
	if err != nil {
		return skip("could not start a base on %s: %v", addr, err)
	}
	defer sim.Close()
	return callServed(s, "2", "after the base came back")
}

func checkTimeout(t *T) error {
	s, got, err := t.askFresh(verify.ToolCall("1", "fault_hang", `{}`), "--call-timeout", "500ms")
	if err != nil {
		return err
	}
	msg, _ := verify.Get(got, "error.message").(string)
	if verify.Get(got, "error.data.kind") != "timeout" || !strings.Contains(msg, "may still be running in CAD") {
		return fmt.Errorf("want a timeout that says the call may still be running, got %s", verify.Short(got))
	}
	return stillAlive(s)
}

func checkSchemaRepair(t *T) error {
	_, got, err := t.askFresh(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if err != nil {
		return err
	}
	if !strings.Contains(got, `"name":"fault_untyped_schema"`) || !strings.Contains(got, `"inputSchema":{"type":"object","properties":{"note":{"type":"string"}}}`) {
		return errors.New("fault_untyped_schema was not given \"type\": \"object\"")
	}
	return nil
}

// simCalls asks the simulated base how many tools/call it has executed.
func simCalls(t *T) (float64, error) {
	ans, err := t.direct(verify.ToolCall("0", "sim_stats", `{}`))
	if err != nil {
		return 0, err
	}
	n, ok := verify.Get(verify.FirstText(ans), "calls").(float64)
	if !ok {
		return 0, fmt.Errorf("sim_stats: %s", verify.Short(ans))
	}
	return n, nil
}

func checkCancelInFlight(t *T) error {
	s, err := t.bridge()
	if err != nil {
		return err
	}
	if err := s.Send(verify.ToolCall(`"h"`, "fault_hang", `{}`)); err != nil {
		return err
	}
	time.Sleep(200 * time.Millisecond) // let it reach the base
	if err := s.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"h"}}`); err != nil {
		return err
	}
	got, err := ask(s, verify.ToolCall("2", "get_drawing_info", `{}`))
	if err != nil {
		return err
	}
	if verify.Get(got, "id") != float64(2) {
		return fmt.Errorf("after cancelling, got %s", verify.Short(got))
	}
	if line, quiet := s.Quiet(300 * time.Millisecond); !quiet {
		return fmt.Errorf("an answer came for a cancelled request: %s", verify.Short(line))
	}
	return nil
}

func checkCancelQueued(t *T) error {
	s, err := t.bridge()
	if err != nil {
		return err
	}
	before, err := simCalls(t)
	if err != nil {
		return err
	}
	if err := s.Send(verify.ToolCall("1", "fault_sleep", `{"ms":400}`)); err != nil {
		return err
	}
	if err := s.Send(verify.ToolCall(`"q"`, "fault_sleep", `{"ms":1}`)); err != nil {
		return err
	}
	if err := s.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"q"}}`); err != nil {
		return err
	}
	if err := expectLine(s, `{"jsonrpc":"2.0","id":"p","method":"ping"}`, `{"jsonrpc":"2.0","id":"p","result":{}}`); err != nil {
		return err
	}
	got, err := s.Recv(answerWait)
	if err != nil || verify.Get(got, "id") != float64(1) {
		return fmt.Errorf("want the first call's answer, got %s %v", verify.Short(got), err)
	}
	if line, quiet := s.Quiet(300 * time.Millisecond); !quiet {
		return fmt.Errorf("an answer came for the cancelled request: %s", verify.Short(line))
	}
	after, err := simCalls(t)
	if err != nil {
		return err
	}
	// sim_stats counts itself: the second one is the 1 subtracted here.
	if ran := after - before - 1; ran != 1 {
		return fmt.Errorf("the base ran %v calls, want 1: the cancelled one was sent", ran)
	}
	return nil
}

func checkDiscover(t *T) error {
	_, got, err := t.askFresh(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`)
	if err != nil {
		return err
	}
	vs, _ := verify.Get(got, "result.supportedVersions").([]any)
	found := false
	for _, v := range vs {
		found = found || v == "2026-07-28"
	}
	switch {
	case !found:
		return fmt.Errorf("supportedVersions lacks 2026-07-28: %s", verify.Short(got))
	case verify.Get(got, "result.capabilities.tools") == nil:
		return errors.New("capabilities lack tools")
	case verify.Get(got, "result.resultType") != "complete":
		return errors.New(`resultType is not "complete"`)
	case verify.Get(got, "result.ttlMs") == nil || verify.Get(got, "result.cacheScope") == nil:
		return errors.New("ttlMs or cacheScope missing")
	case raw(got, "result._meta") == "" || !strings.Contains(raw(got, "result._meta"), lifecycle.MetaServerInfo):
		return errors.New("_meta lacks serverInfo")
	}
	return nil
}

func checkModernList(t *T) error {
	s, legacy, err := t.askFresh(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if err != nil {
		return err
	}
	got, err := ask(s, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+modernMeta+`}}`)
	if err != nil {
		return err
	}
	if verify.Get(got, "result.resultType") != "complete" || verify.Get(got, "result.ttlMs") == nil || verify.Get(got, "result.cacheScope") == nil ||
		!strings.Contains(raw(got, "result._meta"), lifecycle.MetaServerInfo) {
		return fmt.Errorf("modern tools/list lacks resultType, ttlMs, cacheScope or _meta serverInfo: %s", verify.Short(got))
	}
	if raw(got, "result.tools") != raw(legacy, "result.tools") {
		return errors.New("modern tools differ from legacy tools")
	}
	return nil
}

func checkModernCall(t *T) error {
	tool, err := t.v.chooseTool(t)
	if err != nil {
		return err
	}
	s, legacy, err := t.askFresh(tool.frame("1"))
	if err != nil {
		return err
	}
	name, _ := json.Marshal(tool.name)
	got, err := ask(s, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%s,"arguments":%s,%s}}`, name, tool.args, modernMeta))
	if err != nil {
		return err
	}
	if verify.Get(got, "result.resultType") != "complete" || !strings.Contains(raw(got, "result._meta"), lifecycle.MetaServerInfo) {
		return fmt.Errorf("modern tools/call lacks resultType or _meta serverInfo: %s", verify.Short(got))
	}
	if verify.Get(got, "result.ttlMs") != nil {
		return errors.New("tools/call carries cache hints")
	}
	if raw(got, "result.content") != raw(legacy, "result.content") {
		return fmt.Errorf("%s: modern content differs from legacy content", tool)
	}
	t.note = tool.String()
	return nil
}

func checkDiscoverThenInitialize(t *T) error {
	s, err := t.bridge()
	if err != nil {
		return err
	}
	if _, err := ask(s, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`); err != nil {
		return err
	}
	got, err := ask(s, verify.Initialize("2", "2025-06-18"))
	if err != nil {
		return err
	}
	if verify.Get(got, "result.protocolVersion") != "2025-06-18" {
		return fmt.Errorf("initialize after discover: %s", verify.Short(got))
	}
	return expectLine(s, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, `{"jsonrpc":"2.0","id":3,"result":{}}`)
}

func checkEOF(t *T) error {
	s, err := t.bridge()
	if err != nil {
		return err
	}
	for i := range 3 {
		if err := s.Send(t.forwarded(fmt.Sprint(i))); err != nil {
			return err
		}
	}
	start := time.Now()
	_ = s.CloseStdin()
	code, err := s.Wait(10 * time.Second)
	if err != nil {
		return err
	}
	took := time.Since(start)
	n := 0
	for {
		if _, err := s.Recv(time.Second); err != nil {
			break
		}
		n++
	}
	if code != 0 || n != 3 {
		return fmt.Errorf("exit code %d with %d of 3 requests answered", code, n)
	}
	if took > 5*time.Second {
		return fmt.Errorf("took %v to exit", took)
	}
	return nil
}

func checkPurity(t *T) error {
	t.v.mu.Lock()
	written, impure := t.v.written, t.v.impure
	t.v.mu.Unlock()
	if impure != "" {
		return fmt.Errorf("not a protocol message on stdout: %s", impure)
	}
	if written == 0 {
		return skip("no other check ran a bridge")
	}
	return nil
}

// cachedBridge fills a fresh cache from a base of its own, stops that base
// and returns a bridge started with the base down, plus the address and the
// tools/list the base gave.
func cachedBridge(t *T, extra ...string) (*verify.Bridge, string, string, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, "", "", err
	}
	dir, err := os.MkdirTemp("", "mcp-bridge-verify-cache")
	if err != nil {
		return nil, "", "", err
	}
	t.onCleanup(func() { os.RemoveAll(dir) })
	sim, err := simbase.Start(addr, simbase.Options{})
	if err != nil {
		return nil, "", "", skip("could not start a base on %s: %v", addr, err)
	}
	first, err := t.bridgeAt(addr, "--cache-dir", dir)
	if err != nil {
		sim.Close()
		return nil, "", "", err
	}
	list, err := ask(first, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	sim.Close()
	if err != nil {
		return nil, "", "", err
	}
	s, err := t.bridgeAt(addr, append([]string{"--cache-dir", dir}, extra...)...)
	return s, addr, list, err
}

func checkCache(t *T) error {
	s, _, list, err := cachedBridge(t, "--probe-interval", "0")
	if err != nil {
		return err
	}
	got, err := ask(s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if err != nil {
		return err
	}
	if raw(got, "result.tools") == "" || raw(got, "result.tools") != raw(list, "result.tools") {
		return fmt.Errorf("with the base down and a cache, tools/list gave %s", verify.Short(got))
	}
	got, err = ask(s, verify.ToolCall("2", "get_drawing_info", `{}`))
	if err != nil {
		return err
	}
	if verify.Get(got, "error.data.kind") != "unreachable" {
		return fmt.Errorf("a call with the base down: %s", verify.Short(got))
	}
	return nil
}

func checkListChanged(t *T) error {
	s, addr, _, err := cachedBridge(t, "--probe-interval", "50ms")
	if err != nil {
		return err
	}
	// What a client does at start: the handshake, then the tool list (from
	// the cache, since the base is down).
	if _, err := ask(s, verify.Initialize("0", "2025-06-18")); err != nil {
		return err
	}
	if _, err := ask(s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); err != nil {
		return err
	}
	sim, err := simbase.Start(addr, simbase.Options{})
	if err != nil {
		return skip("could not restart the base on %s: %v", addr, err)
	}
	defer sim.Close()
	got, err := s.Recv(10 * time.Second)
	if err != nil {
		return fmt.Errorf("no notification after the base came back: %w", err)
	}
	if got != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` {
		return fmt.Errorf("after the base came back: %s", verify.Short(got))
	}
	return callServed(s, "1", "the next call")
}

func checkProgress(t *T) error {
	s, err := t.bridge("--progress-interval", "150ms")
	if err != nil {
		return err
	}
	if err := s.Send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fault_sleep","arguments":{"ms":700},"_meta":{"progressToken":"p1"}}}`); err != nil {
		return err
	}
	beats := 0
	for {
		line, err := s.Recv(answerWait)
		if err != nil {
			return err
		}
		if verify.Get(line, "id") == float64(1) {
			break
		}
		beats++
		if verify.Get(line, "method") != "notifications/progress" || verify.Get(line, "params.progressToken") != "p1" || verify.Get(line, "params.progress") != float64(beats) {
			return fmt.Errorf("heartbeat %d: %s", beats, verify.Short(line))
		}
	}
	if beats < 2 {
		return fmt.Errorf("%d heartbeats during a 700 ms call at 150 ms", beats)
	}
	got, err := ask(s, verify.ToolCall("2", "fault_sleep", `{"ms":400}`))
	if err != nil {
		return err
	}
	if verify.Get(got, "id") != float64(2) {
		return fmt.Errorf("without a progressToken, first came %s", verify.Short(got))
	}
	return nil
}

// callServed checks that a get_drawing_info call with this id gets a result
// from the base; what names the moment for the message.
func callServed(s *verify.Bridge, id, what string) error {
	got, err := ask(s, verify.ToolCall(id, "get_drawing_info", `{}`))
	if err != nil {
		return err
	}
	if verify.Get(got, "result.isError") != false {
		return fmt.Errorf("%s: %s", what, verify.Short(got))
	}
	return nil
}

// forwarded is a tools/call the bridge forwards to the base with this id:
// the chosen tool, or one the base does not have when none fits (an error
// answer is forwarded just the same, and nothing is changed).
func (t *T) forwarded(id string) string {
	if tool, err := t.v.chooseTool(t); err == nil {
		return tool.frame(id)
	}
	return verify.ToolCall(id, "verify_no_such_tool", `{}`)
}

// askFresh starts a bridge with args and returns it with its answer to line.
func (t *T) askFresh(line string, args ...string) (*verify.Bridge, string, error) {
	s, err := t.bridge(args...)
	if err != nil {
		return nil, "", err
	}
	got, err := ask(s, line)
	return s, got, err
}

// stillAlive checks that the bridge still answers a ping.
func stillAlive(s *verify.Bridge) error {
	return expectLine(s, `{"jsonrpc":"2.0","id":"alive","method":"ping"}`, `{"jsonrpc":"2.0","id":"alive","result":{}}`)
}
