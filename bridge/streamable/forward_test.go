package streamable

import (
	"fmt"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
)

// TestFrameIsOneLine, over HTTP (the core's TestFrameIsOneLine says why):
// a line break inside the arguments of a POST's body ("\n" too is
// whitespace in it) never reaches the base inside its frame.
func TestFrameIsOneLine(t *testing.T) {
	rec := &bridgetest.Recorder{}
	deny := bridgetest.Policy(t, "", policy.Options{Deny: []string{"new_drawing"}})
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) {
		c.Policy = deny
		rec.Next, c.Base = c.Base, rec
	})
	for _, brk := range []string{"\n", "\r\n", "\r"} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_drawing_info","arguments":` + bridgetest.SmuggledArgs(brk) + `,` + fmt.Sprintf(bridgetest.WireMeta, `{}`) + `}}`
		if r := h.post(modernHeaders("tools/call", "get_drawing_info"), body); r.status != 200 {
			t.Fatalf("POST: %d %s", r.status, r.body)
		}
	}
	bridgetest.OneLine(t, rec.All())
}
