package bridge

import (
	"context"
	"testing"
)

// stdout is always UTF-8: invalid bytes in what the client or the base
// sent come out as U+FFFD, everything else byte for byte.
func TestStdoutIsValidUTF8(t *testing.T) {
	base := baseFunc(func(_ context.Context, frame []byte) ([]byte, error) {
		return []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"caf` + "\xe9 \xff" + `"}],"isError":false}}`), nil
	})
	h := newHarness(t, nil, func(c *Config) { c.Base = base })
	h.send(`{"jsonrpc":"2.0","id":"a` + "\xff\xfe" + `b","method":"ping"}`)
	h.expect(`{"jsonrpc":"2.0","id":"a��b","result":{}}`)
	h.send(call("1", "x", `{}`))
	h.expect(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"caf� �"}],"isError":false}}`)
	h.closeAndWait()
}
