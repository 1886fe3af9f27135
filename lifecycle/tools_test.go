package lifecycle

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestToolListReaders: a tool is found by its name exactly (one character,
// one case either side is another tool); a listed tool without
// annotations has {}; the first of two entries with one name counts.
func TestToolListReaders(t *testing.T) {
	const list = `{"tools":[
		{"name":"draw_line","annotations":{"readOnlyHint":false}},
		{"name":"get_layers"},
		{"name":"draw_line","annotations":{"title":"second"}},
		{"annotations":{"title":"no name"}},
		"not a tool",
		{"name":"LAYER/delete"}
	],"nextCursor":null}`
	if diff := cmp.Diff([]string{"draw_line", "get_layers", "draw_line", "LAYER/delete"}, ToolNames([]byte(list))); diff != "" {
		t.Errorf("ToolNames (-want +got):\n%s", diff)
	}
	tests := []struct {
		name, ann string
		listed    bool
	}{
		{"draw_line", `{"readOnlyHint":false}`, true},
		{"get_layers", `{}`, true},
		{"LAYER/delete", `{}`, true},
		{"layer/delete", "", false}, // one case away
		{"LAYER∕delete", "", false}, // U+2215 for "/"
		{"draw_lin", "", false},     // one character short
		{"draw_line ", "", false},   // one character more
	}
	for _, tt := range tests {
		if got := string(ToolAnnotations([]byte(list), tt.name)); got != tt.ann {
			t.Errorf("ToolAnnotations(%q) = %q, want %q", tt.name, got, tt.ann)
		}
		if got := ListsTool([]byte(list), tt.name); got != tt.listed {
			t.Errorf("ListsTool(%q) = %v, want %v", tt.name, got, tt.listed)
		}
	}
	for _, notAList := range []string{``, `[]`, `{"tools":{}}`, `{"Tools":[{"name":"draw_line"}]}`} {
		if ToolNames([]byte(notAList)) != nil || ListsTool([]byte(notAList), "draw_line") {
			t.Errorf("%q read as a list with tools", notAList)
		}
	}
}
