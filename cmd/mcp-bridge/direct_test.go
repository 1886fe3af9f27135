package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

func startSim(t *testing.T) (port string) {
	t.Helper()
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Faults: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	_, port, _ = net.SplitHostPort(sim.Addr())
	return port
}

func closedPort(t *testing.T) string {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	return port
}

func TestToolsCallRequest(t *testing.T) {
	port := startSim(t)
	env := map[string]string{"CAD_MCP_PORT": port}
	tests := []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"tools"}, 0, "draw_circle           center* layer radius*", ""},
		{[]string{"tools"}, 0, "40 tools at 127.0.0.1:" + port, ""},
		{[]string{"call", "draw_line", "--args", `{"start":{"x":0,"y":0},"end":{"x":0,"y":7}}`}, 0, "Line 101 drawn from (0, 0) to (0, 7), length 7.\n", ""},
		{[]string{"call", "get_drawing_info", "--json"}, 0, `"isError": false`, ""},
		{[]string{"call", "draw_circle", "--args", `{"radius":1}`}, 1, "Invalid arguments for draw_circle: missing required argument 'center'", "the tool reported an error"},
		{[]string{"call", "nope"}, 1, "", "error -32602: Unknown tool: nope"},
		{[]string{"call", "draw_line", "--args", `[1]`}, 2, "", "--args must be a JSON object"},
		// Not JSON at all: say where it stops, not "not an object".
		{[]string{"call", "draw_circle", "--args", `{center:1}`}, 2, "", "--args is not valid JSON: invalid character 'c' looking for beginning of object key string, at character 2:\n  {center:1}\n   ^"},
		{[]string{"call", "draw_circle", "--args", `{"center":{"x":0}`}, 2, "", "it ends before the JSON is complete, at character 18"},
		{[]string{"request", `{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"measure_distance","arguments":{"from":{"x":0,"y":0},"to":{"x":1,"y":0}}}}`}, 0,
			`{"jsonrpc":"2.0","id":"r","result":{"content":[{"type":"text","text":"Distance 1, angle 0°, dx 1, dy 0."}],"isError":false}}` + "\n", ""},
		{[]string{"request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`}, 1, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: ping"}}`, ""},
		{[]string{"request", `{"jsonrpc":"2.0","method":"notifications/initialized"}`}, 0, "", "no answer (a notification gets none)"},
		{[]string{"request", `{not json`}, 2, "", "the request is not valid JSON: invalid character 'n' looking for beginning of object key string, at character 2:"},
		{[]string{"call"}, 2, "", "call takes 1 argument(s), got 0"},
	}
	for _, tt := range tests {
		out, errs, code := runCLI(t, env, "", tt.args...)
		if code != tt.code || !strings.Contains(out, tt.out) || !strings.Contains(errs, tt.err) {
			t.Errorf("%v: exit %d (want %d)\nstdout %q (want %q)\nstderr %q (want %q)", tt.args, code, tt.code, out, tt.out, errs, tt.err)
		}
	}
	// Against a closed port every one of them fails, with the bridge's hint
	// rather than a raw "dial tcp … connection refused".
	closed := closedPort(t)
	dead := map[string]string{"CAD_MCP_PORT": closed}
	for _, args := range [][]string{{"tools"}, {"call", "get_drawing_info"}, {"request", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}} {
		_, errs, code := runCLI(t, dead, "", args...)
		want := "mcp-bridge: CAD base at 127.0.0.1:" + closed + " refused the connection: is the CAD program running with its MCP base enabled?\n"
		if code != 1 || errs != want {
			t.Errorf("%v against a closed port: exit %d, %q; want %q", args, code, errs, want)
		}
	}
}

func TestDoctor(t *testing.T) {
	port := startSim(t)
	home := tempDir(t)
	exe, _ := os.Executable()
	write := func(rel, content string) {
		p := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	good, _ := json.Marshal(exe)
	write(".codebuddy/.mcp.json", `{"mcpServers":{"cad-autocad":{"type":"stdio","command":"C:\\gone\\mcp-bridge.exe"}}}`)
	write(".config/Code/User/mcp.json", `{"servers": {`) // broken
	// Claude Code's default (local) scope, under projects: this test binary
	// acts as mcp-bridge there (TestMain), and refuses the port it is given.
	write(".claude.json", `{"projects": {"/src/a": {"mcpServers": {"cad": {"command": `+string(good)+`, "env": {"MCP_BRIDGE_TEST_AS_MAIN": "1", "CAD_MCP_PORT": "eighty"}}}}}}`)
	// VS Code Insiders, with comments: read, and the bridge answers.
	write(".config/Code - Insiders/User/mcp.json", "{\n  // mine\n  \"servers\": {\"cad\": {\"command\": "+string(good)+", \"env\": {\"MCP_BRIDGE_TEST_AS_MAIN\": \"1\", \"CAD_MCP_PORT\": \""+port+"\"},},},\n}")
	// A name Cursor rejects with the longest tool.
	write(".cursor/mcp.json", `{"mcpServers":{"cad":{"command":`+string(good)+`,"env":{"CAD_MCP_PORT":"`+port+`"}},"other":{"command":"node"},"`+strings.Repeat("n", 40)+`":{"command":`+string(good)+`,"env":{"CAD_MCP_PORT":"`+port+`"}}}}`)
	// One layout for every OS: APPDATA (Windows) and XDG_CONFIG_HOME
	// (Linux) both point at home/.config.
	env := map[string]string{"CAD_MCP_PORT": port, "HOME": home, "USERPROFILE": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "APPDATA": filepath.Join(home, ".config")}
	if runtime.GOOS == "windows" {
		// A HOME that MSYS2 or Git Bash set is not the user's home there:
		// its configurations are never read.
		env["HOME"] = filepath.Join(home, "stray")
		write(`stray\.cursor\mcp.json`, `{"mcpServers":{"cad-stray":{"command":"C:\\stray\\mcp-bridge.exe"}}}`)
	}

	out, errs, code := runCLI(t, env, "", "doctor")
	for _, want := range []string{
		"ok    CAD base at 127.0.0.1:" + port + " answers tools/list in",
		"ok    40 tools: get_drawing_info,",
		"FAIL  tool fault_bool_subschema: a bare true where a schema is expected (inputSchema/properties/anything)",
		`warn  tool fault_untyped_schema: the root lacks "type": "object"`,
		`ok    Cursor registers "cad" in ` + filepath.Join(home, ".cursor/mcp.json"),
		`FAIL  CodeBuddy registers "cad-autocad" in ` + filepath.Join(home, ".codebuddy/.mcp.json") + `: C:\gone\mcp-bridge.exe: the command does not exist`,
		"FAIL  VS Code config " + filepath.Join(home, ".config/Code/User/mcp.json") + ": not valid JSON",
		`FAIL  Claude Code registers "cad" in ` + filepath.Join(home, ".claude.json") + ` (projects → /src/a → mcpServers): ` + exe + `: the settings it is given are refused: environment CAD_MCP_PORT="eighty"`,
		`ok    VS Code Insiders registers "cad" in ` + filepath.Join(home, ".config/Code - Insiders/User/mcp.json") + `: ` + exe + `: mcp-bridge ` + version + `; CAD base at 127.0.0.1:` + port + ` (CAD_MCP_PORT in its env) answers: 40 tools, `,
		`FAIL  Cursor registers "` + strings.Repeat("n", 40) + `"`,
		"Cursor rejects more than 60",
		"5 problems",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"other"`) {
		t.Errorf("reported a server that is not mcp-bridge:\n%s", out)
	}
	if strings.Contains(out, "stray") {
		t.Errorf("read a config under HOME instead of USERPROFILE:\n%s", out)
	}
	if code != 1 || !strings.Contains(errs, "doctor found 5 problems") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}

	// JSON, and a closed port.
	env["CAD_MCP_PORT"] = closedPort(t)
	out, _, code = runCLI(t, env, "", "doctor", "--json")
	var rep struct {
		Reachable bool
		BaseError string `json:"base_error"`
		Problems  int
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	if rep.Reachable || !strings.Contains(rep.BaseError, "refused") || rep.Problems != 5 || code != 1 {
		t.Errorf("closed port: %+v exit %d", rep, code)
	}
}

// fakeBase answers every frame with answer, as a base would: one answer per
// connection, then close. It returns the port.
func fakeBase(t *testing.T, answer string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if _, err := bufio.NewReader(c).ReadBytes('\n'); err == nil {
					io.WriteString(c, answer)
				}
			}()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// TestToolsCutsDescriptionsAtACharacter: a long description is cut at a
// character boundary, so the table stays valid UTF-8.
func TestToolsCutsDescriptionsAtACharacter(t *testing.T) {
	desc := "x" + strings.Repeat("画", 80) // its 69th byte is inside a character
	port := fakeBase(t, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"draw","description":"`+desc+`","inputSchema":{"type":"object"}}]}}`)
	out, errs, code := runCLI(t, map[string]string{"CAD_MCP_PORT": port}, "", "tools")
	if code != 0 || !utf8.ValidString(out) || !strings.Contains(out, "x"+strings.Repeat("画", 68)+"…\n") {
		t.Errorf("exit %d, valid UTF-8 %v:\n%s%s", code, utf8.ValidString(out), out, errs)
	}
}

// TestBrokenToolList: a base that answers tools/list without a tool list
// is broken, not a base with no tools.
func TestBrokenToolList(t *testing.T) {
	for _, result := range []string{`null`, `{}`, `{"tools":null}`, `{"tools":{}}`, `[]`} {
		port := fakeBase(t, `{"jsonrpc":"2.0","id":1,"result":`+result+`}`)
		env := map[string]string{"CAD_MCP_PORT": port, "HOME": tempDir(t)}
		for _, cmd := range []string{"tools", "doctor"} {
			out, errs, code := runCLI(t, env, "", cmd)
			if code != 1 || !strings.Contains(out+errs, "without a tool list") || strings.Contains(out, "no problems") {
				t.Errorf("%s, result %s: exit %d\n%s%s", cmd, result, code, out, errs)
			}
		}
	}
}
