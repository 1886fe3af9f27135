package clientconf

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	yamlv3 "gopkg.in/yaml.v3"
)

// yamlOracle reads YAML with a second, independent parser (gopkg.in/yaml.v3),
// so that the editor's own parser is not the judge of its output.
func yamlOracle(src []byte) (map[string]any, error) {
	var v map[string]any
	err := yamlv3.Unmarshal(src, &v)
	if err != nil {
		return nil, err
	}
	out, _ := stringKeyed(v).(map[string]any)
	return out, nil
}

// oracleEntries is the client's servers as the oracle reads them, by name.
func oracleEntries(c *Client, doc map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	switch container := doc[c.ServersKey()].(type) {
	case []any:
		for _, item := range container {
			if m, ok := item.(map[string]any); ok {
				if n, ok := m["name"].(string); ok {
					out[n] = m
				}
			}
		}
	case map[string]any:
		for k, v := range container {
			if m, ok := v.(map[string]any); ok {
				out[k] = m
			}
		}
	}
	return out
}

// FuzzYAMLInstall: for Continue's and Goose's files, if the input parses,
// install either refuses it (nothing written) or writes a file that
// parses, in which every other key and every other server keeps its
// value, our entry has exactly what we wrote (the user's own members and
// variables kept), and uninstall gives back the input's value; install and
// uninstall each read the same to the second reader (yamlCrossCheck).
func FuzzYAMLInstall(f *testing.F) {
	for _, c := range []*Client{Lookup("goose"), Lookup("continue")} {
		f.Add(c.ID == "goose", existing(c))
	}
	for _, s := range []string{
		"", "# only a comment\n", "{}", "extensions:\n", "extensions: {}\n", "mcpServers: []\n",
		"extensions:\n  cad:\n    cmd: x\n    envs:\n      KEEP: '1'\n      CAD_MCP_OLD: '2'\n    enabled: false\n",
		"mcpServers:\n  - name: cad\n    command: x\n    env: {KEEP: \"1\", CAD_MCP_OLD: \"2\"}\n    disabled: true\n",
		"a: &x {b: 1}\nc: *x\nextensions: {other: {cmd: y}}\n", "extensions: [1, 2]\n", "- a\n- b\n",
		"a: 1\r\nextensions:\r\n  o:\r\n    cmd: z\r\n", "mcpServers:\n- name: o\n  command: z\n# tail\n",
		"k: |\n  text\n  more\nextensions:\n  o: {cmd: z}\n", "extensions: !!map {}\n", "\"quoted key\": 1\nextensions: {}\n",
		"mcpServers:\n- name: cad\n  command: x\n  args: [connect, u]\n  env: {}\n", "extensions:\n  cad:\n    cmd: x\n    envs: {CAD_MCP_PORT: \"1\"}\n",
	} {
		f.Add(strings.HasPrefix(s, "extensions") || strings.Contains(s, "\nextensions"), s)
	}
	f.Fuzz(func(t *testing.T, goose bool, src string) {
		c := Lookup("continue")
		if goose {
			c = Lookup("goose")
		}
		before, err := yamlOracle([]byte(src))
		if err != nil {
			return
		}
		out, _, err := yamlSet([]byte(src), c, "cad", bridge)
		if err != nil {
			return
		}
		after, err := yamlOracle(out)
		if err != nil {
			t.Fatalf("install wrote YAML the oracle cannot read: %v\n%s\nfrom %q", err, out, src)
		}
		for k, v := range before {
			if k != c.ServersKey() && !cmp.Equal(v, after[k]) {
				t.Fatalf("install changed %q: %v → %v\n%s", k, v, after[k], out)
			}
		}
		oldEntries, newEntries := oracleEntries(c, before), oracleEntries(c, after)
		for n, e := range oldEntries {
			if n != "cad" && !cmp.Equal(e, newEntries[n]) {
				t.Fatalf("install changed the server %q: %v → %v\n%s", n, e, newEntries[n], out)
			}
		}
		got, ok := newEntries["cad"]
		if !ok {
			t.Fatalf("no entry in\n%s\nfrom %q", out, src)
		}
		env, _ := got[c.envKey()].(map[string]any)
		if got[c.commandKey()] != bridge.Command || !cmp.Equal(got["args"], []any{bridge.Args[0], bridge.Args[1]}) ||
			env["CAD_MCP_HOST"] != "127.0.0.1" || env["CAD_MCP_PORT"] != "8080" {
			t.Fatalf("entry %v in\n%s", got, out)
		}
		if old, ok := oldEntries["cad"]; ok {
			oldEnv, _ := old[c.envKey()].(map[string]any)
			for k, v := range oldEnv {
				if !strings.HasPrefix(k, "CAD_MCP_") && !cmp.Equal(env[k], v) {
					t.Fatalf("the user's variable %s=%v became %v in\n%s", k, v, env[k], out)
				}
				if strings.HasPrefix(k, "CAD_MCP_") && k != "CAD_MCP_HOST" && k != "CAD_MCP_PORT" && env[k] != nil {
					t.Fatalf("the old variable %s stayed in\n%s", k, out)
				}
			}
			for k, v := range old {
				if k != c.envKey() && k != c.commandKey() && k != "args" && k != "type" && !cmp.Equal(v, got[k]) {
					t.Fatalf("the user's member %s=%v became %v in\n%s", k, v, got[k], out)
				}
			}
		}
		if err := yamlCrossCheck([]byte(src), out, c, "cad", &bridge); err != nil {
			t.Fatalf("install: %v\n%s\nfrom %q", err, out, src)
		}
		back, removed, err := yamlRemove(out, c, "cad")
		if err != nil || !removed {
			t.Fatalf("uninstall: %v %v\n%s", removed, err, out)
		}
		if err := yamlCrossCheck(out, back, c, "cad", nil); err != nil {
			t.Fatalf("uninstall: %v\n%s\nfrom %q", err, back, out)
		}
		restored, err := yamlOracle(back)
		if err != nil {
			t.Fatalf("uninstall wrote YAML the oracle cannot read: %v\n%s", err, back)
		}
		if _, had := oldEntries["cad"]; !had && len(oldEntries) > 0 && !cmp.Equal(before, restored) {
			t.Fatalf("uninstall did not give back the input (-want +got):\n%s", cmp.Diff(before, restored))
		}
	})
}

// FuzzYAMLUninstall: for Continue's and Goose's files, if the input
// parses, uninstall either leaves it as it is or writes a file in which,
// to the second reader (yamlCrossCheck), only our entry went. (Install's
// own output is uninstalled in FuzzYAMLInstall; this is every other file.)
func FuzzYAMLUninstall(f *testing.F) {
	for _, c := range []*Client{Lookup("goose"), Lookup("continue")} {
		f.Add(c.ID == "goose", existing(c))
	}
	for _, s := range []string{
		"extensions:\n  cad:\n    cmd: x\n  other:\n    cmd: y\n", "extensions:\n  cad: {cmd: x}\n",
		"mcpServers:\n- name: cad\n  command: x\n- name: o\n  command: y\n", "mcpServers:\n  - name: cad # ours\n    command: x\n",
		"k: 1\nextensions:\n  cad:\n    cmd: x\n    args: !t\n     mine: 1\nz: 2\n",
	} {
		f.Add(strings.HasPrefix(s, "extensions") || strings.Contains(s, "\nextensions"), s)
	}
	f.Fuzz(func(t *testing.T, goose bool, src string) {
		c := Lookup("continue")
		if goose {
			c = Lookup("goose")
		}
		if _, err := yamlOracle([]byte(src)); err != nil {
			return
		}
		out, removed, err := yamlRemove([]byte(src), c, "cad")
		if err != nil || !removed {
			return
		}
		if err := yamlCrossCheck([]byte(src), out, c, "cad", nil); err != nil {
			t.Fatalf("uninstall: %v\n%s\nfrom %q", err, out, src)
		}
	})
}

// TestYAMLUpdates: re-installing over an entry the user changed sets the
// bridge's members and variables, keeps the user's own, and leaves the
// user's lines as they were.
func TestYAMLUpdates(t *testing.T) {
	goose := Lookup("goose")
	for _, src := range []string{
		"extensions:\n  cad:\n    cmd: /old\n    envs:\n      CAD_MCP_OLD: '2'\n    enabled: false\n",
		"extensions:\n  cad:\n    cmd: /old\n    envs:\n      KEEP:   'a'    # mine\n      CAD_MCP_OLD: '2'\n      ZED: z\n    enabled: false\nother: 1\n",
		"extensions:\n  cad:\n    cmd: /old\n    timeout:   600   # longer\n",
		"extensions:\n  cad:\n    envs: {KEEP: a}\n    cmd: /old\n",
	} {
		out, existed, err := yamlSet([]byte(src), goose, "cad", bridge)
		if err != nil || !existed {
			t.Errorf("%q: %v %v", src, existed, err)
			continue
		}
		before, _ := yamlOracle([]byte(src))
		after, err := yamlOracle(out)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		old := oracleEntries(goose, before)["cad"]
		got := oracleEntries(goose, after)["cad"]
		env, _ := got["envs"].(map[string]any)
		oldEnv, _ := old["envs"].(map[string]any)
		if got["cmd"] != bridge.Command || env["CAD_MCP_PORT"] != "8080" || env["CAD_MCP_OLD"] != nil || oldEnv["KEEP"] != nil && env["KEEP"] != oldEnv["KEEP"] || old["enabled"] != got["enabled"] || old["timeout"] != nil && old["timeout"] != got["timeout"] {
			t.Errorf("from %q:\n%s", src, out)
		}
		for _, keep := range []string{"KEEP:   'a'    # mine", "timeout:   600   # longer", "other: 1"} {
			if strings.Contains(src, keep) && !strings.Contains(string(out), keep) {
				t.Errorf("the line %q was rewritten:\n%s", keep, out)
			}
		}
	}
}

// TestYAMLFlowStyle: an empty flow collection ("extensions: {}", what a
// client may write for none) gets the entry as a block; a flow collection
// with servers in it is refused and left as it is, install and uninstall.
func TestYAMLFlowStyle(t *testing.T) {
	for _, c := range []*Client{Lookup("goose"), Lookup("continue")} {
		empty := "a: 1\n" + c.ServersKey() + ": {}\nz: 2\n"
		if c.YAMLList {
			empty = "a: 1\n" + c.ServersKey() + ":\nz: 2\n"
		}
		out, _, err := yamlSet([]byte(empty), c, "cad", bridge)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		if doc, err := yamlOracle(out); err != nil || oracleEntries(c, doc)["cad"] == nil || !strings.HasPrefix(string(out), "a: 1\nz: 2\n"+c.ServersKey()+":\n") {
			t.Errorf("%s: %v\n%s", c.ID, err, out)
		}
		back, _, err := yamlRemove(out, c, "cad")
		if doc, _ := yamlOracle(back); err != nil || len(oracleEntries(c, doc)) != 0 || doc["a"] != 1 {
			t.Errorf("%s: uninstall %v\n%s", c.ID, err, back)
		}
		full := "a: 1\n" + c.ServersKey() + ": {o: {cmd: x}, cad: {cmd: y}}\n"
		if c.YAMLList {
			full = "a: 1\n" + c.ServersKey() + ": [{name: o, command: x}, {name: cad, command: y}]\n"
		}
		if _, _, err := yamlSet([]byte(full), c, "cad", bridge); err == nil || !strings.Contains(err.Error(), "flow style") {
			t.Errorf("%s: install into a flow collection: %v", c.ID, err)
		}
		if _, _, err := yamlRemove([]byte(full), c, "cad"); err == nil || !strings.Contains(err.Error(), "flow style") {
			t.Errorf("%s: uninstall from a flow collection: %v", c.ID, err)
		}
	}
}

// TestYAMLAnchorsChangeNothingElse: anchors, aliases and merge keys where
// install would write make the edit mean something else (the servers
// anchored and aliased by another key would gain ours too; an entry that
// takes its members from "<<: *base" would not read as what we wrote):
// install refuses and leaves the file as it is.
func TestYAMLAnchorsChangeNothingElse(t *testing.T) {
	goose := Lookup("goose")
	for _, src := range []string{
		"extensions: &ext\n  o:\n    cmd: x\nprofiles:\n  work: *ext\n",
		"base: &b\n  cmd: x\nextensions:\n  cad:\n    <<: *b\n    envs:\n      K: v\n",
	} {
		if out, _, err := yamlSet([]byte(src), goose, "cad", bridge); err == nil {
			t.Errorf("install into %q:\n%s", src, out)
		}
	}
}

// TestYAMLSwitchesForms: Continue and Goose switched between the bridge's
// entry and connect's (install --url --fingerprint), whose empty
// environment is written "env: {}", and back: each install succeeds (the
// library failed on block text in place of a flow "{}"), and the entry
// reads as the one installed, with the oracle too. A user's flow-style
// environment of CAD_MCP_* only is edited the same way.
func TestYAMLSwitchesForms(t *testing.T) {
	connectEntry := Server{Command: bridge.Command, Args: []string{"connect", remoteURL}}
	other := Server{Command: bridge.Command, Env: map[string]string{"CAD_MCP_PORT": "9000"}}
	for _, c := range []*Client{Lookup("continue"), Lookup("goose")} {
		var src []byte
		for i, s := range []Server{bridge, connectEntry, bridge, other, connectEntry, other} {
			out, _, err := yamlSet(src, c, "cad", s)
			if err != nil {
				t.Fatalf("%s step %d (%v): %v\n%s", c.ID, i, s.Args, err, src)
			}
			got, _ := yamlServers(out, c)
			if g := got["cad"]; g.Command != s.Command || !cmp.Equal(g.Args, s.Args, cmpopts.EquateEmpty()) || !cmp.Equal(g.Env, s.Env, cmpopts.EquateEmpty()) {
				t.Errorf("%s step %d: entry %+v, want %+v\n%s", c.ID, i, g, s, out)
			}
			if _, err := yamlOracle(out); err != nil {
				t.Errorf("%s step %d: the oracle cannot read it: %v\n%s", c.ID, i, err, out)
			}
			src = out
		}
	}
}

// TestYAMLEmptyKeyKeepsComments: an empty servers key that install turns
// into a block keeps its comments: the one on its line ("extensions: {} #
// note", "extensions: # note"; Continue's "mcpServers: [] # note"), which
// went, and the one above it, which stays above the key; uninstall
// keeps them too. A file that holds only the key gets the block at the
// left margin, as a new file does.
func TestYAMLEmptyKeyKeepsComments(t *testing.T) {
	for _, c := range []*Client{Lookup("goose"), Lookup("continue")} {
		k := c.ServersKey()
		empty := "{}"
		if c.YAMLList {
			empty = "[]"
		}
		for _, src := range []string{
			"a: 1\n" + k + ": " + empty + " # note\nz: 2\n",
			"a: 1\n" + k + ": # note\nz: 2\n",
			"a: 1\n" + k + ": # note\n",
			"a: 1\n# above\n" + k + ": " + empty + "\nz: 2\n",
			"a: 1\n# above\n" + k + ":\nz: 2\n",
			"a: 1\n# above\n" + k + ": " + empty + " # note\nz: 2\n",
			// The key alone in the file: the block came out indented by
			// ten spaces.
			k + ": " + empty + " # note\n",
			k + ":\n",
			"# above\n" + k + ": " + empty + "\n",
		} {
			out, _, err := yamlSet([]byte(src), c, "cad", bridge)
			if err != nil {
				t.Errorf("%s %q: %v", c.ID, src, err)
				continue
			}
			if doc, err := yamlOracle(out); err != nil || oracleEntries(c, doc)["cad"] == nil || strings.HasPrefix(src, "a: 1") && doc["a"] != 1 {
				t.Errorf("%s %q: the entry does not read back: %v\n%s", c.ID, src, err, out)
			}
			back, _, err := yamlRemove(out, c, "cad")
			if err != nil {
				t.Errorf("%s %q: uninstall: %v\n%s", c.ID, src, err, out)
			}
			for _, b := range [][]byte{out, back} {
				if first, _, _ := strings.Cut(string(b), "\n"); first != strings.TrimLeft(first, " ") {
					t.Errorf("%s %q: the document is indented:\n%s", c.ID, src, b)
				}
			}
			if strings.Contains(src, "# note") {
				// The comment stays with the key: on its line or the next.
				if !strings.Contains(string(out), k+":\n# note\n") && !strings.Contains(string(out), k+":\n  # note\n") && !strings.Contains(string(out), k+": # note\n") {
					t.Errorf("%s %q: the comment on the key's line went:\n%s", c.ID, src, out)
				}
				if !strings.Contains(string(back), "# note") {
					t.Errorf("%s %q: uninstall dropped the comment:\n%s", c.ID, src, back)
				}
			}
			if strings.Contains(src, "# above") {
				if !strings.Contains(string(out), "# above\n"+k+":") {
					t.Errorf("%s %q: the comment above the key is not above it:\n%s", c.ID, src, out)
				}
				if !strings.Contains(string(back), "# above\n"+k+":") {
					t.Errorf("%s %q: uninstall dropped the comment above the key:\n%s", c.ID, src, back)
				}
			}
		}
	}
}

// TestYAMLOddLineBreaks: a lone CR, NEL, LS or PS ends a line for the
// clients' YAML readers (and the oracle) but not for the editor's library,
// which reads the next line as part of the value before it. Updating that
// value would take the user's next key out with it; install and uninstall
// leave such a file as it is, whichever break it holds and wherever. The
// same file with LF or CRLF line ends is edited, key kept.
func TestYAMLOddLineBreaks(t *testing.T) {
	goose := Lookup("goose")
	for _, brk := range []string{"\r", "\u0085", "\u2028", "\u2029", "\n", "\r\n"} {
		src := "extensions:\n  cad:\n    cmd: x # note" + brk + "keep: {0: 0}\n"
		before, err := yamlOracle([]byte(src))
		if err != nil || before["keep"] == nil {
			t.Fatalf("%q: the oracle reads %v (%v)", brk, before, err)
		}
		out, _, err := yamlSet([]byte(src), goose, "cad", bridge)
		_, _, rmErr := yamlRemove([]byte(src), goose, "cad")
		if brk == "\n" || brk == "\r\n" {
			after, _ := yamlOracle(out)
			if err != nil || rmErr != nil || !cmp.Equal(before["keep"], after["keep"]) {
				t.Errorf("%q: install %v, uninstall %v:\n%s", brk, err, rmErr, out)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "line break") || out != nil {
			t.Errorf("install with %q: %v\n%s", brk, err, out)
		}
		if rmErr == nil || !strings.Contains(rmErr.Error(), "line break") {
			t.Errorf("uninstall with %q: %v", brk, rmErr)
		}
	}
}

// TestYAMLReadersDisagree: a file the editor's library reads one way and a
// libyaml reader (Goose's, and the second reader's) another is left as it
// is, with a message: where the library's tree does not nest as the
// indentation does, at the document's keys or in the entry install edits
// member by member (one column either side), and a file the library reads
// as empty that holds more than comments. The first input was found by
// the fuzz test: an install whose entry the second reader does not find.
// The same files one column over are edited, and read alike by both.
func TestYAMLReadersDisagree(t *testing.T) {
	for _, tc := range []struct {
		client, src string
		refused     bool
	}{
		{"continue", " 0:0:-: !\n0 A: &!\n - 1 10 A:n >1,!\n - 1 10: 0,]\n ", true},
		{"continue", " a: !t\nb:\n - 1\n", true},                                        // b is the document's, not a's
		{"continue", " a: !t\n  b:\n   - 1\n", false},                                   // b is a's
		{"goose", "extensions:\n  cad:\n    cmd: x\n    args: !t\n    mine: 1\n", true}, // mine is the entry's, not args'
		{"goose", "extensions:\n  cad:\n    cmd: x\n    args: !t\n     mine: 1\n", false},
		{"goose", "!\t:", true}, // a key with no name to libyaml, nothing to the library
		{"goose", "\n\n", false},
	} {
		c := Lookup(tc.client)
		out, _, err := yamlSet([]byte(tc.src), c, "cad", bridge)
		switch {
		case tc.refused && (!errors.Is(err, errReadersDisagree) || out != nil):
			t.Errorf("%s install into %q: %v\n%s", tc.client, tc.src, err, out)
		case !tc.refused && err != nil:
			t.Errorf("%s install into %q: %v", tc.client, tc.src, err)
		case !tc.refused:
			if err := yamlCrossCheck([]byte(tc.src), out, c, "cad", &bridge); err != nil {
				t.Errorf("%s install into %q: %v\n%s", tc.client, tc.src, err, out)
			}
		}
	}
	// The check itself, one member either side: the entry as meant passes;
	// a user's member changed, a user's variable lost, a bridge variable
	// left over, another key changed, each fails.
	goose := Lookup("goose")
	src := []byte("k: 1\nextensions:\n  cad:\n    cmd: old\n    mine: 2\n    envs:\n      KEEP: a\n      CAD_MCP_OLD: b\n")
	good := "k: 1\nextensions:\n  cad:\n    cmd: '" + bridge.Command + "'\n    mine: 2\n    envs:\n      KEEP: a\n      CAD_MCP_HOST: 127.0.0.1\n      CAD_MCP_PORT: \"8080\"\n    type: stdio\n    args: [--log-file, /var/log/b & c.log]\n"
	if err := yamlCrossCheck(src, []byte(good), goose, "cad", &bridge); err != nil {
		t.Fatalf("the entry as meant: %v", err)
	}
	for _, bad := range []string{
		strings.Replace(good, "mine: 2", "mine: 3", 1),
		strings.Replace(good, "      KEEP: a\n", "", 1),
		strings.Replace(good, "      KEEP: a\n", "      KEEP: a\n      CAD_MCP_OLD: b\n", 1),
		strings.Replace(good, "k: 1", "k: 2", 1),
		strings.Replace(good, "CAD_MCP_PORT: \"8080\"", "CAD_MCP_PORT: \"8081\"", 1),
		strings.Replace(good, "/var/log/b & c.log]", "/var/log/b & c.log, x]", 1),
		good + "extra: 1\n",
	} {
		if err := yamlCrossCheck(src, []byte(bad), goose, "cad", &bridge); !errors.Is(err, errReadersDisagree) {
			t.Errorf("passed:\n%s", bad)
		}
	}
}
