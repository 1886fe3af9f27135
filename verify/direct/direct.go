// Package direct is the commands that talk to the CAD base without a bridge
// (`mcp-bridge tools`, `call`, `request`): what a person reaches for to see
// what the CAD program offers and does.
package direct

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mcp-bridge/mcp-bridge/configs/cut"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// errFailed makes a command exit non-zero after it has printed why.
var errFailed = errors.New("failed")

// IsFailure reports whether err only means "exit non-zero, already told".
func IsFailure(err error) bool { return errors.Is(err, errFailed) }

// BaseRequest sends one raw frame and returns the raw answer.
func BaseRequest(ctx context.Context, c *tcpbase.Client, frame []byte) ([]byte, error) {
	if !rpc.Valid(frame) {
		return nil, errors.New("the request is not valid JSON")
	}
	return c.Call(ctx, rpc.Compact(frame))
}

// ToolList asks the base for its tools and returns the result object, which
// holds a "tools" array: any other answer means a broken base.
func ToolList(ctx context.Context, c *tcpbase.Client) ([]byte, error) {
	ans, err := c.Call(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		return nil, err
	}
	d := rpc.DecodeValidMessage(ans)
	r, ok := d.Msg.(*rpc.Response)
	switch {
	case !ok:
		return nil, fmt.Errorf("the base answered tools/list with something that is not a response: %.100s", ans)
	case r.Error != nil:
		return nil, fmt.Errorf("the base answered tools/list with error %d: %s", r.Error.Code, r.Error.Message)
	case rpc.Kind(r.Result) != rpc.KindObject || rpc.Kind(rpc.Field(r.Result, "tools")) != rpc.KindArray:
		return nil, fmt.Errorf("the base answered tools/list without a tool list (result %.100s): it is broken", r.Result)
	}
	return r.Result, nil
}

type toolInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	InputSchema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	} `json:"inputSchema"`
}

// PrintTools lists the base's tools as a table, or its tools/list result
// as JSON. view, when not nil, shapes the list as clients see it (the
// user's policy).
func PrintTools(ctx context.Context, w io.Writer, c *tcpbase.Client, asJSON bool, view func([]byte) []byte) error {
	res, err := ToolList(ctx, c)
	if err != nil {
		return err
	}
	if view != nil {
		res = view(res)
	}
	if asJSON {
		var v any
		_ = json.Unmarshal(res, &v)
		out, _ := json.MarshalIndent(v, "", "  ")
		fmt.Fprintln(w, string(out))
		return nil
	}
	var list struct{ Tools []toolInfo }
	if err := json.Unmarshal(res, &list); err != nil {
		return fmt.Errorf("the tool list: %w", err)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tARGUMENTS (* required)\tDESCRIPTION")
	for _, t := range list.Tools {
		var args []string
		for name := range t.InputSchema.Properties {
			args = append(args, name)
		}
		slices.Sort(args)
		for i, a := range args {
			for _, r := range t.InputSchema.Required {
				if r == a {
					args[i] = a + "*"
				}
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, strings.Join(args, " "), firstSentence(t.Description))
	}
	tw.Flush()
	fmt.Fprintf(w, "%d tools at %s\n", len(list.Tools), c.Addr)
	return nil
}

// CallTool calls one tool and prints what it returned: the text content,
// or the whole result as JSON. A tool error (isError) or a protocol error
// is printed to errw and reported as a failure.
func CallTool(ctx context.Context, w, errw io.Writer, c *tcpbase.Client, name string, args []byte, asJSON bool) error {
	if len(args) == 0 {
		args = []byte(`{}`)
	}
	if !rpc.Valid(args) || rpc.Kind(args) != rpc.KindObject {
		return errors.New("--args must be a JSON object")
	}
	nameJSON, _ := json.Marshal(name)
	frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%s,"arguments":%s}}`, nameJSON, rpc.Compact(args))
	ans, err := c.Call(ctx, []byte(frame))
	if err != nil {
		return err
	}
	d := rpc.DecodeValidMessage(ans)
	r, ok := d.Msg.(*rpc.Response)
	if !ok {
		return fmt.Errorf("the base answered with something that is not a response: %.100s", ans)
	}
	if r.Error != nil {
		fmt.Fprintf(errw, "error %d: %s\n", r.Error.Code, r.Error.Message)
		return errFailed
	}
	if asJSON {
		var v any
		_ = json.Unmarshal(r.Result, &v)
		out, _ := json.MarshalIndent(v, "", "  ")
		fmt.Fprintln(w, string(out))
	} else {
		var res struct {
			Content []struct{ Type, Text string } `json:"content"`
		}
		_ = json.Unmarshal(r.Result, &res)
		for _, c := range res.Content {
			if c.Type == "text" {
				fmt.Fprintln(w, c.Text)
			} else {
				fmt.Fprintf(w, "[%s content]\n", c.Type)
			}
		}
	}
	if string(rpc.Field(r.Result, "isError")) == "true" {
		fmt.Fprintf(errw, "the tool reported an error (isError: true)\n")
		return errFailed
	}
	return nil
}

// firstSentence is a description's first sentence, cut to 70 characters
// (never inside one: the table stays valid UTF-8).
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return cut.Chars(s, 70)
}
