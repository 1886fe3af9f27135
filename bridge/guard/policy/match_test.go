package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Patterns mean what a user expects of tool names: * spans "/", and
// nothing else is special about "/", ".", "-", "_" or any Unicode letter.
func TestPatternsOnToolNames(t *testing.T) {
	cases := []struct {
		pat, name string
		want      bool
	}{
		{"*", "layer/delete", true},
		{"*", "", true},
		{"*delete*", "layer/delete", true},
		{"*delete*", "layer/Delete", false},
		{"layer/*", "layer/delete", true},
		{"layer/*", "layer/sub/delete", true},
		{"layer/*", "LAYER/delete", false},
		{"layer/*", "layer∕delete", false}, // U+2215 DIVISION SLASH is not "/"
		{"file.save", "file.save", true},
		{"file.save", "fileXsave", false}, // "." is literal
		{"file.*", "file.save.as", true},
		{"*-*", "x-y", true},
		{"*-*", "x_y", false},
		{"get_*", "get_drawing_info", true},
		{"get_?", "get_é", true}, // one character, two bytes
		{"get_?", "get_", false},
		{"?", "/", true},
		{"图层/*", "图层/删除", true},
		{"*/删除", "图层/删除", true},
		{"*/删除", "图层/删", false},
		{"[a-c]*", "b/x", true},
		{"[^a-c]*", "b/x", false},
		{"[^a-c]*", "/x", true},
		{"[é-ë]", "ê", true},
		{`\*`, "*", true},
		{`\*`, "a", false},
		{`a\[b`, "a[b", true},
		{"a*b*c", "a/b/c", true},
		{"a*b*c", "acb", false},
		{"*a*a*a*a*b", strings.Repeat("a", 200), false},
		{"save_*", "save_", true},
		{"save_*", "xsave_a", false},
	}
	for _, c := range cases {
		if err := CheckPattern(c.pat); err != nil {
			t.Errorf("CheckPattern(%q) = %v", c.pat, err)
			continue
		}
		if got := Match(c.pat, c.name); got != c.want {
			t.Errorf("Match(%q, %q) = %v; want %v", c.pat, c.name, got, c.want)
		}
	}
}

func TestMalformedPatterns(t *testing.T) {
	for pat, want := range map[string]error{
		"save_[":  errOpenClass,
		"[a-":     errOpenClass,
		`save_\`:  errTrailingEscape,
		"[]":      errEmptyClass,
		"[^]":     errEmptyClass,
		"[z-a]*":  errBadRange,
		"a[b-a]c": errBadRange,
	} {
		if err := CheckPattern(pat); !errors.Is(err, want) {
			t.Errorf("CheckPattern(%q) = %v; want %v", pat, err, want)
		}
		if _, err := Build("p.json", nil, Options{Deny: []string{pat}}); err == nil || !strings.Contains(err.Error(), "malformed") {
			t.Errorf("--deny-tools %q: %v", pat, err)
		}
	}
}

// The patterns of a policy apply to names with "/", whatever list they are in.
func TestPolicyPatternsSpanSlashes(t *testing.T) {
	const names = `{"tools":[{"name":"layer/delete"},{"name":"file/save"},{"name":"get.info"}]}`
	p, err := Build("p.json", nil, Options{Deny: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(p.ApplyList([]byte(names))); got != `{"tools":[]}` {
		t.Errorf("--deny-tools '*' lists %s", got)
	}
	if p.Check("layer/delete", nil).Allowed {
		t.Error("--deny-tools '*' allows layer/delete")
	}
	p, err = Parse("p.json", []byte(`{"deny":["*delete*"],"confirm":["*"],"annotations":{"*/save":{"title":"Save"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Check("layer/delete", nil).Allowed {
		t.Error(`deny "*delete*" allows layer/delete`)
	}
	if _, ok := p.NeedsConfirm("file/save"); !ok {
		t.Error(`confirm "*" lets file/save run unasked`)
	}
	if got := p.annotationsFor("file/save").Title; got == nil || *got != "Save" {
		t.Errorf(`annotations "*/save" give file/save the title %v`, got)
	}
}

// Windows Notepad starts a UTF-8 file with a byte order mark; patterns
// with spaces around them are trimmed as the flags' are.
func TestPolicyFileBOMAndSpaces(t *testing.T) {
	p, err := Parse("p.json", []byte("\xef\xbb\xbf{\"deny\": [\" save_* \", \"new_drawing\\t\"], \"annotations\": {\" get_* \": {\"readOnlyHint\": true}}}"))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	for _, tool := range []string{"save_drawing", "new_drawing"} {
		if p.Check(tool, nil).Allowed {
			t.Errorf("%s allowed: a spaced pattern matched nothing", tool)
		}
	}
	if d := cmp.Diff(map[string]map[string]any{
		"get_drawing_info": {"readOnlyHint": true},
		"delete_entities":  {"destructiveHint": false, "openWorldHint": false},
		"draw_line":        {"readOnlyHint": false},
	}, tools(t, p.ApplyList([]byte(list)))); d != "" {
		t.Errorf("list (-want +got):\n%s", d)
	}
	_, err = Parse("p.json", []byte("\xef\xbb\xbf{\n\"deny\": [\"  \"]}"))
	var pe *Error
	if !errors.As(err, &pe) || pe.Line != 2 || !strings.Contains(pe.Reason, "empty pattern") {
		t.Errorf("a blank pattern: %v; want line 2, empty pattern", err)
	}
}
