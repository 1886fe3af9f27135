package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/configs/jsonc"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Error is a policy file that cannot be used: where, and why.
type Error struct {
	File      string
	Line, Col int // 1-based; 0 when the whole file is at fault
	Reason    string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("policy %s: %s", e.File, e.Reason)
	}
	return fmt.Sprintf("policy %s:%d:%d: %s", e.File, e.Line, e.Col, e.Reason)
}

// Parse reads a policy file: JSON with // and /* */ comments and trailing
// commas allowed. Every mistake (bad JSON, an unknown key, a value of the
// wrong type, a malformed glob) is an *Error with its line and column.
func Parse(file string, data []byte) (*Policy, error) {
	at := func(off int, format string, args ...any) error {
		line, col := position(data, off)
		return &Error{File: file, Line: line, Col: col, Reason: fmt.Sprintf(format, args...)}
	}
	var lb *jsonc.LineBreakError
	if _, _, err := jsonc.Standardize(data); errors.As(err, &lb) {
		// A rule the user sees on its own line must not be read as comment.
		return nil, at(lb.Offset, "%v", err)
	}
	clean := stripComments(data)
	if bytes.HasPrefix(clean, utf8BOM) {
		copy(clean, "   ") // Windows Notepad starts its UTF-8 files with one
	}
	if !json.Valid(clean) {
		var v any
		err := json.Unmarshal(clean, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, at(int(se.Offset)-1, "not valid JSON: %v", se)
		}
		return nil, &Error{File: file, Reason: "not valid JSON (is it empty, or cut short?)"}
	}
	start := firstNonSpace(clean)
	if rpc.Kind(clean) != '{' {
		return nil, at(start, "the policy must be a JSON object: {\"allow\": [...], \"deny\": [...], \"confirm\": [...], \"annotations\": {...}}")
	}
	p := &Policy{Source: file}
	var bad error
	seen := map[string]bool{}
	_ = rpc.ScanObject(clean, func(key string, from, to int) bool {
		v := clean[from:to]
		if seen[key] {
			bad = at(from, "%q is given twice", key)
			return false
		}
		seen[key] = true
		switch key {
		case "allow", "deny", "confirm":
			pats, err := patterns(v, func(off int, f string, a ...any) error { return at(from+off, "%s: "+f, append([]any{key}, a...)...) })
			if err != nil {
				bad = err
				return false
			}
			switch key {
			case "allow":
				p.allow, p.allowSet = pats, true // [] allows no tool
			case "deny":
				p.deny = pats
			default:
				p.confirm = pats
			}
		case "annotations":
			bad = p.parseAnnotations(v, func(off int, f string, a ...any) error { return at(from+off, f, a...) })
		case "confirmWith":
			var list []string
			strs := rpc.Kind(v) == '['
			rpc.EachElement(v, func(from, to int) { strs = strs && rpc.Kind(v[from:to]) == '"' })
			if !strs || json.Unmarshal(v, &list) != nil {
				bad = at(from, `confirmWith: want an array of "client" and "desktop", like ["client", "desktop"]`)
			} else if err := CheckConfirmWith(list); err != nil {
				bad = at(from, "confirmWith: %v", err)
			} else {
				p.confirmWith = list
			}
		case "readOnly":
			switch rpc.Kind(v) {
			case 't':
				p.readOnly = true
			case 'f':
			default:
				bad = at(from, "readOnly: want true or false")
			}
		default:
			bad = at(from, "unknown key %q (a policy has allow, deny, confirm, confirmWith, annotations and readOnly)", key)
		}
		return bad == nil
	})
	if bad != nil {
		return nil, bad
	}
	return p, nil
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

type errAt func(off int, format string, args ...any) error

// patterns reads an array of glob strings.
func patterns(v []byte, at errAt) ([]string, error) {
	if rpc.Kind(v) != '[' {
		return nil, at(0, "want an array of tool name patterns, like [\"save_*\", \"new_drawing\"]")
	}
	var out []string
	var bad error
	rpc.EachElement(v, func(from, to int) {
		if bad != nil {
			return
		}
		var s string
		if rpc.Kind(v[from:to]) != '"' || json.Unmarshal(v[from:to], &s) != nil {
			bad = at(from, "want a string pattern, got %s", v[from:to])
			return
		}
		s = strings.TrimSpace(s) // as the flags are: " save_*" means save_*
		if s == "" {
			bad = at(from, "empty pattern")
			return
		}
		if err := CheckPattern(s); err != nil {
			bad = at(from, "pattern %q is malformed: %v (%s)", s, err, PatternSyntax)
			return
		}
		out = append(out, s)
	})
	return out, bad
}

// parseAnnotations reads {"pattern": {"readOnlyHint": true, ...}, ...}.
func (p *Policy) parseAnnotations(v []byte, at errAt) error {
	if rpc.Kind(v) != '{' {
		return at(0, "annotations: want an object of tool name patterns, like {\"get_*\": {\"readOnlyHint\": true}}")
	}
	var bad error
	_ = rpc.ScanObject(v, func(pat string, from, to int) bool {
		pat = strings.TrimSpace(pat)
		if pat == "" {
			bad = at(from, "annotations: empty pattern")
			return false
		}
		if err := CheckPattern(pat); err != nil {
			bad = at(from, "annotations: pattern %q is malformed: %v (%s)", pat, err, PatternSyntax)
			return false
		}
		obj := v[from:to]
		if rpc.Kind(obj) != '{' {
			bad = at(from, "annotations %q: want an object like {\"readOnlyHint\": true}", pat)
			return false
		}
		var a Annotations
		_ = rpc.ScanObject(obj, func(k string, f, t int) bool {
			val := obj[f:t]
			var dst **bool
			switch k {
			case "title":
				var s string
				if rpc.Kind(val) != '"' || json.Unmarshal(val, &s) != nil {
					bad = at(from+f, "annotations %q: title must be a string", pat)
					return false
				}
				a.Title = &s
				return true
			case "readOnlyHint":
				dst = &a.ReadOnlyHint
			case "destructiveHint":
				dst = &a.DestructiveHint
			case "idempotentHint":
				dst = &a.IdempotentHint
			case "openWorldHint":
				dst = &a.OpenWorldHint
			default:
				bad = at(from+f, "annotations %q: unknown annotation %q (title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint)", pat, k)
				return false
			}
			switch rpc.Kind(val) {
			case 't', 'f':
				b := rpc.Kind(val) == 't'
				*dst = &b
			default:
				bad = at(from+f, "annotations %q: %s must be true or false", pat, k)
				return false
			}
			return true
		})
		if bad != nil {
			return false
		}
		p.annotations = append(p.annotations, annotationRule{pattern: pat, ann: a})
		return true
	})
	return bad
}

// stripComments blanks out comments, trailing commas and a byte order
// mark with package jsonc, the project's one JSONC reader (client
// configuration files are read the same way). Every byte keeps its offset,
// so positions in the result are positions in the file. An unclosed /*
// comment is left for json.Valid to report where it starts.
func stripComments(data []byte) []byte {
	std, _, err := jsonc.Standardize(data)
	if err != nil {
		return data
	}
	return std
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int) (line, col int) {
	off = max(0, min(off, len(data)))
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

func firstNonSpace(b []byte) int {
	for i, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return i
		}
	}
	return 0
}
