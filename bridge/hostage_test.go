package bridge

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
)

// rawPost sends a POST on a connection of its own and never reads the
// answer: a client that asked and stopped reading.
func rawPost(t *testing.T, h *httpHarness, headers hdr, body string) net.Conn {
	t.Helper()
	addr := strings.TrimSuffix(strings.TrimPrefix(h.url, "http://"), "/mcp")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096) // so that the answer cannot hide in the socket buffers
	}
	var req strings.Builder
	fmt.Fprintf(&req, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", addr, len(body))
	for i := 0; i+1 < len(headers); i += 2 {
		fmt.Fprintf(&req, "%s: %s\r\n", headers[i], headers[i+1])
	}
	req.WriteString("\r\n")
	req.WriteString(body)
	if _, err := conn.Write([]byte(req.String())); err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestUnreadAnswerHoldsNobody: client A asks for a 15 MiB answer and never
// reads it; client B's call is answered while A's answer is still unread
// (the worker hands A's answer to A's own writer and goes on). Before, the
// worker wrote A's answer itself and B waited for A's write timeout.
func TestUnreadAnswerHoldsNobody(t *testing.T) {
	h := newHTTPHarness(t, nil) // the write timeout is the default minute
	a := h.initialize("2025-06-18")
	b := h.initialize("2025-06-18")
	conn := rawPost(t, h, withSession(a), call(`"big"`, "fault_big", `{"mib":15}`))
	waitFor(t, func() bool { return h.sim.CallsFor(`"big"`) == 1 })
	if r := h.post(withSession(b), call(`"small"`, "get_drawing_info", `{}`)); r.status != http.StatusOK || field(t, r.body, "result.isError") != false {
		t.Fatalf("B's call: %d %s", r.status, r.body)
	}
	// A has not read its answer; B was answered all the same. A goes away:
	// its answer is dropped and the bridge goes on.
	conn.Close()
	if r := h.post(withSession(b), call(`"after"`, "get_drawing_info", `{}`)); r.status != http.StatusOK {
		t.Fatalf("after A left: %d %s", r.status, r.body)
	}
}
