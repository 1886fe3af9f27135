package clientconf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// jsonFormat is a JSON file, strict or with comments, edited in place by
// the span-keeping document of jsonc.go: one member set or removed, every
// other byte kept.
type jsonFormat struct {
	// comments: the client reads comments and trailing commas (JSONC),
	// which stay; without, it reads strict JSON, and a file with either
	// is refused, since the client cannot read it now and an entry added
	// to it would not make it readable.
	comments bool
}

// parse reads src for an edit.
func (j jsonFormat) parse(c *Client, src []byte) (*jsoncDoc, error) {
	d, err := parseJSONC(src)
	if err == nil && !j.comments {
		err = checkStrict(c, d)
	}
	return d, err
}

func (j jsonFormat) set(f File, src []byte, name string, s Server) ([]byte, bool, error) {
	d, err := j.parse(f.Client, src)
	if err != nil {
		return nil, false, err
	}
	return jsonSet(src, append(serversKey(f, d), name), f.Client, s)
}

func (j jsonFormat) remove(f File, src []byte, name string) ([]byte, bool, error) {
	d, err := j.parse(f.Client, src)
	if err != nil {
		return nil, false, err
	}
	out, ok := d.remove(append(serversKey(f, d), name))
	return out, ok, nil
}

// servers reads the file as the client does, comments or not: doctor
// reports what is there.
func (jsonFormat) servers(f File, src []byte) ([]entriesAt, error) {
	d, err := parseJSONC(src)
	if err != nil {
		return nil, err
	}
	key := serversKey(f, d)
	out := []entriesAt{{key, jsonServers(d, d.lookup(key))}}
	if f.projects {
		if projects := d.lookup([]string{"projects"}); projects != nil && projects.object {
			for _, p := range projects.members {
				out = append(out, entriesAt{[]string{"projects", p.key, "mcpServers"}, jsonServers(d, p.value.member("mcpServers").valueOrNil())})
			}
		}
	}
	return out, nil
}

func (jsonFormat) document(c *Client, name string, s Server) (string, error) {
	return marshal(orderedObject{{c.ServersKey(), orderedObject{{name, jsonEntry(c, s)}}}}, "", "  ")
}

// serversKey is where the file keeps its servers: f.Key, or the client's
// LaterKey in a file that already has that layout (OpenCode 2's "mcp" →
// "servers"; 1.x has them right under "mcp", and a file with neither gets
// 1.x's).
func serversKey(f File, d *jsoncDoc) []string {
	if later := f.Client.LaterKey; later != nil {
		if n := d.lookup(later); n != nil && n.object {
			return append([]string(nil), later...)
		}
	}
	return append([]string(nil), f.Key...)
}

// checkStrict refuses a file with comments or trailing commas for a client
// that reads strict JSON: it cannot read that file either, and an entry
// added to it would not make it readable.
func checkStrict(c *Client, d *jsoncDoc) error {
	src := d.src
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		src = append([]byte("   "), src[3:]...)
	}
	for i := range src {
		if src[i] != d.std[i] {
			line := 1 + bytes.Count(src[:i], []byte("\n"))
			return fmt.Errorf("%s reads strict JSON, and this file has a comment or a trailing comma (line %d), so %s cannot read it now; remove it, then run install again", c.Name, line, c.Name)
		}
	}
	return nil
}

// jsonSet writes the server at path in the entry shape of client c. An
// existing entry keeps the fields install does not own (a client's own
// "disabled", "alwaysAllow", "tools", …) and environment variables other
// than CAD_MCP_*.
func jsonSet(src []byte, path []string, c *Client, s Server) ([]byte, bool, error) {
	d, err := parseJSONC(src)
	if err != nil {
		return nil, false, err
	}
	if s.URL != "" && c.URLForm == nil {
		return nil, false, fmt.Errorf("%s takes no URL entry", c.Name)
	}
	entry := d.lookup(path)
	if entry == nil || !entry.object {
		out, err := d.set(path, jsonEntry(c, s))
		return out, false, err
	}
	var old map[string]any
	_ = d.decode(entry, &old)
	sub := func(k ...string) []string { return append(append([]string(nil), path...), k...) }
	var steps []step
	if s.URL != "" {
		steps = urlSteps(c, s, old, sub)
	} else {
		steps = stdioSteps(c, s, old, sub)
	}
	out := src
	for _, st := range steps {
		d, err := parseJSONC(out)
		if err != nil {
			return nil, true, err
		}
		if st.del {
			out, _ = d.remove(st.path)
			continue
		}
		if n := d.lookup(st.path); n != nil && jsonEqual(d.std[n.start:n.end], st.value) {
			continue
		}
		if out, err = d.set(st.path, st.value); err != nil {
			return nil, true, err
		}
	}
	return out, true, nil
}

// step is one change jsonSet makes to an existing entry: a member set to
// value, or deleted.
type step struct {
	path  []string
	value any
	del   bool
}

// stdioSteps turn an existing entry into c's stdio entry for s; a URL
// entry's members go.
func stdioSteps(c *Client, s Server, old map[string]any, sub func(...string) []string) []step {
	var steps []step
	if c.Type != "" {
		steps = append(steps, step{path: sub("type"), value: c.Type})
	}
	for _, m := range commandMembers(c, s) {
		steps = append(steps, step{path: sub(m.k), value: m.v})
	}
	oldEnv, _ := old[c.envKey()].(map[string]any)
	if oldEnv == nil {
		steps = append(steps, step{path: sub(c.envKey()), value: envObject(s.Env)})
	} else {
		for _, k := range sortedKeys(s.Env) {
			steps = append(steps, step{path: sub(c.envKey(), k), value: s.Env[k]})
		}
		for k := range oldEnv {
			if _, keep := s.Env[k]; !keep && strings.HasPrefix(k, "CAD_MCP_") {
				steps = append(steps, step{path: sub(c.envKey(), k), del: true})
			}
		}
	}
	if c.URLForm != nil {
		for _, k := range urlKeys {
			steps = append(steps, step{path: sub(k), del: true})
		}
		steps = append(steps, step{path: sub("headers"), del: true})
		for _, k := range c.URLForm.URLOnly {
			steps = append(steps, step{path: sub(k), del: true})
		}
	}
	return steps
}

// urlKeys are the members clients take a server's URL in; an entry has
// one of them, its client's (clients that take two, such as Windsurf's
// "serverUrl" or "url", would read either).
var urlKeys = []string{"url", "httpUrl", "serverUrl"}

// urlSteps turn an existing entry into c's URL entry for s: the stdio
// members go, headers of the user's own other than Authorization stay.
func urlSteps(c *Client, s Server, old map[string]any, sub func(...string) []string) []step {
	var steps []step
	switch {
	case c.URLForm.Type != "":
		steps = append(steps, step{path: sub("type"), value: c.URLForm.Type})
	case c.Type != "":
		steps = append(steps, step{path: sub("type"), del: true}) // Cursor's "stdio"
	}
	steps = append(steps, step{path: sub(c.URLForm.URLKey), value: s.URL})
	for _, k := range urlKeys {
		if k != c.URLForm.URLKey {
			steps = append(steps, step{path: sub(k), del: true})
		}
	}
	oldHeaders, _ := old["headers"].(map[string]any)
	switch {
	case oldHeaders == nil && len(s.Headers) > 0:
		steps = append(steps, step{path: sub("headers"), value: envObject(s.Headers)})
	case oldHeaders != nil:
		for _, k := range sortedKeys(s.Headers) {
			steps = append(steps, step{path: sub("headers", k), value: s.Headers[k]})
		}
		if _, ok := s.Headers["Authorization"]; !ok {
			steps = append(steps, step{path: sub("headers", "Authorization"), del: true})
		}
	}
	for _, k := range append([]string{"command", "args", c.envKey()}, c.URLForm.StdioOnly...) {
		steps = append(steps, step{path: sub(k), del: true})
	}
	return steps
}

// commandMembers are "command" and "args", or for a client that takes
// them as one array, "command" alone.
func commandMembers(c *Client, s Server) []kv {
	args := s.Args
	if args == nil {
		args = []string{}
	}
	if c.CommandArray {
		return []kv{{"command", append([]string{s.Command}, args...)}}
	}
	return []kv{{"command", s.Command}, {"args", args}}
}

func jsonEqual(raw []byte, v any) bool {
	want, err := marshal(v, "", "")
	if err != nil {
		return false
	}
	var a, b any
	if parseErr := json.Unmarshal(raw, &a); parseErr != nil {
		return false
	}
	_ = json.Unmarshal([]byte(want), &b)
	x, _ := marshal(a, "", "")
	y, _ := marshal(b, "", "")
	return x == y
}

// jsonEntry is the entry in the order people expect to read it.
func jsonEntry(c *Client, s Server) orderedObject {
	var o orderedObject
	if s.URL != "" {
		if c.URLForm.Type != "" {
			o = append(o, kv{"type", c.URLForm.Type})
		}
		o = append(o, kv{c.URLForm.URLKey, s.URL})
		if len(s.Headers) > 0 {
			o = append(o, kv{"headers", envObject(s.Headers)})
		}
		return append(o, c.Extra...)
	}
	if c.Type != "" {
		o = append(o, kv{"type", c.Type})
	}
	o = append(o, commandMembers(c, s)...)
	o = append(o, kv{c.envKey(), envObject(s.Env)})
	return append(o, c.Extra...)
}

func envObject(env map[string]string) orderedObject {
	o := orderedObject{}
	for _, k := range sortedKeys(env) {
		o = append(o, kv{k, env[k]})
	}
	return o
}

// EntryJSON is the entry as install writes it, for --print-config.
func EntryJSON(c *Client, s Server) orderedObject {
	if c == nil {
		c = &Client{}
	}
	return jsonEntry(c, s)
}

// Marshal is JSON without HTML escaping (& < > stay as they are).
func Marshal(v any, indent string) (string, error) { return marshal(v, "", indent) }

// Named is the "name" member VS Code's --add-mcp wants first.
func Named(name string) orderedObject { return orderedObject{{"name", name}} }

func (m *jmember) valueOrNil() *jnode {
	if m == nil {
		return nil
	}
	return m.value
}

func jsonServers(d *jsoncDoc, n *jnode) map[string]Server {
	out := map[string]Server{}
	if n == nil || !n.object {
		return out
	}
	for _, m := range n.members {
		// "command" is a string with "args" beside it, or (OpenCode) one
		// array holding both; the variables are in "env", or (OpenCode)
		// "environment".
		var raw struct {
			Command     any
			Args        []any
			Env         map[string]any
			Environment map[string]any
			URL         string
			HTTPURL     string // Gemini CLI's Streamable HTTP
			ServerURL   string // Windsurf's
			Headers     map[string]any
		}
		// Each member by its exact name, as the client's JSON.parse reads
		// it: encoding/json's struct fields would also take "URL" for
		// "url", or "Command" for "command", which the client ignores.
		var members map[string]json.RawMessage
		if d.decode(m.value, &members) != nil {
			continue
		}
		bad := false
		for k, v := range map[string]any{"command": &raw.Command, "args": &raw.Args, "env": &raw.Env, "environment": &raw.Environment,
			"url": &raw.URL, "httpUrl": &raw.HTTPURL, "serverUrl": &raw.ServerURL, "headers": &raw.Headers} {
			if b, ok := members[k]; ok && json.Unmarshal(b, v) != nil {
				bad = true
			}
		}
		if bad {
			continue
		}
		s := Server{Env: map[string]string{}, URL: raw.HTTPURL}
		for _, u := range []string{raw.URL, raw.ServerURL} {
			if s.URL == "" {
				s.URL = u
			}
		}
		for k, v := range raw.Headers {
			if str, ok := v.(string); ok {
				if s.Headers == nil {
					s.Headers = map[string]string{}
				}
				s.Headers[k] = str
			}
		}
		args := raw.Args
		switch cmd := raw.Command.(type) {
		case string:
			s.Command = cmd
		case []any:
			if len(cmd) > 0 {
				s.Command, _ = cmd[0].(string)
				args = cmd[1:]
			}
		}
		for _, a := range args {
			if str, ok := a.(string); ok {
				s.Args = append(s.Args, str)
			}
		}
		for _, env := range []map[string]any{raw.Environment, raw.Env} {
			for k, v := range env {
				if str, ok := v.(string); ok {
					s.Env[k] = str
				}
			}
		}
		out[m.key] = s
	}
	return out
}
