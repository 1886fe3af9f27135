package clientconf

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzJSONCInstall: whatever file a user has, install either refuses it
// (and then nothing is written) or writes a file that parses, holds the
// entry, and keeps every other top-level value; removing the entry again
// leaves a file that parses.
func FuzzJSONCInstall(f *testing.F) {
	for _, s := range []string{
		"", "{}", `{"mcpServers":{}}`, "{\n  // c\n  \"mcpServers\": {\"a\": 1,},\n}\n",
		`{"mcpServers": {"cad": {"command": "x", "env": {"CAD_MCP_OLD": "1", "KEEP": "2"}}}}`,
		"{\"a\": [1, {\"b\": \"/*\"}], /* x */ \"mcpServers\": {\"cad\": null}}", "\xef\xbb\xbf{}", "[]", `{"mcpServers": "x"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		out, _, err := jsonSet([]byte(src), []string{"mcpServers", "cad"}, true, bridge)
		if err != nil {
			return
		}
		d, err := parseJSONC(out)
		if err != nil {
			t.Fatalf("install wrote a file that does not parse: %v\n%q\nfrom %q", err, out, src)
		}
		if got := jsonServers(d, d.lookup([]string{"mcpServers"}))["cad"]; got.Command != bridge.Command || !cmp.Equal(got.Args, bridge.Args) ||
			got.Env["CAD_MCP_PORT"] != "8080" || got.Env["CAD_MCP_HOST"] != "127.0.0.1" {
			t.Fatalf("entry %+v in\n%s", got, out)
		}
		before, _ := parseJSONC([]byte(src))
		var a, b map[string]json.RawMessage
		_ = json.Unmarshal(before.std, &a)
		_ = json.Unmarshal(d.std, &b)
		for k, v := range a {
			if k == "mcpServers" {
				continue
			}
			if !jsonEqualRaw(v, b[k]) {
				t.Fatalf("install changed %q: %s → %s", k, v, b[k])
			}
		}
		back, ok := d.remove([]string{"mcpServers", "cad"})
		if !ok {
			t.Fatalf("the entry cannot be removed from\n%s", out)
		}
		if _, err := parseJSONC(back); err != nil {
			t.Fatalf("uninstall wrote a file that does not parse: %v\n%q", err, back)
		}
	})
}

func jsonEqualRaw(x, y json.RawMessage) bool {
	var a, b any
	if json.Unmarshal(x, &a) != nil || json.Unmarshal(y, &b) != nil {
		return false
	}
	return cmp.Equal(a, b)
}

// FuzzTOMLInstall: Codex's file either is refused or gets exactly one
// readable entry, which uninstall takes out again.
func FuzzTOMLInstall(f *testing.F) {
	for _, s := range []string{
		"", "model = \"o3\"\n", "[mcp_servers.cad]\ncommand = \"x\"\n[mcp_servers.cad.env]\nA = \"1\"\n",
		"[a]\nlist = [\n 1,\n]\ns = \"\"\"\n[x]\n\"\"\"\n", "mcp_servers.cad.command = \"x\"\n", "[[mcp_servers.cad]]\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		out, err := tomlSet([]byte(src), "cad", bridge)
		if err != nil {
			return
		}
		servers, err := tomlServers(out)
		if err != nil {
			t.Fatalf("install wrote a file it cannot read: %v\n%q", err, out)
		}
		if got := servers["cad"]; got.Command != bridge.Command || got.Env["CAD_MCP_PORT"] != "8080" {
			t.Fatalf("entry %+v in\n%s", got, out)
		}
		back, ok, err := tomlRemove(out, "cad")
		if err != nil || !ok {
			t.Fatalf("uninstall: %v %v\n%s", ok, err, out)
		}
		if s, err := tomlServers(back); err != nil || s["cad"].Command != "" {
			t.Fatalf("after uninstall: %v %+v\n%q", err, s["cad"], back)
		}
	})
}
