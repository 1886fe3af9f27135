package toolschema

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRepairToolSchemas(t *testing.T) {
	tests := []struct {
		name, in, want string
		fixed          []string
	}{
		{"nothing to do", `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`, `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`, nil},
		{"missing type", `{"tools":[{"name":"a","inputSchema":{"properties":{"x":{"type":"number"}},"required":["x"]}}]}`,
			`{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}}]}`, []string{"a"}},
		{"empty schema", `{"tools":[{"name":"a","inputSchema":{}}]}`, `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`, []string{"a"}},
		{"missing schema", `{"tools":[{"name":"a","description":"d"}],"nextCursor":"c"}`,
			`{"tools":[{"name":"a","description":"d","inputSchema":{"type":"object"}}],"nextCursor":"c"}`, []string{"a"}},
		{"boolean schema", `{"tools":[{"name":"a","inputSchema":true}]}`, `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`, []string{"a"}},
		{"other type left alone", `{"tools":[{"name":"a","inputSchema":{"type":"string"}}]}`, `{"tools":[{"name":"a","inputSchema":{"type":"string"}}]}`, nil},
		{"only the broken one", `{"tools":[{"name":"a","inputSchema":{"type":"object"}}, {"name":"b","inputSchema":{"properties":{}}}]}`,
			`{"tools":[{"name":"a","inputSchema":{"type":"object"}}, {"name":"b","inputSchema":{"type":"object","properties":{}}}]}`, []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, fixed := RepairToolSchemas([]byte(tt.in))
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.fixed, fixed); diff != "" {
				t.Errorf("repaired (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLintTools(t *testing.T) {
	result := `{"tools":[
		{"name":"fine","inputSchema":{"type":"object","properties":{"x":{"type":"number"}},"additionalProperties":false}},
		{"name":"bool_sub","inputSchema":{"type":"object","properties":{"anything":true}}},
		{"name":"untyped","inputSchema":{"properties":{"n":{"type":["string","null"]}}}},
		{"name":"remote","inputSchema":{"type":"object","properties":{"r":{"$ref":"https://example.com/s.json"},"e":{"description":"free"}}}},
		{"name":"` + strings.Repeat("x", 65) + `","inputSchema":{"type":"object"}},
		{"name":"` + strings.Repeat("y", 50) + `","inputSchema":{"type":"object"}},
		{"name":"no_schema"},
		{"name":"array_root","inputSchema":[]}
	]}`
	got, err := LintTools([]byte(result), "cad-autocad")
	if err != nil {
		t.Fatal(err)
	}
	type short struct{ Tool, Sev, Path string }
	var s []short
	for _, f := range got {
		s = append(s, short{f.Tool, string(f.Severity), f.Path})
	}
	want := []short{
		{"bool_sub", "error", "inputSchema/properties/anything"},
		{"untyped", "warning", "inputSchema"},
		{"untyped", "warning", "inputSchema/properties/n/type"},
		{"remote", "warning", "inputSchema/properties/e"},
		{"remote", "warning", "inputSchema/properties/r/$ref"},
		{strings.Repeat("x", 65), "error", "name"},
		{strings.Repeat("y", 50), "warning", "name"},
		{"no_schema", "warning", "inputSchema"},
		{"array_root", "error", "inputSchema"},
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestLintToolsExactNames: the list is read by its members' exact names,
// as clients read it: an "InputSchema" beside the real "inputSchema" (or
// a "Tools" beside "tools") is not what gets linted.
func TestLintToolsExactNames(t *testing.T) {
	result := `{"tools":[{"name":"bad","inputSchema":{"type":"string"},"InputSchema":{"type":"object"}}],"Tools":[]}`
	got, err := LintTools([]byte(result), "cad-autocad")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Tool != "bad" || got[0].Path != "inputSchema/type" {
		t.Errorf("findings %+v: want the real inputSchema's wrong root type", got)
	}
}
