package verify

import (
	"bytes"
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// CheckStdout checks that every byte the bridge wrote is part of a line
// holding one JSON-RPC message (or a batch of them), each ending in "\n".
// It returns a description of the first offending line, or "".
func CheckStdout(out []byte) string {
	for len(out) > 0 {
		i := bytes.IndexByte(out, '\n')
		if i < 0 {
			return fmt.Sprintf("unterminated output %q", Short(string(out)))
		}
		line := out[:i]
		out = out[i+1:]
		if len(line) > 0 && line[len(line)-1] == '\r' {
			return fmt.Sprintf("a line ends in \\r\\n: %q", Short(string(line)))
		}
		ds, _ := rpc.DecodeLine(line)
		if len(ds) == 0 {
			return "empty line"
		}
		for _, d := range ds {
			if d.Err != nil {
				return fmt.Sprintf("%q (%s)", Short(string(line)), d.Err.Message)
			}
		}
	}
	return ""
}
