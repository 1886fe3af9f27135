package clientconf

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Adding then removing an entry gives back the file byte for byte, in
// every layout people write by hand.
func TestJSONCAddRemoveRoundTrip(t *testing.T) {
	for name, src := range map[string]string{
		"empty object":        "{}\n",
		"empty servers":       "{\n  \"mcpServers\": {}\n}\n",
		"no trailing comma":   "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n  }\n}\n",
		"trailing commas":     "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"},\n  },\n}\n",
		"one line":            `{"mcpServers": {"a": {"command": "x"}}}`,
		"comment after last":  "{\n  \"mcpServers\": {\n    \"a\": 1 // the a server\n  }\n}\n",
		"only a comment":      "{\n  \"mcpServers\": {\n    // none yet\n  }\n}\n",
		"tabs":                "{\n\t\"mcpServers\": {\n\t\t\"a\": 1\n\t}\n}\n",
		"byte order mark":     "\xef\xbb\xbf{\"mcpServers\": {\"a\": 1}}",
		"servers key missing": "{\n  \"theme\": \"dark\" // keep\n}\n",
		"CRLF":                "{\r\n  \"mcpServers\": {\r\n    \"a\": 1\r\n  }\r\n}\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			d, err := parseJSONC([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			added, err := d.set([]string{"mcpServers", "cad"}, jsonEntry(Lookup("cursor"), bridge))
			if err != nil {
				t.Fatal(err)
			}
			d2, err := parseJSONC(added)
			if err != nil {
				t.Fatalf("the result does not parse: %v\n%s", err, added)
			}
			var got map[string]any
			if err := json.Unmarshal(d2.std, &got); err != nil {
				t.Fatal(err)
			}
			if _, ok := got["mcpServers"].(map[string]any)["cad"]; !ok {
				t.Fatalf("entry missing:\n%s", added)
			}
			back, ok := d2.remove([]string{"mcpServers", "cad"})
			if !ok {
				t.Fatal("not found for removal")
			}
			want := src
			if name == "servers key missing" || name == "empty object" {
				// The servers object install created stays, empty.
				d3, _ := parseJSONC(back)
				back, _ = d3.remove([]string{"mcpServers"})
			}
			if diff := cmp.Diff(want, string(back)); diff != "" {
				t.Errorf("after add:\n%s\nround trip (-want +got):\n%s", added, diff)
			}
		})
	}
}

func TestJSONCRefusesWhatItCannotEdit(t *testing.T) {
	for _, src := range []string{"[1]", `{"mcpServers": [1]}`, `{"a": /* open`, `{"a" 1}`} {
		d, err := parseJSONC([]byte(src))
		if err == nil {
			_, err = d.set([]string{"mcpServers", "cad"}, 1)
		}
		if err == nil {
			t.Errorf("%s: no error", src)
		}
	}
}

// TestJSONUpdateKeepsUserEnv: an update sets the bridge's variables and
// keeps the user's own (a proxy) and the entry's other fields.
func TestJSONUpdateKeepsUserEnv(t *testing.T) {
	src := `{"mcpServers": {"cad": {"command": "/old", "disabled": true, "env": {"HTTPS_PROXY": "http://proxy:3128", "CAD_MCP_OLD": "1", "CAD_MCP_PORT": "1"}}}}`
	out, _, err := jsonSet([]byte(src), []string{"mcpServers", "cad"}, Lookup("claude-desktop"), bridge)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := parseJSONC(out)
	got := jsonServers(d, d.lookup([]string{"mcpServers"}))["cad"]
	want := map[string]string{"HTTPS_PROXY": "http://proxy:3128", "CAD_MCP_HOST": "127.0.0.1", "CAD_MCP_PORT": "8080"}
	if !cmp.Equal(got.Env, want) || !strings.Contains(string(out), `"disabled": true`) {
		t.Errorf("env %v (want %v) in\n%s", got.Env, want, out)
	}
}

// TestJSONCRemoveOnlyMemberTrailingComma: uninstall of the only entry,
// followed by a trailing comma (VS Code, Gemini CLI, Zed and OpenCode
// read those, and people write them), leaves a file that parses: the
// comma goes with the entry ("{,}" was left, which no client reads).
func TestJSONCRemoveOnlyMemberTrailingComma(t *testing.T) {
	for src, want := range map[string]string{
		"{\n  \"servers\": {\n    \"cad\": {\"command\": \"x\"},\n  },\n}\n": "{\n  \"servers\": {\n  },\n}\n",
		`{"servers": {"cad": {"url": "u",},},}`:                              `{"servers": {},}`,
		`{"servers": {"cad": 1 ,}}`:                                          `{"servers": {}}`,
		"{\"servers\": {\n  \"cad\": 1, // mine\n}}":                         "{\"servers\": { // mine\n}}",
		"{\r\n  \"servers\": {\r\n    \"cad\": 1,\r\n  }\r\n}\r\n":           "{\r\n  \"servers\": {\r\n  }\r\n}\r\n",
	} {
		d, err := parseJSONC([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		out, ok := d.remove([]string{"servers", "cad"})
		if _, err := parseJSONC(out); !ok || err != nil || string(out) != want {
			t.Errorf("removing cad from %q: %q (%v, %v), want %q", src, out, ok, err, want)
		}
	}
}
