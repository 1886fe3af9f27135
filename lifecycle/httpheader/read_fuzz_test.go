package httpheader

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// FuzzRead: for any schema, Read never panics, and reads what the walker
// it replaced read (oracleTool: each object's members listed, then each
// schema among them walked, which read every level again): the same
// arguments in the same order, and a problem exactly when it found one.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"t":{"type":"object","properties":{"l":{"type":"string","x-mcp-header":"L"}}}}}`,
		`{"type":"object","properties":{"p":{"x-mcp-header":"P","type":"integer","properties":{"q":{"type":"boolean","x-mcp-header":"Q"}}}}}`,
		`{"type":"object","properties":{"p":{"type":"string","x-mcp-header":"P","x-mcp-header":"Q"}}}`,
		`{"type":"object","properties":{"p":{"type":"string","description":"a","description":"b"},"q":{"type":"string","x-mcp-header":"Q"}}}`,
		`{"type":"object","properties":{"p":{"type":"string","description":"caf\u00e9","d":1,"d":2}}}`,
		`{"type":"object","properties":{"r":{"type":"string","x-mcp-head\u0065r":"R"}}}`,
		`{"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"P"}}}],"items":[{"x-mcp-header":"I"}],"$defs":{"d":{"x-mcp-header":"D"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"R"},"b":{"type":"string","x-mcp-header":"r"}}}`,
		strings.Repeat(`{"not":`, 70) + `{"x-mcp-header":"P"}` + strings.Repeat(`}`, 70),
		strings.Repeat(`{"not":`, 70) + `{"y":1,"y":2}` + strings.Repeat(`}`, 70),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, schema string) {
		if !json.Valid([]byte(schema)) {
			Read([]byte(schema)) // never panics
			return
		}
		got, want := readTool([]byte(schema)), oracleTool([]byte(schema))
		switch {
		case (got == nil) != (want == nil):
			t.Fatalf("Read: %+v, the old walker: %+v, for %s", got, want, schema)
		case got == nil:
		case (got.Problem == "") != (want.Problem == ""):
			t.Fatalf("problem %q, the old walker's %q, for %s", got.Problem, want.Problem, schema)
		case got.Problem == "":
			if d := cmp.Diff(want.Params, got.Params); d != "" {
				t.Fatalf("arguments (-old +new) for %s:\n%s", schema, d)
			}
		}
	})
}

// oracleTool is the walker Read had before it read in one pass, kept as
// the oracle of FuzzRead: each object's members listed (a pass over all of
// it), then each schema among them walked.
func oracleTool(schema []byte) *Tool {
	if rpc.Kind(schema) != rpc.KindObject || !mayDeclare(schema) {
		return nil
	}
	w := oracleWalker{}
	w.walk(schema, nil, true, 0)
	if w.problem == "" {
		w.problem = oracleUnique(w.params)
	}
	if w.problem == "" && len(w.params) == 0 {
		return nil
	}
	return &Tool{Params: w.params, Problem: w.problem}
}

type oracleWalker struct {
	params  []Param
	problem string
}

func (w *oracleWalker) fail(format string, args ...any) {
	if w.problem == "" {
		w.problem = fmt.Sprintf(format, args...)
	}
}

func (w *oracleWalker) walk(s []byte, path []string, reachable bool, depth int) {
	if rpc.Kind(s) != rpc.KindObject || !mayDeclare(s) {
		return
	}
	if depth > maxDepth {
		w.fail("too deep")
		return
	}
	members := map[string][]byte{}
	twice := ""
	_ = rpc.EachMember(s, func(raw []byte, from, to int) bool {
		k, ok := rpc.Unquote(raw)
		if !ok {
			return false
		}
		if _, seen := members[k]; seen && twice == "" {
			twice = k
		}
		members[k] = s[from:to]
		return true
	})
	if twice != "" {
		w.fail("twice")
		return
	}
	if v, ok := members[keyword]; ok {
		name, ok := rpc.String(v)
		typ, _ := rpc.String(members["type"])
		switch {
		case !ok || name == "" || !isToken(name) || !reachable || len(path) == 0:
			w.fail("invalid")
		case typ != "string" && typ != "integer" && typ != "boolean":
			w.fail("type")
		default:
			w.params = append(w.params, Param{Name: name, Path: path, Type: typ})
		}
	}
	if props := members["properties"]; rpc.Kind(props) == rpc.KindObject {
		_ = rpc.EachMember(props, func(raw []byte, from, to int) bool {
			k, ok := rpc.Unquote(raw)
			if !ok {
				return false
			}
			w.walk(props[from:to], append(path[:len(path):len(path)], k), reachable, depth+1)
			return true
		})
	}
	for _, k := range oneSchema {
		w.walk(members[k], path, false, depth+1)
	}
	for _, k := range listSchema {
		if v := members[k]; rpc.Kind(v) == rpc.KindArray {
			rpc.EachElement(v, func(from, to int) { w.walk(v[from:to], path, false, depth+1) })
		}
	}
	for _, k := range mapSchema {
		if v := members[k]; rpc.Kind(v) == rpc.KindObject {
			_ = rpc.EachMember(v, func(_ []byte, from, to int) bool {
				w.walk(v[from:to], path, false, depth+1)
				return true
			})
		}
	}
}

func oracleUnique(ps []Param) string {
	for i := range ps {
		for j := range i {
			if strings.EqualFold(strings.ReplaceAll(ps[i].Name, "_", "-"), strings.ReplaceAll(ps[j].Name, "_", "-")) {
				return "unique"
			}
		}
	}
	return ""
}
