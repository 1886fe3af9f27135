package clientconf

import (
	"encoding/json"
	"strings"
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
		"{\n  \"mcpServers\": {\n    \"cad\": {\"command\": \"x\"},\n  },\n}\n",
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

// FuzzJSONCInstallURL: the URL form of each JSON client with a URL form,
// over whatever file a user has and whatever URL: install refuses the
// file, or writes one that parses, whose entry is exactly the URL form
// (the URL as given, the token's header, no stdio member left), with
// every other top-level value kept; the entry's own stdio form and
// removal parse too.
func FuzzJSONCInstallURL(f *testing.F) {
	for _, s := range []string{
		"", "{}", `{"mcpServers":{"cad":{"command":"x","args":[],"env":{"CAD_MCP_PORT":"1","KEEP":"2"}}}}`,
		`{"mcpServers":{"cad":{"type":"http","url":"http://old","headers":{"X-Trace":"1","Authorization":"Bearer old"},"oauth":{"clientId":"c"}}}}`,
		`{"servers":{"cad":{"type":"stdio","command":"x"}},"mcp":{"cad":{"type":"local","command":["x"],"environment":{}}}}`,
		`{"mcpServers":{"cad":{"serverUrl":"u","url":"u","httpUrl":"u","headers":null}}}`, `{"mcp":{"servers":{"cad":{"type":"remote","url":"u"}}}}`,
		"\xef\xbb\xbf{\r\n  // c\r\n  \"mcpServers\": {\"cad\": {\"url\": \"u\",},},\r\n}\r\n", `{"mcpServers":{"cad":{"headers":"x"}}}`,
	} {
		for shape := range uint8(9) {
			f.Add(s, `h/a"b\c${X}`, shape)
		}
	}
	f.Fuzz(func(t *testing.T, src, rest string, shape uint8) {
		var forms []*Client
		for _, c := range Clients {
			if c.URLForm != nil && c.Format != tomlFile {
				forms = append(forms, c)
			}
		}
		c := forms[int(shape)%len(forms)]
		key := []string{c.ServersKey()}
		s := c.URLServer("https://"+strings.ToValidUTF8(rest, "\uFFFD"), shape&0x80 == 0)
		out, _, err := jsonSet([]byte(src), append(key, "cad"), c, s)
		if err != nil {
			return
		}
		d, err := parseJSONC(out)
		if err != nil {
			t.Fatalf("install wrote a file that does not parse: %v\n%q\nfrom %q", err, out, src)
		}
		var doc map[string]any
		if json.Unmarshal(d.std, &doc) != nil {
			t.Fatalf("not an object:\n%s", out)
		}
		entry, _ := doc[key[0]].(map[string]any)["cad"].(map[string]any)
		if entry[c.URLForm.URLKey] != s.URL {
			t.Fatalf("%s: %s is %q, want %q in\n%s", c.ID, c.URLForm.URLKey, entry[c.URLForm.URLKey], s.URL, out)
		}
		for _, k := range append([]string{"command", "args", "env", "environment"}, urlKeys...) {
			if _, there := entry[k]; there && k != c.URLForm.URLKey {
				t.Fatalf("%s: %s left in the URL entry\n%s", c.ID, k, out)
			}
		}
		headers, _ := entry["headers"].(map[string]any)
		if auth, _ := headers["Authorization"].(string); auth != s.Headers["Authorization"] {
			t.Fatalf("%s: Authorization %q, want %q\n%s", c.ID, auth, s.Headers["Authorization"], out)
		}
		if c.URLForm.Type != "" && entry["type"] != c.URLForm.Type {
			t.Fatalf("%s: type %v\n%s", c.ID, entry["type"], out)
		}
		before, _ := parseJSONC([]byte(src))
		var a, b map[string]json.RawMessage
		_ = json.Unmarshal(before.std, &a)
		_ = json.Unmarshal(d.std, &b)
		for k, v := range a {
			if k != key[0] && !jsonEqualRaw(v, b[k]) {
				t.Fatalf("install changed %q: %s → %s", k, v, b[k])
			}
		}
		back, _, err := jsonSet(out, append(key, "cad"), c, bridge)
		if err != nil {
			t.Fatalf("%s: the URL entry cannot be turned stdio: %v\n%s", c.ID, err, out)
		}
		if _, err := parseJSONC(back); err != nil {
			t.Fatalf("the stdio entry does not parse: %v\n%q", err, back)
		}
		gone, ok := d.remove(append(key, "cad"))
		if _, err := parseJSONC(gone); !ok || err != nil {
			t.Fatalf("uninstall: %v %v\n%q", ok, err, gone)
		}
	})
}
