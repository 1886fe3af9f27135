package connect

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"
)

// Remotes that break the transport's rules: whatever they send, connect
// writes only protocol messages the client can read.

// hostileRemote is connect relaying to a server that answers with h.
func hostileRemote(t *testing.T, h http.HandlerFunc) *client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return startConnect(t, Config{URL: srv.URL + "/mcp", Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.ErrorLevel)})
}

const modernPing = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`

// TestArrayForOneRequest: a remote that answers a single request with a
// JSON array (a batch answer, twice the same id): the client, which sent
// no batch, gets one response object, the first.
func TestArrayForOneRequest(t *testing.T) {
	c := hostileRemote(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `[{"jsonrpc":"2.0","id":1,"result":{"n":1}},{"jsonrpc":"2.0","id":1,"result":{"n":2}}]`)
	})
	c.send(modernPing)
	line := c.recv()
	var m struct {
		ID     json.RawMessage
		Result struct{ N int }
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil || string(m.ID) != "1" || m.Result.N != 1 {
		t.Errorf("answer %s: want one response object, id 1, the first result", line)
	}
}
