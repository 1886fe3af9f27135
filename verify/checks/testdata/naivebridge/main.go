// Command naivebridge is a deliberately broken bridge for verify's own
// tests: it handles one message at a time, so a ping waits behind a slow
// tool call, and it prints a banner to stdout. verify must catch both.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
)

func main() {
	host, port := os.Getenv("CAD_MCP_HOST"), os.Getenv("CAD_MCP_PORT")
	for i, a := range os.Args {
		if i+1 < len(os.Args) && a == "--host" {
			host = os.Args[i+1]
		}
		if i+1 < len(os.Args) && a == "--port" {
			port = os.Args[i+1]
		}
	}
	fmt.Println("naive bridge starting") // the bug verify's purity check must see
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 32<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		switch m.Method {
		case "initialize":
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"naive","version":"0"}}}`+"\n", m.ID)
		case "ping":
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", m.ID)
		default: // everything else goes to the base, in line: ping waits
			c, err := net.Dial("tcp", net.JoinHostPort(host, port))
			if err != nil {
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"down"}}`+"\n", m.ID)
				continue
			}
			c.Write(append(sc.Bytes(), '\n'))
			ans, _ := io.ReadAll(c)
			c.Close()
			fmt.Printf("%s\n", ans)
		}
	}
}
