package telemetry

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
)

// Other is the value an attribute takes when what a client (or the base)
// sent is not one of the few known values: the convention's fallback for
// error.type, used here for every attribute whose values would otherwise
// be whatever a client invents. Series and span names stay few.
const Other = "_OTHER"

// Transports (network.transport).
const (
	TransportPipe = "pipe" // stdio
	TransportTCP  = "tcp"  // Streamable HTTP
)

// methods are the mcp.method.name values kept: the convention's list and
// the methods of 2026-07-28 that it predates.
var methods = map[string]bool{
	"completion/complete": true, "elicitation/create": true, "initialize": true, "logging/setLevel": true,
	"notifications/cancelled": true, "notifications/initialized": true, "notifications/message": true,
	"notifications/progress": true, "notifications/prompts/list_changed": true,
	"notifications/resources/list_changed": true, "notifications/resources/updated": true,
	"notifications/roots/list_changed": true, "notifications/tools/list_changed": true, "ping": true,
	"prompts/get": true, "prompts/list": true, "resources/list": true, "resources/read": true,
	"resources/subscribe": true, "resources/templates/list": true, "resources/unsubscribe": true,
	"roots/list": true, "sampling/createMessage": true, "tools/call": true, "tools/list": true,
	"server/discover": true, "subscriptions/listen": true,
}

// method returns the method's name as an attribute: known, or Other.
func method(m string) string {
	if methods[m] {
		return m
	}
	return Other
}

// protocolVersion keeps the versions the bridge speaks.
func protocolVersion(v string) string {
	if v == "" {
		return ""
	}
	if slices.Contains(lifecycle.LegacyVersions, v) || slices.Contains(lifecycle.ModernVersions, v) {
		return v
	}
	return Other
}

// httpVersion keeps the HTTP versions there are.
func httpVersion(v string) string {
	switch v {
	case "", "1.0", "1.1", "2", "3":
		return v
	}
	return Other
}

// errorKinds are the failure kinds the bridge names (tcpbase's, the
// front ends' and the rules'): error.type takes them as they are.
var errorKinds = map[string]bool{
	"unreachable": true, "timeout": true, "closed": true, "malformed": true, "too_large": true,
	"too_large_for_batch": true, "canceled": true, "cancelled": true, "shutdown": true,
	"session_lost": true, "session_ended": true, "connection_lost": true, "refused": true,
	"unlisted": true, "denied": true, "declined": true, "queue_full": true, "journal": true,
	"tool_error": true,
}

// errorCode is a JSON-RPC error code as an attribute value: the
// specification's five, and the server range (-32099…-32000, where MCP's
// own are); any other code (a base may answer anything) is Other.
func errorCode(code int64) string {
	switch {
	case code == 0:
		return ""
	case code == -32700, code >= -32603 && code <= -32600, code >= -32099 && code <= -32000:
		return strconv.FormatInt(code, 10)
	}
	return Other
}

// Refusal kinds (mcp_bridge.refusal.kind): why the policy refused a call.
const (
	RefusalDenied       = "denied"        // a deny rule matched
	RefusalNotAllowed   = "not_allowed"   // an allow list is set and did not match
	RefusalReadOnly     = "read_only"     // read-only mode, and the tool is not marked read-only
	RefusalUnlisted     = "unlisted"      // the base does not list the tool
	RefusalRequestState = "request_state" // a 2026-07-28 requestState that is not the bridge's
)

func refusal(kind string) string {
	switch kind {
	case RefusalDenied, RefusalNotAllowed, RefusalReadOnly, RefusalUnlisted, RefusalRequestState:
		return kind
	}
	return Other
}

// Answer is how a confirmation question ended: the gate's one vocabulary
// (confirm.Outcome), named in attributes by its Label.
type Answer = confirm.Outcome

// The answers (mcp_bridge.confirmation.answer: agreed, declined,
// cancelled, timeout); any other outcome is counted as Other.
const (
	Agreed    = confirm.Accepted
	Declined  = confirm.Declined
	Cancelled = confirm.Cancelled // the client cancelled, or the question was dismissed
	TimedOut  = confirm.TimedOut
)

func answer(a Answer) string {
	if l := a.Label(); l != "" {
		return l
	}
	return Other
}

// Limits on the tool names kept as attribute values: a base that lists
// ten thousand tools, or names of a kilobyte, cannot make as many series.
const (
	maxTools    = 500
	maxToolName = 128
)

// toolSet is the names the base listed last, as their own copies (a name
// taken from a request would keep its whole buffer alive for the life of
// the series).
type toolSet map[string]string

// tools holds the current set; it is replaced whole on each good list.
// Before the first list, a name joins it once the base has run a call of
// it (ran).
type tools struct {
	set atomic.Pointer[toolSet]

	mu       sync.Mutex // ran's copy and store, and listed's store
	haveList bool       // a list came: it alone says what the base has
}

// listed records a tools/list result's names.
func (t *tools) listed(result []byte) {
	set := toolSet{}
	for _, n := range lifecycle.ToolNames(result) {
		if len(set) == maxTools {
			break
		}
		if keptName(n) {
			set[n] = strings.Clone(n)
		}
	}
	t.mu.Lock()
	t.haveList = true
	t.set.Store(&set)
	t.mu.Unlock()
}

// ran records that the base answered a call of tool n with a result (not
// an error, nor isError): before any list, a name the base has. It
// returns the attribute value for n: n, or Other when a list is known
// that does not hold it, or n is no name to keep (too long, not text, one
// too many).
func (t *tools) ran(n string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if v := t.name(n); v != Other || t.haveList || !keptName(n) {
		return v
	}
	set := toolSet{}
	if old := t.set.Load(); old != nil {
		if len(*old) >= maxTools {
			return Other
		}
		maps.Copy(set, *old)
	}
	set[n] = strings.Clone(n)
	t.set.Store(&set)
	return set[n]
}

// keptName: a tool name short and plain enough to be an attribute value.
func keptName(n string) bool {
	return len(n) <= maxToolName && utf8.ValidString(n) && !hasControl(n)
}

// name returns the tool's name as an attribute value: the listed name, or
// Other for any name the base did not list.
func (t *tools) name(n string) string {
	if s := t.set.Load(); s != nil {
		if v, ok := (*s)[n]; ok {
			return v
		}
	}
	return Other
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return true
		}
	}
	return false
}
