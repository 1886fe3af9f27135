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
