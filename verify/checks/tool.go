package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/verify"
	"github.com/mcp-bridge/mcp-bridge/verify/direct"
)

// callTool is the tool the checks that need a real tools/call use, and why
// it was chosen (shown in the report: the user sees what verify ran).
type callTool struct {
	name, args, why string
}

func (c callTool) frame(id string) string { return verify.ToolCall(id, c.name, c.args) }

func (c callTool) String() string { return fmt.Sprintf("called %s %s (%s)", c.name, c.args, c.why) }

// readVerbs are the name prefixes that say a tool only reads. They are a
// last resort, used only for tools that need no arguments and whose
// annotations do not say otherwise: calling a tool on the user's drawing
// must not change it.
var readVerbs = []string{"get", "list", "describe", "info", "query", "read", "show", "status", "count", "find", "search", "inspect", "measure"}

// chooseTool picks the tool to call, once per run: the user's --tool;
// else the first tool the base annotates readOnlyHint that needs no
// arguments; else the first that needs none, is not annotated as writing,
// and whose name starts with a reading verb; else, only where the drawing
// may change (the simulated base, --scratch), the first that needs none
// and is not annotated destructive. Never a name verify assumes.
func (v *verifier) chooseTool(t *T) (callTool, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.tool == nil {
		c, err := v.pickTool(t)
		v.tool, v.toolErr = &c, err
	}
	return *v.tool, v.toolErr
}

func (v *verifier) pickTool(t *T) (callTool, error) {
	if v.opts.Tool != "" {
		return namedTool(v.opts.Tool, v.opts.Args)
	}
	res, err := direct.ToolList(t.ctx, v.direct)
	if err != nil {
		return callTool{}, fmt.Errorf("choosing a tool to call: %w", err)
	}
	return toolFrom(res, v.sim != nil || v.opts.Scratch)
}

// namedTool is the user's --tool with its --args.
func namedTool(name, args string) (callTool, error) {
	if args == "" {
		args = "{}"
	}
	var compact bytes.Buffer
	if json.Compact(&compact, []byte(args)) != nil || rpc.Kind(compact.Bytes()) != rpc.KindObject {
		return callTool{}, fmt.Errorf("--args %s: not a JSON object", args)
	}
	return callTool{name, compact.String(), "--tool"}, nil
}

// toolFrom chooses from a tools/list result (see chooseTool); mayChange
// says the drawing may change.
func toolFrom(res []byte, mayChange bool) (callTool, error) {
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema struct {
				Required []string `json:"required"`
			} `json:"inputSchema"`
			Annotations struct {
				ReadOnly    *bool `json:"readOnlyHint"`
				Destructive *bool `json:"destructiveHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		return callTool{}, fmt.Errorf("choosing a tool to call: the tool list: %w", err)
	}
	is := func(b *bool, want bool) bool { return b != nil && *b == want }
	for _, tl := range list.Tools {
		if is(tl.Annotations.ReadOnly, true) && len(tl.InputSchema.Required) == 0 {
			return callTool{tl.Name, "{}", "annotated readOnlyHint, needs no arguments"}, nil
		}
	}
	for _, tl := range list.Tools {
		if len(tl.InputSchema.Required) == 0 && !is(tl.Annotations.ReadOnly, false) && !is(tl.Annotations.Destructive, true) && readsByName(tl.Name) {
			return callTool{tl.Name, "{}", "needs no arguments; its name says it reads"}, nil
		}
	}
	if mayChange {
		for _, tl := range list.Tools {
			if len(tl.InputSchema.Required) == 0 && !is(tl.Annotations.Destructive, true) {
				return callTool{tl.Name, "{}", "needs no arguments; the drawing may change (--scratch)"}, nil
			}
		}
	}
	return callTool{}, skip("no tool of the base is annotated readOnlyHint, or named as reading, and needs no arguments: name one that only reads with --tool NAME --args JSON")
}

func readsByName(name string) bool {
	n := strings.ToLower(name)
	for _, verb := range readVerbs {
		if n == verb || strings.HasPrefix(n, verb+"_") || strings.HasPrefix(n, verb+"-") ||
			len(n) > len(verb) && strings.HasPrefix(n, verb) && name[len(verb)] >= 'A' && name[len(verb)] <= 'Z' { // getInfo
			return true
		}
	}
	return false
}
