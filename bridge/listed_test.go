package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/policy"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/verify"
)

// namedBase lists the given tools and runs any tools/call it gets, as a
// lenient base would (case-folded, look-alikes accepted); it keeps the
// names it was asked to run.
type namedBase struct {
	list  string
	mu    sync.Mutex
	lists int
	ran   []string
}

func newNamedBase(names ...string) *namedBase {
	var tools []string
	for _, n := range names {
		tools = append(tools, fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, n))
	}
	return &namedBase{list: `{"tools":[` + strings.Join(tools, ",") + `]}`}
}

func (nb *namedBase) Call(_ context.Context, frame []byte) ([]byte, error) {
	id := string(rpc.Field(frame, "id"))
	var method string
	_ = json.Unmarshal(rpc.Field(frame, "method"), &method)
	nb.mu.Lock()
	defer nb.mu.Unlock()
	if method == "tools/list" {
		nb.lists++
		return []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":` + nb.list + `}`), nil
	}
	var name string
	_ = json.Unmarshal(rpc.Field(rpc.Field(frame, "params"), "name"), &name)
	nb.ran = append(nb.ran, name)
	return []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"ran"}],"isError":false}}`), nil
}

func (nb *namedBase) calls() []string {
	nb.mu.Lock()
	defer nb.mu.Unlock()
	return append([]string(nil), nb.ran...)
}

// While a policy is in force, only names the base lists, exactly, run: a
// lenient base must not run "LAYER/delete" for a policy that denies
// "layer/*". The client need not list the tools first.
func TestPolicyRunsOnlyListedNames(t *testing.T) {
	nb := newNamedBase("layer/delete", "layer/list", "get_info", "图层/删除")
	h := newHarness(t, nil, both(withPolicy(t, "", policy.Options{Deny: []string{"layer/*"}}), func(c *Config) { c.Base = nb }))
	for i, tc := range []struct {
		tool string
		kind string // the error's data.kind; "" when it runs
	}{
		{"LAYER/delete", "unlisted"},
		{"layer∕delete", "unlisted"}, // U+2215
		{"layer/delete", "denied"},
		{" get_info", "unlisted"},
		{"get_info", ""},
		{"GET_INFO", "unlisted"},
		{"图层/删除", ""},
	} {
		h.send(call(fmt.Sprint(i), tc.tool, `{}`))
		line := h.recv()
		if tc.kind == "" {
			if field(t, line, "result.isError") != false {
				t.Errorf("%s: %s", tc.tool, line)
			}
			continue
		}
		if field(t, line, "error.code") != float64(-32602) || field(t, line, "error.data.kind") != tc.kind ||
			!strings.Contains(field(t, line, "error.message").(string), "mcp-bridge policy (--deny-tools") {
			t.Errorf("%s: got %s; want -32602, kind %s, naming the policy", tc.tool, line, tc.kind)
		}
	}
	h.closeAndWait()
	if d := cmp.Diff([]string{"get_info", "图层/删除"}, nb.calls()); d != "" {
		t.Errorf("tools the base ran (-want +got):\n%s", d)
	}
}

// Without a policy the bridge forwards any name: the base answers for it.
func TestNoPolicyForwardsAnyName(t *testing.T) {
	nb := newNamedBase("get_info")
	h := newHarness(t, nil, func(c *Config) { c.Base = nb })
	h.send(call("1", "GET_INFO", `{}`))
	if line := h.recv(); field(t, line, "result.isError") != false {
		t.Errorf("got %s", line)
	}
	h.closeAndWait()
	if nb.lists != 0 {
		t.Errorf("without a policy the bridge asked for the tool list %d times", nb.lists)
	}
}

// At start, each pattern that matches no tool of the base is logged once.
func TestUnmatchedPatternsLoggedOnceAtStart(t *testing.T) {
	var logs verify.LockedBuffer
	nb := newNamedBase("save_drawing", "get_info")
	h := newHarness(t, nil, both(withPolicy(t, `{"deny":["sav_*"],"confirm":["save_*"]}`, policy.Options{Allow: []string{"get_*", "Get_*"}}),
		func(c *Config) { c.Base = nb; c.Log = zerolog.New(&logs) }))
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	h.recv()
	h.recv()
	h.closeAndWait()
	var warned []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "match none") {
			warned = append(warned, field(t, l, "patterns").(string))
		}
	}
	if d := cmp.Diff([]string{`allow "Get_*", deny "sav_*"`}, warned); d != "" {
		t.Errorf("warnings (-want +got):\n%s\nlog:\n%s", d, logs.String())
	}
	if nb.lists != 3 {
		t.Errorf("the base was asked for its tools %d times; want 3 (once at start, twice by the client)", nb.lists)
	}
}
