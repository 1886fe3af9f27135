package rpc_test

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// A line read from a client, and the answer written back. The id goes back
// exactly as it came (this one is too large for a float64), and the
// params stay the bytes that arrived, for whoever needs them.
func Example() {
	in := rpc.NewLineReader(strings.NewReader(
		`{"jsonrpc":"2.0","id":12345678901234567890,"method":"tools/call","params":{"name":"draw_line"}}`+"\r\n"),
		rpc.DefaultMaxMessage)
	line, _ := in.Next()
	msgs, batch := rpc.DecodeLine(line)
	req := msgs[0].Msg.(*rpc.Request)
	fmt.Println(batch, req.ID, req.Method, string(req.Params))

	out := rpc.NewWriter(os.Stdout)
	out.Write(rpc.EncodeResult(req.ID, []byte(`{"content":[{"type":"text","text":"done"}]}`)))
	// Output:
	// false 12345678901234567890 tools/call {"name":"draw_line"}
	// {"jsonrpc":"2.0","id":12345678901234567890,"result":{"content":[{"type":"text","text":"done"}]}}
}

// A line that is no message gets its wire error, with the id when one
// could be read, so that the answer reaches the right request; a batch
// answers message by message.
func ExampleDecodeLine() {
	msgs, batch := rpc.DecodeLine([]byte(`[{"jsonrpc":"2.0","id":"a","method":7},{"jsonrpc":"2.0","method":"notifications/initialized"}]`))
	fmt.Println("batch:", batch)
	for _, d := range msgs {
		if d.Err != nil {
			fmt.Printf("%s\n", rpc.EncodeError(d.ID, d.Err).AppendTo(nil))
			continue
		}
		fmt.Printf("%T %s\n", d.Msg, d.Msg.(*rpc.Notification).Method)
	}

	msgs, _ = rpc.DecodeLine([]byte(`{"jsonrpc":"2.0","id":1,`))
	fmt.Printf("%s\n", rpc.EncodeError(msgs[0].ID, msgs[0].Err).AppendTo(nil))
	// Output:
	// batch: true
	// {"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"Invalid Request: \"method\" must be a string"}}
	// *rpc.Notification notifications/initialized
	// {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the line is not valid JSON"}}
}

// Wire errors are values: branch on the code with errors.Is, never on
// the message.
func ExampleWireError() {
	err := error(rpc.Errorf(rpc.CodeInvalidParams, "Unknown tool: %s", "draw_circle"))
	fmt.Println(errors.Is(err, &rpc.WireError{Code: rpc.CodeInvalidParams}), err)
	// Output:
	// true jsonrpc error -32602: Unknown tool: draw_circle
}
