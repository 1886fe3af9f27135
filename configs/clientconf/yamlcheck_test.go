package clientconf

// A second reader for every YAML edit the tests make. The editor's library
// (goccy/go-yaml) and the clients' own readers do not agree on every file:
// Goose reads its file with a libyaml port (serde_yaml), and a line break,
// comment or indentation one reads one way and the other another way
// could make an edit of our entry take a user's key with it, or leave our
// entry where the client does not look. An edit the editor writes must
// read, with gopkg.in/yaml.v3 (a libyaml port as well, independent of the
// editor), the same as the file before it everywhere but in our entry, and
// our entry as what was meant. FuzzYAMLInstall holds every edit to this;
// the forms it found the readers disagree on, the editor now refuses
// itself (yaml.go: misread), without a second library in the product.

import (
	"fmt"
	"reflect"
	"strings"

	yamlv3 "gopkg.in/yaml.v3"
)

// yamlCrossCheck checks out, the file src after install (s set) or
// uninstall (s nil) of the server name, with the second reader.
func yamlCrossCheck(src, out []byte, c *Client, name string, s *Server) error {
	before, err := secondRead(src)
	if err != nil {
		return err
	}
	after, err := secondRead(out)
	if err != nil {
		return err
	}
	key := c.ServersKey()
	for k := range union(before, after) {
		if k != key && !reflect.DeepEqual(before[k], after[k]) && !(before == nil && newFileKey(c, k, after[k])) {
			return errReadersDisagree
		}
	}
	oldOthers, old, err := secondEntries(c, before[key], name)
	if err != nil {
		return err
	}
	newOthers, entry, err := secondEntries(c, after[key], name)
	if err != nil || !reflect.DeepEqual(oldOthers, newOthers) {
		return errReadersDisagree
	}
	if s == nil {
		if entry != nil {
			return errReadersDisagree
		}
		return nil
	}
	if entry == nil || entry[c.commandKey()] != s.Command || c.Type != "" && entry["type"] != c.Type {
		return errReadersDisagree
	}
	args, _ := entry["args"].([]any)
	if len(args) != len(s.Args) {
		return errReadersDisagree
	}
	for i, a := range s.Args {
		if args[i] != a {
			return errReadersDisagree
		}
	}
	env, _ := entry[c.envKey()].(map[string]any)
	oldEnv, _ := old[c.envKey()].(map[string]any)
	for k, v := range env {
		want, ours := s.Env[k]
		switch {
		case ours && v != want:
			return errReadersDisagree
		case !ours && (strings.HasPrefix(k, "CAD_MCP_") || !reflect.DeepEqual(v, oldEnv[k])):
			return errReadersDisagree
		}
	}
	for k := range s.Env {
		if _, ok := env[k]; !ok {
			return errReadersDisagree
		}
	}
	for k := range oldEnv {
		if _, ok := env[k]; !ok && !strings.HasPrefix(k, "CAD_MCP_") {
			return fmt.Errorf("%w (the variable %s would be lost)", errReadersDisagree, k)
		}
	}
	for k, v := range old {
		if k != c.commandKey() && k != "args" && k != "type" && k != c.envKey() && !reflect.DeepEqual(v, entry[k]) {
			return fmt.Errorf("%w (the member %s of %s would change)", errReadersDisagree, k, name)
		}
	}
	return nil
}

// secondRead is the document as the second reader sees it: a mapping with
// every key made a string (8 and 8.0 stay two keys), or nil when empty.
func secondRead(b []byte) (map[string]any, error) {
	var v any
	if err := yamlv3.Unmarshal(b, &v); err != nil {
		return nil, errReadersDisagree
	}
	if v == nil {
		return nil, nil
	}
	m, ok := stringKeyed(v).(map[string]any)
	if !ok {
		return nil, errReadersDisagree
	}
	return m, nil
}

// stringKeyed is a deep copy of a decoded document (the second reader's,
// or the TOML oracle's) with every mapping keyed by strings: a key that is
// not one (0: …) is named with its type, so that 8 and 8.0 stay two keys.
func stringKeyed(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = stringKeyed(x)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			key, ok := k.(string)
			if !ok {
				key = fmt.Sprintf("%T %v", k, k)
			}
			out[key] = stringKeyed(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = stringKeyed(x)
		}
		return out
	case []map[string]any: // TOML's array of tables
		out := make([]map[string]any, len(v))
		for i, x := range v {
			out[i] = stringKeyed(x).(map[string]any)
		}
		return out
	}
	return v
}

// secondEntries splits the servers value into the entry called name (nil
// when there is none) and everything else, as comparable values. An empty
// value (nothing, {} or []) has no servers.
func secondEntries(c *Client, servers any, name string) (others any, entry map[string]any, err error) {
	switch v := servers.(type) {
	case nil:
		return nil, nil, nil
	case []any:
		if !c.YAMLList {
			break
		}
		var rest []any
		for _, item := range v {
			if m, ok := item.(map[string]any); ok && m["name"] == name {
				if entry != nil {
					return nil, nil, errReadersDisagree // two of ours
				}
				entry = m
				continue
			}
			rest = append(rest, item)
		}
		if len(rest) == 0 {
			return nil, entry, nil
		}
		return rest, entry, nil
	case map[string]any:
		if c.YAMLList {
			if len(v) == 0 {
				return nil, nil, nil // "{}" where a list goes: no servers either way
			}
			break
		}
		rest := map[string]any{}
		for k, x := range v {
			if k == name {
				m, ok := x.(map[string]any)
				if !ok {
					return nil, nil, errReadersDisagree
				}
				entry = m
				continue
			}
			rest[k] = x
		}
		if len(rest) == 0 {
			return nil, entry, nil
		}
		return rest, entry, nil
	}
	if l, ok := servers.([]any); ok && len(l) == 0 {
		return nil, nil, nil
	}
	return nil, nil, errReadersDisagree
}

// newFileKey: k: v is what a new file of the client's starts with.
func newFileKey(c *Client, k string, v any) bool {
	for _, x := range c.NewFile {
		if x.k == k && fmt.Sprint(x.v) == fmt.Sprint(v) {
			return true
		}
	}
	return false
}

func union(a, b map[string]any) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
