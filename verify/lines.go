package verify

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/configs/cut"
)

// Initialize is an initialize request asking for version.
func Initialize(id, version string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"verify","version":"1"}}}`, id, version)
}

// ToolCall is a tools/call request; id and args are raw JSON.
func ToolCall(id, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

// Get returns the value at a dotted path in a JSON line ("error.data.kind"),
// decoded as encoding/json does into an any, or nil.
func Get(line, path string) any {
	var v any
	if json.Unmarshal([]byte(line), &v) != nil {
		return nil
	}
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// FirstText is the text of the first content item of a tools/call answer.
func FirstText(line string) string {
	var m struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if json.Unmarshal([]byte(line), &m) != nil || len(m.Result.Content) == 0 {
		return ""
	}
	return m.Result.Content[0].Text
}

// Short cuts a line for a message.
func Short(s string) string {
	return cut.Bytes(s, 150)
}
