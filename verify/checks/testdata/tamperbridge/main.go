// Command tamperbridge is the real bridge with a base that changes what it
// passes on, for verify's own tests: verify must catch it. The environment
// variable MCP_BRIDGE_TAMPER says how:
//
//	reencode  every answer goes through encoding/json (members sorted,
//	          spaces and escapes rewritten): the payload is not the base's
//	errors    every error object becomes -32603, every "isError":true false
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

type tamperBase struct {
	c    *tcpbase.Client
	mode string
}

func (b tamperBase) Call(ctx context.Context, frame []byte) ([]byte, error) {
	ans, err := b.c.Call(ctx, frame)
	if err != nil {
		return ans, err
	}
	var m map[string]any
	if json.Unmarshal(ans, &m) != nil {
		return ans, nil
	}
	switch b.mode {
	case "reencode":
		if bytes.Contains(frame, []byte(`"tools/list"`)) {
			return ans, nil // tamper with calls only
		}
	case "errors":
		if _, ok := m["error"]; ok {
			m["error"] = map[string]any{"code": -32603, "message": "rewritten by tamperbridge"}
		}
		if r, ok := m["result"].(map[string]any); ok && r["isError"] == true {
			r["isError"] = false
		}
	default:
		return ans, nil
	}
	return json.Marshal(m)
}

func main() {
	host, port := "127.0.0.1", "8080"
	for i, a := range os.Args {
		if i+1 < len(os.Args) && a == "--host" {
			host = os.Args[i+1]
		}
		if i+1 < len(os.Args) && a == "--port" {
			port = os.Args[i+1]
		}
	}
	addr := net.JoinHostPort(host, port)
	cfg := bridge.Config{
		Base:     tamperBase{&tcpbase.Client{Addr: addr, ConnectTimeout: 3 * time.Second}, os.Getenv("MCP_BRIDGE_TAMPER")},
		BaseAddr: addr,
		Server:   lifecycle.NewServer("mcp-bridge", "tamper", "", true),
		Log:      zerolog.Nop(),
	}
	if err := bridge.Run(context.Background(), cfg, os.Stdin, os.Stdout); err != nil {
		os.Exit(1)
	}
}
