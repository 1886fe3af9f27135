package lifecycle

import (
	"slices"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// The protocol versions the bridge implements: the one list in the program.
var (
	// LegacyVersions are negotiated by initialize.
	LegacyVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}
	// ModernVersions are named per request in params._meta.
	ModernVersions = []string{"2026-07-28"}
)

// LatestLegacy is what initialize answers to a version it does not know.
// Never a modern version: handshake-era clients reject those.
var LatestLegacy = LegacyVersions[len(LegacyVersions)-1]

// The _meta keys of the modern era.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// AllVersions is every supported version, oldest first.
func AllVersions() []string { return append(slices.Clone(LegacyVersions), ModernVersions...) }

// Era is the protocol era of one message.
type Era int

const (
	Legacy Era = iota // handshake era
	Modern            // 2026-07-28 and later: version and capabilities per request
)

func (e Era) String() string {
	if e == Modern {
		return "modern"
	}
	return "legacy"
}

// EraOf decides a request's era from its params: modern exactly when
// params._meta["io.modelcontextprotocol/protocolVersion"] is a string.
// It returns that version for modern requests.
func EraOf(params []byte) (Era, string) {
	v, ok := rpc.String(metaField(params, MetaProtocolVersion))
	if !ok {
		return Legacy, ""
	}
	return Modern, v
}

// metaField returns params._meta[key] raw, or nil.
func metaField(params []byte, key string) []byte {
	if rpc.Kind(params) != rpc.KindObject {
		return nil
	}
	meta := rpc.Field(params, "_meta")
	if rpc.Kind(meta) != rpc.KindObject {
		return nil
	}
	return rpc.Field(meta, key)
}

// CheckModern applies the per-request rules of the modern era to a request
// whose era is Modern and whose version is v: an unsupported version gets
// -32022 with the supported list, and missing or non-object client
// capabilities get -32602. It returns nil when the request may proceed.
func CheckModern(v string, params []byte) *rpc.WireError {
	return checkModern(v, metaField(params, MetaClientCapabilities))
}

// ElicitsForms reports whether an elicitation capability covers a form:
// {} (what 2025-06-18 clients send, and form only for 2025-11-25 and
// later) or one with "form"; one with only "url" cannot show a form.
func ElicitsForms(elicitation []byte) bool {
	if rpc.Kind(elicitation) != rpc.KindObject {
		return false
	}
	if form := rpc.Field(elicitation, "form"); form != nil {
		return rpc.Kind(form) == rpc.KindObject
	}
	return rpc.Field(elicitation, "url") == nil
}
