package clientconf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Codex keeps its servers in TOML, one table per server:
//
//	[mcp_servers.cad-autocad]
//	command = "/usr/local/bin/mcp-bridge"
//	args = []
//	env = { CAD_MCP_HOST = "127.0.0.1", CAD_MCP_PORT = "8080" }
//
// This is not a TOML library: it finds the [mcp_servers.NAME] table (and
// its sub-tables) by their header lines, replaces or removes those lines,
// and leaves every other line as it was. It reads the few value forms a
// server entry uses (strings, arrays of strings, inline tables of strings).

type tomlLine struct {
	start, end int      // byte span, newline included
	header     []string // the table path when the line is a [table] header
	array      bool     // [[array of tables]]
}

// Compiled on first use, not at start-up: the bridge itself never edits
// TOML, and every process would pay for them.
var (
	headerRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(\[\[?)\s*([^\[\]]+?)\s*(\]\]?)\s*(#.*)?$`)
	})
	bareKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })
)

func tomlLines(src []byte) ([]tomlLine, error) {
	var out []tomlLine
	inMulti := "" // inside a multi-line string: its delimiter
	depth := 0    // inside a multi-line array or inline table
	for off := 0; off < len(src); {
		end := bytes.IndexByte(src[off:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += off + 1
		}
		line := string(bytes.TrimRight(src[off:end], "\r\n"))
		l := tomlLine{start: off, end: end}
		if inMulti != "" {
			if strings.Count(line, inMulti)%2 == 1 {
				inMulti = ""
			}
		} else if m := headerRE().FindStringSubmatch(line); m != nil && strings.HasPrefix(strings.TrimSpace(line), "[") {
			if len(m[1]) != len(m[3]) {
				return nil, fmt.Errorf("line %q: unbalanced brackets", line)
			}
			keys, err := splitKey(m[2])
			if err != nil {
				return nil, fmt.Errorf("line %q: %v", line, err)
			}
			l.header, l.array = keys, len(m[1]) == 2
		} else if strings.HasPrefix(strings.TrimSpace(line), "[") && depth == 0 {
			return nil, fmt.Errorf("line %q: not a table header", line)
		} else {
			t := strings.TrimSpace(line)
			if depth == 0 && t != "" && t[0] != '#' && !strings.Contains(t, "=") {
				return nil, fmt.Errorf("line %q: not key = value", line)
			}
			depth += bracketDepth(line)
			for _, q := range []string{`"""`, `'''`} {
				if strings.Count(line, q)%2 == 1 {
					inMulti = q
				}
			}
		}
		out = append(out, l)
		off = end
	}
	if inMulti != "" {
		return nil, fmt.Errorf("a multi-line string is never closed")
	}
	return out, nil
}

// bracketDepth is how many [ and { the line leaves open (outside strings
// and comments).
func bracketDepth(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '#':
			return n
		case '"', '\'':
			q := line[i]
			for i++; i < len(line) && line[i] != q; i++ {
				if q == '"' && line[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			n++
		case ']', '}':
			n--
		}
	}
	return n
}

// splitKey splits a dotted TOML key: a.b."c.d".'e'.
func splitKey(s string) ([]string, error) {
	var keys []string
	s = strings.TrimSpace(s)
	for s != "" {
		var k string
		switch s[0] {
		case '"':
			end := basicStringEnd(s)
			if end < 0 {
				return nil, fmt.Errorf("unterminated key")
			}
			u, err := strconv.Unquote(s[:end+1])
			if err != nil {
				return nil, err
			}
			k, s = u, s[end+1:]
		case '\'':
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated key")
			}
			k, s = s[1:end+1], s[end+2:]
		default:
			end := strings.IndexByte(s, '.')
			if end < 0 {
				end = len(s)
			}
			k, s = strings.TrimSpace(s[:end]), s[end:]
			if !bareKey().MatchString(k) {
				return nil, fmt.Errorf("bad key %q", k)
			}
		}
		keys = append(keys, k)
		s = strings.TrimSpace(s)
		if s != "" {
			if s[0] != '.' {
				return nil, fmt.Errorf("bad dotted key")
			}
			s = strings.TrimSpace(s[1:])
		}
	}
	return keys, nil
}

// basicStringEnd returns the index of the '"' that closes the basic
// string s starts with, or -1 when it is unterminated.
func basicStringEnd(s string) int {
	end := 1
	for ; end < len(s) && s[end] != '"'; end++ {
		if s[end] == '\\' {
			end++
		}
	}
	if end >= len(s) {
		return -1
	}
	return end
}

func tomlKey(k string) string {
	if bareKey().MatchString(k) {
		return k
	}
	b, _ := json.Marshal(k)
	return string(b)
}

// tomlTables is the line ranges [first, last) of the table at path and of
// its sub-tables. A table's range ends at the next header, less the
// comments and blank lines just above that header (they belong to it).
func tomlTables(lines []tomlLine, path []string) [][2]int {
	var out [][2]int
	for i, l := range lines {
		if l.header == nil || !hasPrefix(l.header, path) {
			continue
		}
		j := i + 1
		for j < len(lines) && lines[j].header == nil {
			j++
		}
		out = append(out, [2]int{i, j})
	}
	return out
}

func hasPrefix(p, prefix []string) bool {
	if len(p) < len(prefix) {
		return false
	}
	for i := range prefix {
		if p[i] != prefix[i] {
			return false
		}
	}
	return true
}

// tomlOtherForms reports whether the server is defined another way this
// editor does not rewrite (dotted keys or an inline table).
func tomlOtherForms(src []byte, lines []tomlLine, name string) bool {
	var table []string
	for _, l := range lines {
		if l.header != nil {
			table = l.header
			continue
		}
		keys, _, ok := tomlKeyValue(src, l)
		if !ok {
			continue
		}
		full := append(append([]string(nil), table...), keys...)
		if len(full) >= 2 && full[0] == "mcp_servers" && full[1] == name && len(table) < 2 {
			return true
		}
	}
	return false
}

// tomlServer renders the server's table.
func tomlServer(name string, s Server) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", tomlKey(name))
	fmt.Fprintf(&b, "command = %s\n", tomlString(s.Command))
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = tomlString(a)
	}
	fmt.Fprintf(&b, "args = [%s]\n", strings.Join(args, ", "))
	if len(s.Env) > 0 {
		keys := make([]string, 0, len(s.Env))
		for k := range s.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var kv []string
		for _, k := range keys {
			kv = append(kv, tomlKey(k)+" = "+tomlString(s.Env[k]))
		}
		fmt.Fprintf(&b, "env = { %s }\n", strings.Join(kv, ", "))
	}
	return b.String()
}

// tomlString is a basic string; JSON escapes are valid TOML escapes for
// the characters JSON escapes, except that TOML has no \u2028 issue.
func tomlString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSpace(buf.String())
}

// tomlSet replaces (or appends) the server's table.
func tomlSet(src []byte, name string, s Server) ([]byte, error) {
	lines, err := tomlLines(src)
	if err != nil {
		return nil, err
	}
	if tomlOtherForms(src, lines, name) {
		return nil, fmt.Errorf("mcp_servers.%s is written as dotted keys or an inline table; edit it by hand or remove it first", tomlKey(name))
	}
	block := tomlServer(name, s)
	ranges := tomlTables(lines, []string{"mcp_servers", name})
	if len(ranges) == 0 {
		out := append([]byte(nil), src...)
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, '\n')
		}
		if len(bytes.TrimSpace(out)) > 0 {
			out = append(out, '\n')
		}
		return append(out, block...), nil
	}
	// Keep what followed the old table's last value (blank lines, comments
	// of the next table): replace only header and key lines.
	var out []byte
	prev := 0
	for i, r := range ranges {
		first := lines[r[0]].start
		last := tableLastValue(src, lines, r)
		out = append(out, src[prev:first]...)
		if i == 0 {
			out = append(out, block...)
		}
		prev = lines[last].end
	}
	return append(out, src[prev:]...), nil
}

// tomlRemove deletes the server's table and sub-tables, and the blank line
// before them that tomlSet added.
func tomlRemove(src []byte, name string) ([]byte, bool, error) {
	lines, err := tomlLines(src)
	if err != nil {
		return nil, false, err
	}
	ranges := tomlTables(lines, []string{"mcp_servers", name})
	if len(ranges) == 0 {
		if tomlOtherForms(src, lines, name) {
			return nil, false, fmt.Errorf("mcp_servers.%s is written as dotted keys or an inline table; remove it by hand", tomlKey(name))
		}
		return src, false, nil
	}
	var out []byte
	prev := 0
	for _, r := range ranges {
		first := lines[r[0]].start
		last := tableLastValue(src, lines, r)
		end := lines[last].end
		cut := first
		// A blank line before the table goes with it when the table ended the file
		// or another blank line follows.
		if r[0] > 0 && isBlank(src, lines[r[0]-1]) && (last+1 >= len(lines) || isBlank(src, lines[last+1])) && lines[r[0]-1].start >= prev {
			cut = lines[r[0]-1].start
		}
		out = append(out, src[prev:cut]...)
		prev = end
	}
	return append(out, src[prev:]...), true, nil
}

func isBlank(src []byte, l tomlLine) bool {
	return len(bytes.TrimSpace(src[l.start:l.end])) == 0
}

// tomlKeyValue splits a key = value line into its dotted key and the
// value's text; ok is false for any other line (blank, comment, bad key).
func tomlKeyValue(src []byte, l tomlLine) (keys []string, val string, ok bool) {
	line := strings.TrimSpace(string(src[l.start:l.end]))
	eq := strings.IndexByte(line, '=')
	if eq < 0 || strings.HasPrefix(line, "#") {
		return nil, "", false
	}
	keys, err := splitKey(line[:eq])
	if err != nil {
		return nil, "", false
	}
	return keys, strings.TrimSpace(line[eq+1:]), true
}

// tableLastValue is the index of the last line of table range r that is
// neither blank nor a comment (those belong to what follows the table).
func tableLastValue(src []byte, lines []tomlLine, r [2]int) int {
	last := r[1] - 1
	for last > r[0] && isBlankOrComment(src, lines[last]) {
		last--
	}
	return last
}

func isBlankOrComment(src []byte, l tomlLine) bool {
	t := bytes.TrimSpace(src[l.start:l.end])
	return len(t) == 0 || t[0] == '#'
}

// tomlServers reads every [mcp_servers.X] table's command, args and env.
func tomlServers(src []byte) (map[string]Server, error) {
	lines, err := tomlLines(src)
	if err != nil {
		return nil, err
	}
	out := map[string]Server{}
	var table []string
	for _, l := range lines {
		if l.header != nil {
			table = l.header
			if len(table) == 2 && table[0] == "mcp_servers" {
				if _, ok := out[table[1]]; !ok {
					out[table[1]] = Server{Env: map[string]string{}}
				}
			}
			continue
		}
		if len(table) < 2 || table[0] != "mcp_servers" {
			continue
		}
		keys, val, ok := tomlKeyValue(src, l)
		if !ok {
			continue
		}
		full := append(append([]string(nil), table[1:]...), keys...)
		s := out[full[0]]
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		switch {
		case len(full) == 2 && full[1] == "command":
			s.Command, _ = tomlParseString(val)
		case len(full) == 2 && full[1] == "args":
			s.Args = tomlParseStrings(val)
		case len(full) == 2 && full[1] == "env":
			for k, v := range tomlParseInline(val) {
				s.Env[k] = v
			}
		case len(full) == 3 && full[1] == "env":
			s.Env[full[2]], _ = tomlParseString(val)
		}
		out[full[0]] = s
	}
	return out, nil
}

// tomlParseString reads a basic or literal string at the start of s and
// returns it and the rest.
func tomlParseString(s string) (string, string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", ""
	}
	switch s[0] {
	case '"':
		end := basicStringEnd(s)
		if end < 0 {
			return "", ""
		}
		var v string
		_ = json.Unmarshal([]byte(s[:end+1]), &v)
		return v, s[end+1:]
	case '\'':
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", ""
		}
		return s[1 : end+1], s[end+2:]
	}
	return "", s
}

func tomlParseStrings(s string) []string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "[") {
		return nil
	}
	s = s[1:]
	var out []string
	for {
		s = strings.TrimLeft(s, " \t,")
		if s == "" || s[0] == ']' || s[0] == '#' {
			return out
		}
		v, rest := tomlParseString(s)
		if rest == s {
			return out
		}
		out = append(out, v)
		s = rest
	}
}

func tomlParseInline(s string) map[string]string {
	out := map[string]string{}
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") {
		return out
	}
	s = s[1:]
	for {
		s = strings.TrimLeft(s, " \t,")
		if s == "" || s[0] == '}' {
			return out
		}
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return out
		}
		keys, err := splitKey(s[:eq])
		if err != nil || len(keys) != 1 {
			return out
		}
		v, rest := tomlParseString(s[eq+1:])
		out[keys[0]] = v
		s = rest
	}
}
