package httpheader

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// list is a tools/list result holding one tool "t" with this inputSchema.
func list(schema string) []byte {
	return []byte(`{"tools":[{"name":"t","inputSchema":` + schema + `}]}`)
}

func TestReadValid(t *testing.T) {
	schema := `{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"count":{"type":"integer","x-mcp-header":"Count"},
		"flag":{"type":"boolean","x-mcp-header":"Flag"},
		"method":{"type":"string","x-mcp-header":"Method"},
		"target":{"type":"object","properties":{"layer":{"type":"string","x-mcp-header":"Layer"}}},
		"query":{"type":"string"}},"required":["region"]}`
	got, ok := Read(list(schema)).Lookup("t")
	if !ok || got == nil {
		t.Fatalf("tool t: %v %v", got, ok)
	}
	want := &Tool{Params: []Param{
		{Name: "Region", Path: []string{"region"}, Type: "string"},
		{Name: "Count", Path: []string{"count"}, Type: "integer"},
		{Name: "Flag", Path: []string{"flag"}, Type: "boolean"},
		{Name: "Method", Path: []string{"method"}, Type: "string"},
		{Name: "Layer", Path: []string{"target", "layer"}, Type: "string"},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
	if h := want.Params[4].Header(); h != "Mcp-Param-Layer" {
		t.Errorf("header %q", h)
	}
	// Tools without declarations are listed, with nothing to check.
	tab := Read([]byte(`{"tools":[{"name":"plain","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}},{"name":"bare"}]}`))
	for _, n := range []string{"plain", "bare"} {
		if d, ok := tab.Lookup(n); !ok || d != nil {
			t.Errorf("%s: %v %v", n, d, ok)
		}
	}
	// A property named like the keyword is a property, not a declaration.
	if d, _ := Read(list(`{"type":"object","properties":{"x-mcp-header":{"type":"string"}}}`)).Lookup("t"); d != nil {
		t.Errorf("a property called x-mcp-header: %+v", d)
	}
	// An escaped keyword is the keyword.
	if d, _ := Read(list(`{"type":"object","properties":{"r":{"type":"string","x-mcp-head\u0065r":"R"}}}`)).Lookup("t"); d == nil || len(d.Params) != 1 {
		t.Errorf("an escaped keyword was not read: %+v", d)
	}
}

func TestReadInvalid(t *testing.T) {
	prop := func(p string) string { return `{"type":"object","properties":{"p":` + p + `}}` }
	cases := []struct{ name, schema, problem string }{
		// The conformance suite's invalid tools (http-invalid-tool-headers).
		{"empty", prop(`{"type":"string","x-mcp-header":""}`), "is empty"},
		{"object type", prop(`{"type":"object","x-mcp-header":"P"}`), "whose type is not"},
		{"array type", prop(`{"type":"array","x-mcp-header":"P"}`), "whose type is not"},
		{"null type", prop(`{"type":"null","x-mcp-header":"P"}`), "whose type is not"},
		{"number type", prop(`{"type":"number","x-mcp-header":"P"}`), "whose type is not"},
		{"no type", prop(`{"x-mcp-header":"P"}`), "whose type is not"},
		{"type list", prop(`{"type":["string","null"],"x-mcp-header":"P"}`), "whose type is not"},
		{"duplicate", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"Region"}}}`, "name one header"},
		{"duplicate with _ for -", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Tenant-Id"},"b":{"type":"string","x-mcp-header":"tenant_id"}}}`, "name one header"},
		{"duplicate in another case", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"REGION"}}}`, "name one header"},
		{"space", prop(`{"type":"string","x-mcp-header":"My Region"}`), "not a header name"},
		{"colon", prop(`{"type":"string","x-mcp-header":"Region:Primary"}`), "not a header name"},
		{"non-ASCII", prop(`{"type":"string","x-mcp-header":"Région"}`), "not a header name"},
		{"control character", prop(`{"type":"string","x-mcp-header":"Region\t1"}`), "not a header name"},
		{"not a string", prop(`{"type":"string","x-mcp-header":7}`), "not a string"},
		// Only along "properties" from the root.
		{"on the root", `{"type":"object","x-mcp-header":"P"}`, "where no argument is"},
		{"in items", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"P"}}}}`, "where no argument is"},
		{"in anyOf", `{"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"P"}}}]}`, "where no argument is"},
		{"in $defs", `{"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"P"}},"properties":{"a":{"$ref":"#/$defs/d"}}}`, "where no argument is"},
		{"in then", `{"type":"object","if":{},"then":{"properties":{"a":{"type":"string","x-mcp-header":"P"}}}}`, "where no argument is"},
		{"member twice", prop(`{"type":"string","x-mcp-header":"P","x-mcp-header":"Q"}`), "twice"},
		{"too deep", strings.Repeat(`{"not":`, 70) + prop(`{"type":"string","x-mcp-header":"P"}`) + strings.Repeat(`}`, 70), "deeper"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !json.Valid([]byte(c.schema)) {
				t.Fatalf("bad test schema %s", c.schema)
			}
			d, _ := Read(list(c.schema)).Lookup("t")
			if d == nil || !strings.Contains(d.Problem, c.problem) {
				t.Fatalf("got %+v, want a problem with %q", d, c.problem)
			}
			kept, dropped := Valid(list(c.schema))
			if len(dropped) != 1 || string(kept) != `{"tools":[]}` {
				t.Errorf("Valid: %s %q", kept, dropped)
			}
		})
	}
}

func TestValidKeepsTheRest(t *testing.T) {
	in := []byte(`{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"bad","inputSchema":{"type":"object","properties":{"p":{"type":"number","x-mcp-header":"P"}}}},{"name":"good","inputSchema":{"type":"object","properties":{"p":{"type":"string","x-mcp-header":"P"}}}}],"nextCursor":"2"}`)
	out, dropped := Valid(in)
	want := `{"nextCursor":"2","tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"good","inputSchema":{"type":"object","properties":{"p":{"type":"string","x-mcp-header":"P"}}}}]}`
	if string(out) != want || len(dropped) != 1 || !strings.Contains(dropped[0], `"bad"`) {
		t.Errorf("got %s %q", out, dropped)
	}
	plain := []byte(`{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`)
	if out, dropped := Valid(plain); &out[0] != &plain[0] || dropped != nil {
		t.Errorf("a list without declarations was rewritten: %s", out)
	}
}

func TestReadMergesTwins(t *testing.T) {
	tab := Read([]byte(`{"tools":[
		{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"}}}},
		{"name":"t","inputSchema":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"B"}}}}]}`))
	d, _ := tab.Lookup("t")
	if d == nil || len(d.Params) != 2 {
		t.Fatalf("two tools of one name: %+v", d)
	}
	if err := d.Check([]byte(`{"a":"x","b":"y"}`), map[string][]string{"Mcp-Param-A": {"x"}}); err == nil {
		t.Errorf("the second twin's header went unchecked")
	}
}

// TestLookupFolded: a name the list does not hold exactly stands for every
// tool whose name strings.EqualFold holds equal to it (a base that matches
// names without case runs one of them), and a call of it must satisfy the
// declarations of all of them; a name that differs by one character that
// does not fold stands for none.
func TestLookupFolded(t *testing.T) {
	tab := Read([]byte(`{"tools":[
		{"name":"draw","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"}}}},
		{"name":"DRAW","inputSchema":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"B"}}}},
		{"name":"Draw","inputSchema":{"type":"object"}},
		{"name":"plain","inputSchema":{"type":"object"}}]}`))
	h := func(kv ...string) map[string][]string {
		m := map[string][]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = []string{kv[i+1]}
		}
		return m
	}
	cases := []struct {
		name    string
		listed  bool
		args    string
		headers map[string][]string
		ok      bool
	}{
		// Listed exactly: that tool's declarations, and only those.
		{"draw", true, `{"a":"x","b":"y"}`, h("Mcp-Param-A", "x"), true},
		{"DRAW", true, `{"a":"x","b":"y"}`, h("Mcp-Param-B", "y"), true},
		{"Draw", true, `{"a":"x","b":"y"}`, h(), true},
		// Folded: every twin's, all of them.
		{"dRAW", true, `{"a":"x","b":"y"}`, h("Mcp-Param-A", "x", "Mcp-Param-B", "y"), true},
		{"dRAW", true, `{"a":"x","b":"y"}`, h("Mcp-Param-A", "x"), false},
		{"dRAW", true, `{"a":"x","b":"y"}`, h("Mcp-Param-B", "y"), false},
		{"dRAW", true, `{"a":"x","b":"y"}`, h("Mcp-Param-A", "x", "Mcp-Param-B", "z"), false},
		{"PLAIN", true, `{"a":"x"}`, h(), true},
		{"pLaIn", true, `{"a":"x"}`, h(), true},
		{"plaın", false, `{}`, h(), true}, // ı (U+0131) folds to nothing ASCII
		{"plains", false, `{}`, h(), true},
		{"dra", false, `{}`, h(), true},
	}
	for _, c := range cases {
		d, listed := tab.Lookup(c.name)
		if listed != c.listed {
			t.Errorf("%q: listed %v", c.name, listed)
		}
		if err := d.Check([]byte(c.args), c.headers); (err == nil) != c.ok {
			t.Errorf("%q %s %v: %v", c.name, c.args, c.headers, err)
		}
	}
	if d, listed := Read([]byte(`{"tools":[{"name":"test","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"}}}}]}`)).Lookup("teſt"); !listed || d == nil {
		t.Errorf("teſt (U+017F) does not stand for test: %v %v", d, listed)
	}
	// The tools a lookup merged are left as they were, and so is what an
	// earlier lookup returned.
	first, _ := tab.Lookup("dRAW")
	tab.Lookup("drAW")
	if d, _ := tab.Lookup("draw"); len(d.Params) != 1 || len(first.Params) != 2 || first.Params[1].Name != "B" {
		t.Errorf("draw holds %+v, the first lookup %+v", d.Params, first.Params)
	}
}
