package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
)

func TestBadPolicyRefusedAtStart(t *testing.T) {
	file := filepath.Join(tempDir(t), "policy.json")
	if err := os.WriteFile(file, []byte("{\n  // comment\n  \"deny\": [\"save_*\"],\n  \"confrim\": [\"delete_*\"]\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, nil, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n", "--policy", file, "--log-level", "error")
	if code != 2 || out != "" {
		t.Fatalf("exit %d, stdout %q; want 2 and nothing on stdout", code, out)
	}
	if !strings.Contains(errs, "policy.json:4:") || !strings.Contains(errs, `unknown key "confrim"`) {
		t.Errorf("stderr does not give the line and the reason:\n%s", errs)
	}
	_, errs, code = runCLI(t, nil, "", "--deny-tools", "save_[", "--log-level", "error")
	if code != 2 || !strings.Contains(errs, "malformed") {
		t.Errorf("bad --deny-tools: exit %d, %s", code, errs)
	}
}

func TestJournalCommand(t *testing.T) {
	port := startSim(t)
	dir := tempDir(t)
	file := filepath.Join(dir, "journal.jsonl")
	env := map[string]string{"CAD_MCP_PORT": port, "CAD_MCP_JOURNAL": file}
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cli-test","version":"3.1"}}}
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"draw_line","arguments":{"start":{"x":0,"y":0},"end":{"x":3,"y":4}}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"save_drawing","arguments":{"path":"secret-plan.dwg"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"draw_circle","arguments":{"center":{"x":0,"y":0},"radius":-1}}}
`
	out, errs, code := runCLI(t, env, in, "--deny-tools", "save_*", "--no-cache", "--log-level", "error")
	if code != 0 || !strings.Contains(out, "denied by the mcp-bridge policy") {
		t.Fatalf("bridge: exit %d\n%s\n%s", code, out, errs)
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("journal mode: %v %v; want 0600", fi.Mode().Perm(), err)
		}
	}
	raw, _ := os.ReadFile(file)
	if strings.Contains(string(raw), "secret-plan") {
		t.Error("arguments were journalled without --journal-args")
	}

	table, errs, code := runCLI(t, env, "", "journal")
	if code != 0 {
		t.Fatalf("journal: exit %d: %s", code, errs)
	}
	rows := strings.Split(strings.TrimSpace(table), "\n")
	if len(rows) != 4 || !strings.HasPrefix(rows[0], "TIME") {
		t.Fatalf("want a header and 3 rows:\n%s", table)
	}
	// Lines are in the order the answers went out: the denied call is
	// answered at once, before the call CAD is working on.
	outcomes := map[string]string{}
	for _, r := range rows[1:] {
		f := strings.Fields(r)
		if strings.Join(f[2:6], " ") != "cli-test 3.1 legacy tools/call" {
			t.Errorf("row %q: want client cli-test 3.1, era legacy, tools/call", r)
		}
		outcomes[f[6]] = f[7]
	}
	if want := map[string]string{"draw_line": "ok", "save_drawing": "denied", "draw_circle": "tool_error"}; !maps.Equal(want, outcomes) {
		t.Errorf("outcomes %v; want %v", outcomes, want)
	}

	cases := []struct {
		args []string
		want []string // tools of the lines printed
	}{
		{[]string{"journal", file, "--failed", "--json"}, []string{"save_drawing", "draw_circle"}},
		{[]string{"journal", "--tool", "draw_*", "--json"}, []string{"draw_line", "draw_circle"}},
		{[]string{"journal", "--since", "1h", "--json"}, []string{"draw_line", "save_drawing", "draw_circle"}},
		{[]string{"journal", "--since", time.Now().Add(time.Hour).Format(time.RFC3339), "--json"}, nil},
	}
	for _, c := range cases {
		out, errs, code := runCLI(t, env, "", c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		var got []string
		for l := range strings.Lines(out) {
			for _, tool := range []string{"draw_line", "save_drawing", "draw_circle"} {
				if strings.Contains(l, `"tool":"`+tool+`"`) {
					got = append(got, tool)
				}
			}
		}
		slices.Sort(got)
		slices.Sort(c.want)
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%v printed %v; want %v", c.args, got, c.want)
		}
	}
	if _, errs, code := runCLI(t, nil, "", "journal"); code != 2 || !strings.Contains(errs, "CAD_MCP_JOURNAL") {
		t.Errorf("journal without a file: exit %d, %s", code, errs)
	}

	// --journal-args adds them.
	out, errs, code = runCLI(t, env, in, "--deny-tools", "save_*", "--journal-args", "--no-cache", "--log-level", "error")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	raw, _ = os.ReadFile(file)
	if !strings.Contains(string(raw), `"args":{"path":"secret-plan.dwg"}`) {
		t.Errorf("--journal-args: no arguments in the journal:\n%s", raw)
	}
}

// TestExamplePolicy: configs/policy.example.jsonc parses, every pattern in
// it matches a tool of the simulated base, and through the bridge the base's
// 26 tools become 24, each annotated.
func TestExamplePolicy(t *testing.T) {
	const file = "../../configs/policy.example.jsonc"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.Parse(file, data)
	if err != nil {
		t.Fatal(err)
	}
	port := startSim(t)
	env := map[string]string{"CAD_MCP_PORT": port}
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n"
	tools := func(args ...string) map[string]map[string]any {
		out, errs, code := runCLI(t, env, list, append([]string{"--no-cache", "--log-level", "error"}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var r struct {
			Result struct {
				Tools []struct {
					Name        string         `json:"name"`
					Annotations map[string]any `json:"annotations"`
				} `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		m := map[string]map[string]any{}
		for _, tl := range r.Result.Tools {
			if !strings.HasPrefix(tl.Name, "fault_") && tl.Name != "sim_stats" {
				m[tl.Name] = tl.Annotations
			}
		}
		return m
	}
	all := tools()
	if len(all) != 26 {
		t.Fatalf("the simulated base has %d drawing tools; the example is written for 26", len(all))
	}
	names := slices.Collect(maps.Keys(all))
	if u := p.Unmatched(names); len(u) > 0 {
		t.Errorf("patterns that match no tool: %v", u)
	}
	shaped := tools("--policy", file)
	if len(shaped) != 24 || shaped["save_drawing"] != nil || shaped["new_drawing"] != nil {
		t.Errorf("with the example: %d tools; want 24, without save_drawing and new_drawing", len(shaped))
	}
	for name, ann := range shaped {
		if _, ok := ann["readOnlyHint"]; !ok {
			t.Errorf("%s has no readOnlyHint: %v", name, ann)
		}
	}
}

// TestToolsAndDoctorSeeThePolicy: `tools` lists what clients get, and
// doctor names the policy and the patterns that match nothing.
func TestToolsAndDoctorSeeThePolicy(t *testing.T) {
	port := startSim(t)
	env := map[string]string{"CAD_MCP_PORT": port, "CAD_MCP_DENY_TOOLS": "save_*,new_drawing,sav_drawing"}
	out, errs, code := runCLI(t, env, "", "tools")
	if code != 0 || strings.Contains(out, "save_drawing") || strings.Contains(out, "new_drawing") || !strings.Contains(out, "draw_line") {
		t.Errorf("tools under --deny-tools: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "policy: --deny-tools: deny save_*,new_drawing,sav_drawing") {
		t.Errorf("tools does not say which policy it applied: %s", errs)
	}
	out, _, _ = runCLI(t, env, "", "doctor", "--json")
	var rep struct {
		Tools     []string `json:"tools"`
		Policy    string   `json:"policy"`
		Unmatched []string `json:"policy_unmatched"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	if slices.Contains(rep.Tools, "save_drawing") || !slices.Contains(rep.Tools, "draw_line") {
		t.Errorf("doctor lists %v", rep.Tools)
	}
	if !strings.Contains(rep.Policy, "deny save_*") || !slices.Equal(rep.Unmatched, []string{`deny "sav_drawing"`}) {
		t.Errorf("doctor policy %q, unmatched %v", rep.Policy, rep.Unmatched)
	}
	out, _, _ = runCLI(t, env, "", "doctor")
	if !strings.Contains(out, `warn  policy pattern deny "sav_drawing" matches none`) {
		t.Errorf("doctor text does not flag the pattern:\n%s", out)
	}
}

// TestPrintConfigPinsRulePaths: the policy and journal paths travel as
// absolute paths, since clients start the bridge from elsewhere.
func TestPrintConfigPinsRulePaths(t *testing.T) {
	out, errs, code := runCLI(t, nil, "", "--print-config", "--policy", "my-policy.jsonc", "--journal", "j.jsonl", "--deny-tools", "save_*")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wd, _ := os.Getwd()
	var cfg struct {
		MCPServers map[string]struct {
			Args []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(out), &cfg); err != nil {
		t.Fatal(err)
	}
	want := []string{"--deny-tools", "save_*", "--journal", filepath.Join(wd, "j.jsonl"), "--policy", filepath.Join(wd, "my-policy.jsonc")}
	if got := cfg.MCPServers["cad-autocad"].Args; !slices.Equal(got, want) {
		t.Errorf("args %q; want %q", got, want)
	}
}

func TestJournalRequiredNeedsJournal(t *testing.T) {
	_, errs, code := runCLI(t, nil, "", "--journal-required", "--log-level", "error")
	if code != 2 || !strings.Contains(errs, "--journal-required needs --journal") {
		t.Errorf("--journal-required alone: exit %d, %s", code, errs)
	}
}

// The journal is how the user reviews what the assistant tried. Tool
// names come from the assistant, and are journaled even when refused: a
// name holding terminal controls (cursor up, erase line, carriage return),
// line breaks or bidirectional overrides must not erase, forge or reorder
// rows of the table `journal` prints. Such a name is shown quoted, its
// controls escaped.
func TestJournalTableShowsNamesAsText(t *testing.T) {
	port := startSim(t)
	file := filepath.Join(tempDir(t), "journal.jsonl")
	env := map[string]string{"CAD_MCP_PORT": port, "CAD_MCP_JOURNAL": file}
	names := []string{
		"delete_everything",
		"x\u001b[1A\u001b[2K\u001b[1A\u001b[2K",
		"y\r2026-12-01 12:00:00  cli-test 3.1  legacy  tools/call  get_drawing_info  ok",
		"z\n2026-12-01 12:00:00  cli-test 3.1  legacy  tools/call  get_drawing_info  ok",
		"\u202egnihtyreve_eteled",
	}
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cli-test","version":"3.1"}}}` + "\n"
	for i, n := range names {
		name, _ := json.Marshal(n)
		in += fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%s,"arguments":{}}}`, i+1, name) + "\n"
	}
	if _, errs, code := runCLI(t, env, in, "--deny-tools", "delete_*", "--no-cache", "--log-level", "error"); code != 0 {
		t.Fatalf("bridge: exit %d\n%s", code, errs)
	}
	table, errs, code := runCLI(t, env, "", "journal")
	if code != 0 {
		t.Fatalf("journal: exit %d: %s", code, errs)
	}
	if strings.ContainsAny(table, "\u001b\r\u202e") {
		t.Errorf("the table holds terminal controls or a bidirectional override:\n%q", table)
	}
	if rows := strings.Split(strings.TrimSpace(table), "\n"); len(rows) != 1+len(names) {
		t.Errorf("%d rows for %d journal lines:\n%s", len(rows)-1, len(names), table)
	}
}

// Who asks comes from --confirm-with, else CAD_MCP_CONFIRM_WITH, else the
// policy file's confirmWith, else client then desktop. Seen by a client
// that cannot ask, on a machine with no desktop: each choice refuses in
// its own words.
func TestConfirmWithPrecedence(t *testing.T) {
	port := startSim(t)
	dir := tempDir(t)
	file := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(file, []byte(`{"confirm": ["delete_*"], "confirmWith": ["desktop"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain.json")
	if err := os.WriteFile(plain, []byte(`{"confirm": ["delete_*"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	was := findDesktop
	findDesktop = func(func(string) string) (desktop.Asker, string) { return nil, "no display (test)" }
	t.Cleanup(func() { findDesktop = was })
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_entities","arguments":{"handles":["1"]}}}
`
	const (
		clientOnly  = `this client cannot ask (it did not declare the elicitation capability). Nothing`
		desktopOnly = `the client is not asked (--confirm-with desktop), and no dialog can be shown on this machine's desktop: no display (test)`
		both        = `this client cannot ask (it did not declare the elicitation capability), and no dialog can be shown on this machine's desktop: no display (test)`
	)
	for _, c := range []struct {
		name   string
		policy string
		env    string
		flag   string
		want   string
	}{
		{"default", plain, "", "", both},
		{"policy file", file, "", "", desktopOnly},
		{"environment over the file", file, "client", "", clientOnly},
		{"flag over the environment", file, "client", "desktop", desktopOnly},
		{"flag over the environment, the other way", plain, "desktop", "client", clientOnly},
		{"flag order", plain, "", "desktop,client", `this client cannot ask (it did not declare the elicitation capability), and no dialog`},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{"CAD_MCP_PORT": port}
			if c.env != "" {
				env["CAD_MCP_CONFIRM_WITH"] = c.env
			}
			args := []string{"--policy", c.policy, "--no-cache", "--log-level", "error"}
			if c.flag != "" {
				args = append(args, "--confirm-with", c.flag)
			}
			out, errs, code := runCLI(t, env, in, args...)
			if code != 0 || !strings.Contains(out, c.want) {
				t.Errorf("exit %d; want the refusal to say %q:\n%s\n%s", code, c.want, out, errs)
			}
		})
	}
	for _, bad := range []string{"desktops", "client,client", ",", "Client"} {
		_, errs, code := runCLI(t, nil, "", "--confirm-with", bad)
		if code != 2 || !strings.Contains(errs, "--confirm-with "+bad) {
			t.Errorf("--confirm-with %q: exit %d, %s", bad, code, errs)
		}
	}
}
