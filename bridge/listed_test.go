package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
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
	down  bool // refuses connections, as a base not running
}

func (nb *namedBase) setDown(down bool) { nb.mu.Lock(); nb.down = down; nb.mu.Unlock() }

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
	if nb.down {
		return nil, &tcpbase.Error{Kind: tcpbase.ErrUnreachable, Addr: "127.0.0.1:1", Err: errors.New("connection refused")}
	}
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

// askWays are the ways a call that needs confirmation is asked about: by
// the desktop or by the client, in each era. init is the handshake-era
// initialize ("" for a 2026-07-28 client); call makes the call.
var askWays = []struct {
	name    string
	desktop bool
	init    string
	call    func(id, tool string) string
}{
	{"desktop, handshake era", true, initPlain, func(id, tool string) string { return call(id, tool, `{}`) }},
	{"client, handshake era", false, initElicit, func(id, tool string) string { return call(id, tool, `{}`) }},
	{"desktop, 2026-07-28", true, "", func(id, tool string) string { return modernCall(id, tool, `{}`, `{}`, "") }},
	{"client, 2026-07-28", false, "", func(id, tool string) string { return modernCall(id, tool, `{}`, `{"elicitation":{}}`, "") }},
}

// next is what the bridge does next: a line to the client (but for the
// news that the tool list may have changed, which comes when CAD does), or
// a question on the desktop ("desktop: TOOL").
func next(t *testing.T, h *harness, d *bridgetest.Desktop) string {
	t.Helper()
	for {
		select {
		case l := <-h.lines:
			if strings.Contains(l, `"notifications/tools/list_changed"`) {
				continue
			}
			return l
		case q := <-d.Asked:
			return "desktop: " + q.Tool
		case <-time.After(waitLimit):
			t.Fatal("neither an answer nor a question within the wait limit")
		}
		return ""
	}
}

// asked reports whether ev (next's) is the question about the call: on
// the desktop, an elicitation/create, or an input_required result.
func asked(t *testing.T, ev string) bool {
	if strings.HasPrefix(ev, "desktop: ") {
		return true
	}
	return field(t, ev, "method") == "elicitation/create" || field(t, ev, "result.resultType") == "input_required"
}

// TestLookAlikeRefusedBeforeAsking: under a policy, a name the base does
// not list that matches a confirm pattern (a dotless i, a zero-width space
// after it, a trailing space, one letter in another case) is refused
// (-32602, unlisted) before anyone is asked, whoever would ask and in both
// eras; the listed name, one character away, is asked about. Before, the
// question came first, titled with the look-alike, and the refusal only
// after Run.
func TestLookAlikeRefusedBeforeAsking(t *testing.T) {
	lookAlikes := []string{"delete_a\u0131l", "delete_all\u200b", "delete_all ", "delete_alL"}
	for _, w := range askWays {
		t.Run(w.name, func(t *testing.T) {
			nb := newNamedBase("delete_all", "get_info")
			d := bridgetest.NewDesktop()
			with := []string{AskClient}
			if w.desktop {
				with = []string{AskDesktop}
			}
			h := newHarness(t, nil, both(withPolicy(t, testPolicy, policy.Options{}), withDesktop(d, with...), func(c *Config) { c.Base = nb }))
			if w.init != "" {
				h.send(w.init)
				h.recv()
			}
			for i, name := range lookAlikes {
				h.send(w.call(fmt.Sprint(i+1), name))
				ev := next(t, h, d)
				if asked(t, ev) || field(t, ev, "error.code") != float64(-32602) || field(t, ev, "error.data.kind") != "unlisted" {
					t.Errorf("%q: %s; want refused as unlisted before any question", name, ev)
					if strings.HasPrefix(ev, "desktop: ") {
						d.Answers <- desktop.DontRun
						h.recv()
					}
				}
			}
			h.send(w.call("9", "delete_all"))
			if ev := next(t, h, d); !asked(t, ev) {
				t.Errorf("the listed name: %s; want it asked about", ev)
			} else if w.desktop {
				d.Answers <- desktop.DontRun
				h.recv()
			}
			h.closeAndWait()
			if ran := nb.calls(); len(ran) != 0 {
				t.Errorf("the base ran %q", ran)
			}
		})
	}
}

// TestLookAlikeRefusedBeforeAskingListUnknown: the base's tool list not
// read yet when the call comes (CAD was down when the bridge started): it
// is read before the question, and a look-alike refused; CAD still down
// (no --launch), the call is refused as the list cannot be read, before
// any question.
func TestLookAlikeRefusedBeforeAskingListUnknown(t *testing.T) {
	for _, w := range askWays {
		t.Run(w.name, func(t *testing.T) {
			nb := newNamedBase("delete_all", "get_info")
			nb.setDown(true)
			d := bridgetest.NewDesktop()
			with := []string{AskClient}
			if w.desktop {
				with = []string{AskDesktop}
			}
			h := newHarness(t, nil, both(withPolicy(t, testPolicy, policy.Options{}), withDesktop(d, with...), func(c *Config) { c.Base, c.ProbeInterval = nb, -1 }))
			if w.init != "" {
				h.send(w.init)
				h.recv()
			}
			h.send(w.call("1", "delete_all "))
			if ev := next(t, h, d); asked(t, ev) || !strings.Contains(fmt.Sprint(field(t, ev, "error.message")), "its tool list could not be read") {
				t.Errorf("CAD down: %s; want refused as the list cannot be read, before any question", ev)
			}
			nb.setDown(false)
			h.send(w.call("2", "delete_all "))
			if ev := next(t, h, d); asked(t, ev) || field(t, ev, "error.data.kind") != "unlisted" {
				t.Errorf("CAD up, its list not read yet: %s; want refused as unlisted before any question", ev)
			}
			h.closeAndWait()
			if ran := nb.calls(); len(ran) != 0 {
				t.Errorf("the base ran %q", ran)
			}
		})
	}
}
