// Command relay is the floor that `mcp-bridge bench` measures the bridge
// against: the least a relay from an MCP client to the CAD base can do.
// It answers initialize itself and forwards every other request, one at a
// time, on a fresh TCP connection, with no checks, limits, eras, policy or
// logging. The benchmark builds it from this file (standard library only)
// and runs it beside the bridge.
//
//	relay HOST:PORT            stdio: one JSON-RPC message per line
//	relay HOST:PORT LISTEN     HTTP: POST /mcp, one message per body
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
)

func main() {
	if len(os.Args) < 2 {
		os.Stderr.WriteString("usage: relay HOST:PORT [LISTEN]\n")
		os.Exit(2)
	}
	base := os.Args[1]
	if len(os.Args) > 2 {
		serveHTTP(base, os.Args[2])
		return
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if ans := handle(base, bytes.TrimSpace(line)); ans != nil {
			if _, werr := os.Stdout.Write(append(ans, '\n')); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// handle answers initialize, stays silent for notifications and forwards
// the rest to the base; nil when nothing is owed.
func handle(base string, msg []byte) []byte {
	if len(msg) == 0 {
		return nil
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(msg, &m)
	switch {
	case m.ID == nil:
		return nil
	case m.Method == "initialize":
		return append(append([]byte(`{"jsonrpc":"2.0","id":`), m.ID...),
			`,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"relay","version":"0"}}}`...)
	}
	c, err := net.Dial("tcp", base)
	if err != nil {
		return append(append([]byte(`{"jsonrpc":"2.0","id":`), m.ID...), `,"error":{"code":-32603,"message":"base unreachable"}}`...)
	}
	defer c.Close()
	_, _ = c.Write(append(msg, '\n'))
	ans, _ := io.ReadAll(c)
	return bytes.TrimSpace(ans)
}

func serveHTTP(base, addr string) {
	var one sync.Mutex // the base sees one request at a time, as from the bridge
	http.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		one.Lock()
		ans := handle(base, bytes.TrimSpace(body))
		one.Unlock()
		if ans == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "relay")
		_, _ = w.Write(ans)
	})
	http.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("{}\n")) })
	if err := http.ListenAndServe(addr, nil); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
}
