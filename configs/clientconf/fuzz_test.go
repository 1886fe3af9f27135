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
		out, _, err := jsonSet([]byte(src), []string{"mcpServers", "cad"}, Lookup("cursor"), bridge)
		if err != nil {
			return
		}
		d, err := parseJSONC(out)
		if err != nil {
			t.Fatalf("install wrote a file that does not parse: %v\n%q\nfrom %q", err, out, src)
		}
		got := jsonServers(d, d.lookup([]string{"mcpServers"}))["cad"]
		if got.Command != bridge.Command || !cmp.Equal(got.Args, bridge.Args) ||
			got.Env["CAD_MCP_PORT"] != "8080" || got.Env["CAD_MCP_HOST"] != "127.0.0.1" {
			t.Fatalf("entry %+v in\n%s", got, out)
		}
		before, _ := parseJSONC([]byte(src))
		// The user's own variables in the entry stay; CAD_MCP_* ones are ours.
		if old, ok := jsonServers(before, before.lookup([]string{"mcpServers"}))["cad"]; ok {
			for k, v := range old.Env {
				if !ours(k) && got.Env[k] != v {
					t.Fatalf("the user's variable %s=%q became %q in\n%s", k, v, got.Env[k], out)
				}
			}
		}
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
