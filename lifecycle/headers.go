package lifecycle

// Header names of the Streamable HTTP transport, shared by the serving
// front end (bridge) and the relaying client (bridge/connect).
const (
	HeaderSession = "Mcp-Session-Id"
	HeaderVersion = "MCP-Protocol-Version"
	HeaderMethod  = "Mcp-Method" // 2026-07-28: the request's method
	HeaderName    = "Mcp-Name"   // 2026-07-28: the tool (or resource) it names
)
