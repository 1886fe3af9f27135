package clientconf

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Codex keeps its servers in TOML, one table per server:
//
//	[mcp_servers.cad-autocad]
//	command = "/usr/local/bin/mcp-bridge"
//	args = []
//	env = { CAD_MCP_HOST = "127.0.0.1", CAD_MCP_PORT = "8080" }
//
// or, for a bridge on another machine (install --url), in Codex's own
// URL form, which reads the token from the variable it names:
//
//	[mcp_servers.cad-autocad]
//	url = "https://cad-pc:8931/mcp"
//	bearer_token_env_var = "CAD_MCP_TOKEN"
//
// This is not a TOML library. A scanner splits the file into statements
// (blank and comment lines, table headers, key = value with its whole
// value, strings and multi-line arrays included), and the editor splices
// only what install owns: the values of command and args, and the CAD_MCP_*
// variables of env (or url and bearer_token_env_var), and it drops the
// keys of the entry's other form. Every other byte stays. A file in a shape it cannot
// edit safely (the servers written as an inline table or dotted keys, an
// [[array of tables]], env as dotted keys) is refused, and left as it is.
// Its tests check every edit against a real TOML parser.

// tomlFormat is Codex's config.toml, edited by the scanner and splicer
// below.
type tomlFormat struct{}

func (tomlFormat) set(f File, src []byte, name string, s Server) ([]byte, bool, error) {
	existed := false
	if servers, err := tomlServers(src); err == nil {
		_, existed = servers[name]
	}
	out, err := tomlSet(src, name, s)
	return out, existed, err
}

func (tomlFormat) remove(f File, src []byte, name string) ([]byte, bool, error) {
	return tomlRemove(src, name)
}

func (tomlFormat) servers(f File, src []byte) ([]entriesAt, error) {
	servers, err := tomlServers(src)
	if err != nil {
		return nil, fmt.Errorf("not valid TOML: %w", err)
	}
	return []entriesAt{{[]string{"mcp_servers"}, servers}}, nil
}

func (tomlFormat) document(c *Client, name string, s Server) (string, error) {
	return tomlServer(name, s), nil
}

// tomlStmt is one statement: a blank or comment line, a [table] header, or
// key = value.
type tomlStmt struct {
	start, end int      // its bytes, from its first line's start to after its last newline
	header     []string // a [table] or [[array]] header's path
	array      bool     // [[array of tables]]
	keys       []string // key = value: the dotted key
	table      []string // key = value: the table it is in (nil: the root)
	val        [2]int   // key = value: the value's bytes
	value      any      // key = value: string, []any, map[string]any, or tomlScalar
	line       int      // 1-based, for messages
}

// tomlScalar is a number, boolean or date, as written.
type tomlScalar string

// isBareKey says whether k may stand as a TOML key without quotes:
// A-Z, a-z, 0-9, _ and -, at least one.
func isBareKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if !isBareKeyByte(k[i]) {
			return false
		}
	}
	return k != ""
}

func isBareKeyByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

type tomlScanner struct {
	src  []byte
	i    int
	line int
}

func (sc *tomlScanner) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: "+format, append([]any{sc.line}, args...)...)
}

func (sc *tomlScanner) eof() bool { return sc.i >= len(sc.src) }

func (sc *tomlScanner) peek() byte {
	if sc.eof() {
		return 0
	}
	return sc.src[sc.i]
}

func (sc *tomlScanner) has(s string) bool { return bytes.HasPrefix(sc.src[sc.i:], []byte(s)) }

func (sc *tomlScanner) spaces() {
	for !sc.eof() && (sc.src[sc.i] == ' ' || sc.src[sc.i] == '\t') {
		sc.i++
	}
}

// newline consumes a line end, if one is next.
func (sc *tomlScanner) newline() bool {
	switch {
	case sc.has("\n"):
		sc.i++
	case sc.has("\r\n"):
		sc.i += 2
	default:
		return false
	}
	sc.line++
	return true
}

// blanks skips spaces, newlines and comments (inside arrays).
func (sc *tomlScanner) blanks() {
	for {
		sc.spaces()
		if sc.peek() == '#' {
			sc.comment()
		}
		if !sc.newline() {
			return
		}
	}
}

func (sc *tomlScanner) comment() {
	for !sc.eof() && sc.src[sc.i] != '\n' && !sc.has("\r\n") {
		sc.i++
	}
}

// endLine reads what may follow a statement: spaces, a comment, the line end.
func (sc *tomlScanner) endLine() error {
	sc.spaces()
	if sc.peek() == '#' {
		sc.comment()
	}
	if sc.eof() || sc.newline() {
		return nil
	}
	return sc.errorf("unexpected %q", sc.rest())
}

func (sc *tomlScanner) rest() string {
	end := bytes.IndexByte(sc.src[sc.i:], '\n')
	if end < 0 {
		end = len(sc.src) - sc.i
	}
	return string(sc.src[sc.i : sc.i+end])
}

// parseTOML splits src into statements.
func parseTOML(src []byte) ([]tomlStmt, error) {
	sc := &tomlScanner{src: src, line: 1}
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		sc.i = 3 // the BOM goes with the first statement
	}
	if !utf8.Valid(src) {
		return nil, fmt.Errorf("not UTF-8")
	}
	var out []tomlStmt
	var table []string
	start := 0
	for !sc.eof() {
		st := tomlStmt{start: start, line: sc.line}
		sc.spaces()
		switch c := sc.peek(); {
		case c == '#' || c == '\n' || c == '\r' || c == 0:
		case c == '[':
			sc.i++
			st.array = sc.peek() == '['
			if st.array {
				sc.i++
			}
			keys, err := sc.key(']')
			if err != nil {
				return nil, err
			}
			if st.array {
				if sc.peek() != ']' {
					return nil, sc.errorf("[[%s] is not closed with ]]", strings.Join(keys, "."))
				}
				sc.i++
			}
			st.header, table = keys, keys
		default:
			keys, err := sc.key('=')
			if err != nil {
				return nil, err
			}
			sc.spaces()
			st.val[0] = sc.i
			if st.value, err = sc.value(); err != nil {
				return nil, err
			}
			st.val[1] = sc.i
			st.keys, st.table = keys, table
		}
		if err := sc.endLine(); err != nil {
			return nil, err
		}
		st.end, start = sc.i, sc.i
		out = append(out, st)
	}
	return out, nil
}

// key reads a dotted key up to and including stop ('=' or ']').
func (sc *tomlScanner) key(stop byte) ([]string, error) {
	var keys []string
	for {
		sc.spaces()
		var k string
		switch sc.peek() {
		case '"', '\'': // a basic or literal string
			if sc.has(`"""`) || sc.has(`'''`) {
				return nil, sc.errorf("a multi-line string cannot be a key")
			}
			v, err := sc.value()
			if err != nil {
				return nil, err
			}
			k = v.(string)
		default:
			from := sc.i
			for !sc.eof() && isBareKeyByte(sc.src[sc.i]) {
				sc.i++
			}
			if from == sc.i {
				return nil, sc.errorf("expected a key, found %q", sc.rest())
			}
			k = string(sc.src[from:sc.i])
		}
		keys = append(keys, k)
		sc.spaces()
		switch sc.peek() {
		case '.':
			sc.i++
		case stop:
			sc.i++
			return keys, nil
		default:
			return nil, sc.errorf("expected %q after the key %q, found %q", stop, k, sc.rest())
		}
	}
}

// value reads one value.
func (sc *tomlScanner) value() (any, error) {
	switch c := sc.peek(); {
	case sc.has(`"""`), sc.has(`'''`):
		return sc.multiline()
	case c == '"':
		sc.i++
		var b strings.Builder
		for {
			switch c := sc.peek(); {
			case c == '"':
				sc.i++
				return b.String(), nil
			case c == '\\':
				if err := sc.escape(&b); err != nil {
					return nil, err
				}
			case c == '\n' || c == 0 && sc.eof():
				return nil, sc.errorf("a string is not closed on its line")
			default:
				b.WriteByte(c)
				sc.i++
			}
		}
	case c == '\'':
		sc.i++
		from := sc.i
		for sc.peek() != '\'' {
			if sc.eof() || sc.peek() == '\n' {
				return nil, sc.errorf("a string is not closed on its line")
			}
			sc.i++
		}
		sc.i++
		return string(sc.src[from : sc.i-1]), nil
	case c == '[':
		sc.i++
		var out []any
		for {
			sc.blanks()
			if sc.peek() == ']' {
				sc.i++
				return out, nil
			}
			v, err := sc.value()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			sc.blanks()
			switch sc.peek() {
			case ',':
				sc.i++
			case ']':
			default:
				return nil, sc.errorf("expected , or ] in an array, found %q", sc.rest())
			}
		}
	case c == '{':
		sc.i++
		out := map[string]any{}
		sc.blanks()
		if sc.peek() == '}' {
			sc.i++
			return out, nil
		}
		for {
			keys, err := sc.key('=')
			if err != nil {
				return nil, err
			}
			sc.spaces()
			v, err := sc.value()
			if err != nil {
				return nil, err
			}
			out[strings.Join(keys, "\x00")] = v
			sc.blanks()
			switch sc.peek() {
			case ',':
				sc.i++
				sc.blanks()
			case '}':
				sc.i++
				return out, nil
			default:
				return nil, sc.errorf("expected , or } in an inline table, found %q", sc.rest())
			}
		}
	}
	// A number, boolean or date: up to a separator. A date and a time may
	// be apart by one space.
	from := sc.i
	for !sc.eof() && !strings.ContainsRune(" \t\r\n,]}#", rune(sc.peek())) {
		sc.i++
		if sc.i-from == 10 && sc.has(" ") && sc.i+1 < len(sc.src) && sc.src[sc.i+1] >= '0' && sc.src[sc.i+1] <= '9' && sc.src[from+4] == '-' {
			sc.i++
		}
	}
	if from == sc.i {
		return nil, sc.errorf("expected a value, found %q", sc.rest())
	}
	return tomlScalar(sc.src[from:sc.i]), nil
}

// multiline reads a multi-line string: basic (three double quotes) or
// literal (three single quotes).
func (sc *tomlScanner) multiline() (any, error) {
	q := sc.src[sc.i]
	delim := strings.Repeat(string(q), 3)
	sc.i += 3
	sc.newline() // a newline right after the opening is not part of it
	var b strings.Builder
	for {
		if sc.eof() {
			return nil, sc.errorf("a multi-line string is never closed")
		}
		if sc.has(delim) {
			n := 0
			for sc.i+n < len(sc.src) && sc.src[sc.i+n] == q {
				n++
			}
			if n > 5 {
				return nil, sc.errorf("too many quotes closing a multi-line string")
			}
			b.WriteString(strings.Repeat(string(q), n-3))
			sc.i += n
			return b.String(), nil
		}
		c := sc.src[sc.i]
		switch {
		case q == '"' && c == '\\':
			// A backslash at the end of a line trims the line end and
			// the blanks after it.
			j := sc.i + 1
			for j < len(sc.src) && (sc.src[j] == ' ' || sc.src[j] == '\t') {
				j++
			}
			if j < len(sc.src) && (sc.src[j] == '\n' || sc.src[j] == '\r') {
				sc.i = j
				for sc.newline() || sc.peek() == ' ' || sc.peek() == '\t' {
					if sc.peek() == ' ' || sc.peek() == '\t' {
						sc.i++
					}
				}
				continue
			}
			if err := sc.escape(&b); err != nil {
				return nil, err
			}
		case sc.newline():
			b.WriteByte('\n')
		default:
			b.WriteByte(c)
			sc.i++
		}
	}
}

// escape reads one backslash escape of a basic string.
func (sc *tomlScanner) escape(b *strings.Builder) error {
	if sc.i+1 >= len(sc.src) {
		return sc.errorf("a string ends in a backslash")
	}
	c := sc.src[sc.i+1]
	sc.i += 2
	if r, ok := map[byte]string{'b': "\b", 't': "\t", 'n': "\n", 'f': "\f", 'r': "\r", '"': `"`, '\\': `\`, 'e': "\x1b"}[c]; ok {
		b.WriteString(r)
		return nil
	}
	n := map[byte]int{'u': 4, 'U': 8, 'x': 2}[c]
	if n == 0 || sc.i+n > len(sc.src) {
		return sc.errorf("bad escape \\%c", c)
	}
	v, err := strconv.ParseUint(string(sc.src[sc.i:sc.i+n]), 16, 32)
	if err != nil || !utf8.ValidRune(rune(v)) {
		return sc.errorf("bad escape \\%c%s", c, sc.src[sc.i:sc.i+n])
	}
	sc.i += n
	b.WriteRune(rune(v))
	return nil
}

func tomlKey(k string) string {
	if isBareKey(k) {
		return k
	}
	return tomlString(k)
}

// tomlString is a basic string. Every character TOML does not allow raw
// (controls, DEL) and the quote and backslash are escaped.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r) // invalid UTF-8 is written as U+FFFD
		}
	}
	b.WriteByte('"')
	return b.String()
}

func tomlStrings(list []string) string {
	q := make([]string, len(list))
	for i, a := range list {
		q[i] = tomlString(a)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// tomlInline is env's inline table: the kept members as written, then ours.
func tomlInline(kept []string, env map[string]string) string {
	for _, k := range sortedKeys(env) {
		kept = append(kept, tomlKey(k)+" = "+tomlString(env[k]))
	}
	if len(kept) == 0 {
		return "{}"
	}
	return "{ " + strings.Join(kept, ", ") + " }"
}

// The keys of an entry's two forms. Codex refuses a table that mixes them
// (codex 0.171: "env is not supported for streamable_http", and the whole
// file is not read), so an entry turned into one form loses every key of
// the other, the user's env and cwd included.
var (
	tomlStdioKeys = []string{"command", "args", "env", "env_vars", "cwd"}
	tomlURLKeys   = []string{"url", tomlTokenKey, "http_headers", "env_http_headers", "http_headers_helper", "oauth_resource"}
)

// tomlTokenKey names the variable Codex reads a URL entry's bearer token from.
const tomlTokenKey = "bearer_token_env_var"

// tomlServer renders the server's table.
func tomlServer(name string, s Server) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", tomlKey(name))
	if s.URL != "" {
		fmt.Fprintf(&b, "url = %s\n", tomlString(s.URL))
		if s.TokenEnv != "" {
			fmt.Fprintf(&b, "%s = %s\n", tomlTokenKey, tomlString(s.TokenEnv))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "command = %s\n", tomlString(s.Command))
	fmt.Fprintf(&b, "args = %s\n", tomlStrings(s.Args))
	if len(s.Env) > 0 {
		fmt.Fprintf(&b, "env = %s\n", tomlInline(nil, s.Env))
	}
	return b.String()
}

func hasPrefix(p []string, prefix ...string) bool {
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

func ours(k string) bool { return strings.HasPrefix(k, "CAD_MCP_") }

// tomlOwned are the keys whose values install writes.
var tomlOwned = []string{"command", "args", "url", tomlTokenKey}

// tomlCheck refuses the shapes the editor does not edit: servers written
// other than as [mcp_servers.NAME] tables, and in the server's own table,
// the keys install owns written as dotted keys or sub-tables.
func tomlCheck(stmts []tomlStmt, name string) error {
	for _, st := range stmts {
		switch {
		case st.header != nil && st.array && st.header[0] == "mcp_servers":
			return fmt.Errorf("line %d: [[%s]] is an array of tables; install only edits [mcp_servers.NAME] tables: edit it by hand", st.line, strings.Join(st.header, "."))
		case st.header != nil && hasPrefix(st.header, "mcp_servers", name) && len(st.header) > 2 && st.header[2] != "env":
			if k := st.header[2]; slices.Contains(tomlOwned, k) {
				return fmt.Errorf("line %d: mcp_servers.%s.%s is a table; edit it by hand", st.line, tomlKey(name), k)
			}
		case st.header != nil && hasPrefix(st.header, "mcp_servers", name, "env") && len(st.header) > 3 && ours(st.header[3]):
			return fmt.Errorf("line %d: mcp_servers.%s.env.%s is a table; edit it by hand", st.line, tomlKey(name), st.header[3])
		case st.keys == nil:
		case st.table == nil && st.keys[0] == "mcp_servers", hasPrefix(st.table, "mcp_servers") && len(st.table) == 1:
			return fmt.Errorf("line %d: the MCP servers are written as an inline table or dotted keys (%s = …); install only edits [mcp_servers.NAME] tables: edit it by hand", st.line, strings.Join(append(st.table, st.keys...), "."))
		case len(st.table) == 2 && hasPrefix(st.table, "mcp_servers", name) && len(st.keys) > 1 && (st.keys[0] == "env" || slices.Contains(tomlOwned, st.keys[0])):
			return fmt.Errorf("line %d: %s is written as a dotted key; edit it by hand", st.line, strings.Join(st.keys, "."))
		case len(st.table) == 2 && hasPrefix(st.table, "mcp_servers", name) && len(st.keys) == 1 && st.keys[0] == "env":
			if _, ok := st.value.(map[string]any); !ok {
				return fmt.Errorf("line %d: env is not an inline table; edit it by hand", st.line)
			}
		case len(st.table) == 3 && hasPrefix(st.table, "mcp_servers", name, "env") && len(st.keys) > 1 && ours(st.keys[0]):
			return fmt.Errorf("line %d: %s is written as a dotted key; edit it by hand", st.line, strings.Join(st.keys, "."))
		}
	}
	return nil
}

// tomlSet writes the server: a new [mcp_servers.NAME] table at the end, or
// in the existing one, new values for command and args and its own CAD_MCP_*
// variables in env (for a URL entry, url and bearer_token_env_var), and
// none of the other form's keys. Every other key (enabled,
// startup_timeout_sec, the user's variables, …) stays as it is.
func tomlSet(src []byte, name string, s Server) ([]byte, error) {
	stmts, err := parseTOML(src)
	if err != nil {
		return nil, err
	}
	if err := tomlCheck(stmts, name); err != nil {
		return nil, err
	}
	main, envTable := -1, -1
	sub, envSub := false, false
	for i, st := range stmts {
		switch {
		case st.header == nil:
		case len(st.header) == 2 && hasPrefix(st.header, "mcp_servers", name):
			main = i
		case len(st.header) == 3 && hasPrefix(st.header, "mcp_servers", name, "env"):
			envTable = i
		case hasPrefix(st.header, "mcp_servers", name):
			sub = true
			envSub = envSub || st.header[2] == "env"
		}
	}
	nl := lineEnd(src)
	if main < 0 {
		if envTable >= 0 || sub {
			return nil, fmt.Errorf("mcp_servers.%s has sub-tables but no [mcp_servers.%s] table; edit it by hand", tomlKey(name), tomlKey(name))
		}
		out := append([]byte(nil), src...)
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, nl...)
		}
		if len(bytes.TrimSpace(bytes.TrimPrefix(out, []byte("\xef\xbb\xbf")))) > 0 {
			out = append(out, nl...)
		}
		return append(out, strings.ReplaceAll(tomlServer(name, s), "\n", nl)...), nil
	}
	if envSub && envTable < 0 {
		return nil, fmt.Errorf("mcp_servers.%s.env has sub-tables but no [mcp_servers.%s.env] table; edit it by hand", tomlKey(name), tomlKey(name))
	}
	var edits []edit
	set := map[string]*tomlStmt{}
	last := main // the table's last key = value
	for i := main + 1; i < len(stmts) && stmts[i].header == nil; i++ {
		if st := &stmts[i]; st.keys != nil {
			set[st.keys[0]] = st
			last = i
		}
	}
	var add []string
	put := func(key, text string) {
		if st := set[key]; st != nil {
			if string(src[st.val[0]:st.val[1]]) != text {
				edits = append(edits, edit{st.val[0], st.val[1], text})
			}
			return
		}
		add = append(add, key+" = "+text)
	}
	// The other form's keys go, and its sub-tables ([mcp_servers.NAME.env],
	// [mcp_servers.NAME.http_headers]): after the insertions, which may
	// share an offset with a deletion.
	var drop []edit
	other := tomlURLKeys
	if s.URL != "" {
		other = tomlStdioKeys
	}
	for i := main + 1; i < len(stmts) && stmts[i].header == nil; i++ {
		if st := stmts[i]; st.keys != nil && slices.Contains(other, st.keys[0]) {
			drop = append(drop, edit{st.start, st.end, ""})
		}
	}
	for i, st := range stmts {
		if len(st.header) > 2 && hasPrefix(st.header, "mcp_servers", name) && slices.Contains(other, st.header[2]) {
			drop = append(drop, tableSpan(src, stmts, i, drop))
		}
	}
	if s.URL != "" {
		put("url", tomlString(s.URL))
		if s.TokenEnv != "" {
			put(tomlTokenKey, tomlString(s.TokenEnv))
		} else if st := set[tomlTokenKey]; st != nil {
			drop = append(drop, edit{st.start, st.end, ""})
		}
		edits = append(edits, insertLines(src, stmts[last], add, nl)...)
		return apply(src, append(edits, drop...)), nil
	}
	put("command", tomlString(s.Command))
	put("args", tomlStrings(s.Args))
	switch {
	case set["env"] != nil:
		// Keep the user's members as written; ours replaced.
		var kept []string
		for _, m := range inlineMembers(src, set["env"]) {
			if !ours(m.key) {
				kept = append(kept, m.text)
			}
		}
		put("env", tomlInline(kept, s.Env))
	case envTable >= 0:
		have := map[string]bool{}
		lastEnv := envTable
		for i := envTable + 1; i < len(stmts) && stmts[i].header == nil; i++ {
			st := stmts[i]
			if st.keys == nil {
				continue
			}
			lastEnv = i
			k := st.keys[0]
			v, mine := s.Env[k]
			switch {
			case !ours(k):
			case !mine:
				edits = append(edits, edit{st.start, st.end, ""})
			default:
				have[k] = true
				if text := tomlString(v); string(src[st.val[0]:st.val[1]]) != text {
					edits = append(edits, edit{st.val[0], st.val[1], text})
				}
			}
		}
		var lines []string
		for _, k := range sortedKeys(s.Env) {
			if !have[k] {
				lines = append(lines, tomlKey(k)+" = "+tomlString(s.Env[k]))
			}
		}
		edits = append(edits, insertLines(src, stmts[lastEnv], lines, nl)...)
	case len(s.Env) > 0:
		put("env", tomlInline(nil, s.Env))
	}
	edits = append(edits, insertLines(src, stmts[last], add, nl)...)
	return apply(src, append(edits, drop...)), nil
}

// insertLines adds lines after statement st.
func insertLines(src []byte, st tomlStmt, lines []string, nl string) []edit {
	if len(lines) == 0 {
		return nil
	}
	text := strings.Join(lines, nl) + nl
	if st.end == len(src) && !bytes.HasSuffix(src, []byte("\n")) {
		text = nl + strings.TrimSuffix(text, nl)
	}
	return []edit{{st.end, st.end, text}}
}

// lineEnd is the file's line end: CRLF when its first line ends so.
func lineEnd(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

type inlineMember struct {
	key  string // its first key
	text string // key = value as written
}

// inlineMembers lists the members of the inline table st's value.
func inlineMembers(src []byte, st *tomlStmt) []inlineMember {
	sc := &tomlScanner{src: src[:st.val[1]], i: st.val[0] + 1}
	var out []inlineMember
	for {
		sc.blanks()
		if sc.peek() == '}' || sc.eof() {
			return out
		}
		from := sc.i
		keys, err := sc.key('=')
		if err != nil {
			return out
		}
		sc.spaces()
		if _, err := sc.value(); err != nil {
			return out
		}
		out = append(out, inlineMember{keys[0], string(src[from:sc.i])})
		sc.blanks()
		if sc.peek() == ',' {
			sc.i++
		}
	}
}

// tomlRemove deletes the server's table and sub-tables, and the blank line
// before them that tomlSet added.
func tomlRemove(src []byte, name string) ([]byte, bool, error) {
	stmts, err := parseTOML(src)
	if err != nil {
		return nil, false, err
	}
	for _, st := range stmts {
		full := append(append([]string(nil), st.table...), st.keys...)
		if st.array && hasPrefix(st.header, "mcp_servers", name) || st.keys != nil && hasPrefix(full, "mcp_servers", name) && len(st.table) < 2 {
			return nil, false, fmt.Errorf("line %d: mcp_servers.%s is not written as a [mcp_servers.%s] table; remove it by hand", st.line, tomlKey(name), tomlKey(name))
		}
	}
	var edits []edit
	for i, st := range stmts {
		if st.header != nil && hasPrefix(st.header, "mcp_servers", name) {
			edits = append(edits, tableSpan(src, stmts, i, edits))
		}
	}
	if len(edits) == 0 {
		return src, false, nil
	}
	return apply(src, edits), true, nil
}

// tableSpan is the deletion of the table whose header is stmts[i], after
// the deletions before: the table runs to its last key = value (the
// comments and blank lines after it belong to what follows), and the
// blank line before it goes with it when the table ended the file or
// another blank line follows.
func tableSpan(src []byte, stmts []tomlStmt, i int, before []edit) edit {
	last := i
	for j := i + 1; j < len(stmts) && stmts[j].header == nil; j++ {
		if stmts[j].keys != nil {
			last = j
		}
	}
	from := stmts[i].start
	if i == 0 && bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		from = 3
	}
	if i > 0 && blank(src, stmts[i-1]) && (last+1 >= len(stmts) || blank(src, stmts[last+1])) && (len(before) == 0 || before[len(before)-1].end <= stmts[i-1].start) {
		from = stmts[i-1].start
	}
	return edit{from, stmts[last].end, ""}
}

func blank(src []byte, st tomlStmt) bool {
	return st.header == nil && st.keys == nil && len(bytes.TrimSpace(src[st.start:st.end])) == 0
}

// tomlServers reads every [mcp_servers.X] table's command, args and env,
// or url and bearer_token_env_var.
func tomlServers(src []byte) (map[string]Server, error) {
	stmts, err := parseTOML(src)
	if err != nil {
		return nil, err
	}
	out := map[string]Server{}
	for _, st := range stmts {
		if len(st.header) == 2 && st.header[0] == "mcp_servers" {
			if _, ok := out[st.header[1]]; !ok {
				out[st.header[1]] = Server{Env: map[string]string{}}
			}
		}
		if st.keys == nil || len(st.table) < 2 || st.table[0] != "mcp_servers" {
			continue
		}
		full := append(append([]string(nil), st.table[1:]...), st.keys...)
		s := out[full[0]]
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		switch {
		case len(full) == 2 && full[1] == "command":
			s.Command, _ = st.value.(string)
		case len(full) == 2 && full[1] == "url":
			s.URL, _ = st.value.(string)
		case len(full) == 2 && full[1] == tomlTokenKey:
			s.TokenEnv, _ = st.value.(string)
		case len(full) == 2 && full[1] == "args":
			list, _ := st.value.([]any)
			for _, a := range list {
				if a, ok := a.(string); ok {
					s.Args = append(s.Args, a)
				}
			}
		case len(full) == 2 && full[1] == "env":
			m, _ := st.value.(map[string]any)
			for k, v := range m {
				if v, ok := v.(string); ok {
					s.Env[k] = v
				}
			}
		case len(full) == 3 && full[1] == "env":
			if v, ok := st.value.(string); ok {
				s.Env[full[2]] = v
			}
		}
		out[full[0]] = s
	}
	return out, nil
}
