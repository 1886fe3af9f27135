package lifecycle

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Cache hints on modern tools/list and server/discover results. The base's
// tool list can change whenever the CAD program restarts or loads a plug-in,
// so clients should revalidate (0 ms), and it describes this user's CAD
// program (private).
const (
	cacheTTLMs = 0
	cacheScope = "private"
)

// Server is what the bridge says about itself. Its answers are built once,
// by NewServer.
type Server struct {
	instructions string
	capabilities []byte
	serverInfo   []byte
	metaMember   string // `"io.modelcontextprotocol/serverInfo":{...}`
}

// NewServer prepares the answers for a server with this identity.
// listChanged is announced in the tools capability.
func NewServer(name, version, instructions string, listChanged bool) *Server {
	s := &Server{instructions: instructions}
	s.capabilities = mustJSON(map[string]any{"tools": map[string]any{"listChanged": listChanged}})
	s.serverInfo = mustJSON(map[string]string{"name": name, "version": version})
	s.metaMember = fmt.Sprintf("%s:%s", mustJSON(MetaServerInfo), s.serverInfo)
	return s
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Initialize answers a handshake-era initialize: the client's version when
// the bridge speaks it, otherwise the latest legacy version.
func (s *Server) Initialize(r *Request) ([]byte, *rpc.WireError) {
	if r.ParamsErr != nil {
		return nil, r.ParamsErr
	}
	version := LatestLegacy
	if slices.Contains(LegacyVersions, r.AskedVersion) {
		version = r.AskedVersion
	}
	res := map[string]any{
		"protocolVersion": version,
		"capabilities":    json.RawMessage(s.capabilities),
		"serverInfo":      json.RawMessage(s.serverInfo),
	}
	if s.instructions != "" {
		res["instructions"] = s.instructions
	}
	return mustJSON(res), nil
}

// Discover answers a modern server/discover.
func (s *Server) Discover() []byte {
	res := map[string]any{
		"supportedVersions": AllVersions(),
		"capabilities":      json.RawMessage(s.capabilities),
		"resultType":        "complete",
		"ttlMs":             cacheTTLMs,
		"cacheScope":        cacheScope,
		"_meta":             map[string]json.RawMessage{MetaServerInfo: s.serverInfo},
	}
	if s.instructions != "" {
		res["instructions"] = s.instructions
	}
	return mustJSON(res)
}

// Decorate turns a result from the base into a modern-era result:
// resultType "complete", the serverInfo in _meta, and for tools/list the
// cache hints. What the base sent is kept, byte for byte, inside; members it
// already set are not overridden. A result that is not an object is
// returned unchanged.
func (s *Server) Decorate(method string, result []byte) []byte {
	if rpc.Kind(result) != rpc.KindObject {
		return result
	}
	var hasType, hasTTL, hasScope bool
	var meta []byte
	_ = rpc.ScanObject(result, func(k string, from, to int) bool {
		switch k {
		case "resultType":
			hasType = true
		case "ttlMs":
			hasTTL = true
		case "cacheScope":
			hasScope = true
		case "_meta":
			meta = result[from:to]
		}
		return true
	})
	add := make([]byte, 0, 160)
	if !hasType {
		add = append(add, `"resultType":"complete",`...)
	}
	if method == "tools/list" {
		if !hasTTL {
			add = fmt.Appendf(add, `"ttlMs":%d,`, cacheTTLMs)
		}
		if !hasScope {
			add = fmt.Appendf(add, `"cacheScope":%s,`, mustJSON(cacheScope))
		}
	}
	out := result
	switch {
	case meta == nil:
		add = fmt.Appendf(add, `"_meta":{%s}`, s.metaMember)
	case rpc.Kind(meta) == rpc.KindObject && rpc.Field(meta, MetaServerInfo) == nil:
		out = rpc.WithoutMember(result, "_meta")
		add = fmt.Appendf(add, `"_meta":%s`, rpc.AppendMembers(meta, s.metaMember))
	}
	if len(add) == 0 {
		return out
	}
	if add[len(add)-1] == ',' {
		add = add[:len(add)-1]
	}
	return rpc.AppendMembers(out, string(add))
}
