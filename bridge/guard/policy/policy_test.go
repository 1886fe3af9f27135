package policy

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const example = `{
  // patterns are shell-style globs on tool names; deny wins over allow
  "allow": ["*"],
  "deny": ["save_*", "new_drawing"],
  "confirm": ["delete_*"],
  "annotations": {
    "get_*": {"readOnlyHint": true},
    /* a later rule wins field by field */
    "delete_entities": {"destructiveHint": true, "title": "Delete entities"},
  },
}`

const list = `{"tools":[
 {"name":"get_drawing_info","inputSchema":{"type":"object"}},
 {"name":"save_drawing","inputSchema":{"type":"object"}},
 {"name":"new_drawing","inputSchema":{"type":"object"}},
 {"name":"delete_entities","inputSchema":{"type":"object"},"annotations":{"destructiveHint":false,"openWorldHint":false}},
 {"name":"draw_line","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false}}
],"nextCursor":"x"}`

// tools decodes a list result to name → annotations, as a client would.
func tools(t *testing.T, result []byte) map[string]map[string]any {
	t.Helper()
	var r struct {
		Tools []struct {
			Name        string         `json:"name"`
			Annotations map[string]any `json:"annotations"`
		} `json:"tools"`
		NextCursor string `json:"nextCursor"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, result)
	}
	if r.NextCursor != "x" {
		t.Errorf("nextCursor lost: %s", result)
	}
	out := map[string]map[string]any{}
	for _, tl := range r.Tools {
		out[tl.Name] = tl.Annotations
	}
	return out
}

func TestApplyListDeniesAndAnnotates(t *testing.T) {
	p, err := Parse("policy.json", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	got := tools(t, p.ApplyList([]byte(list)))
	want := map[string]map[string]any{
		"get_drawing_info": {"readOnlyHint": true},
		// the policy wins where it speaks, the base's openWorldHint stays
		"delete_entities": {"destructiveHint": true, "openWorldHint": false, "title": "Delete entities"},
		"draw_line":       {"readOnlyHint": false},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("list as the client sees it (-want +got):\n%s", d)
	}
}

func TestNoPolicyChangesNothing(t *testing.T) {
	p, err := Build("", nil, Options{})
	if err != nil || p != nil {
		t.Fatalf("Build with nothing = %v, %v; want nil, nil", p, err)
	}
	if got := p.ApplyList([]byte(list)); string(got) != list {
		t.Errorf("no policy changed the list:\n%s", got)
	}
	if d := p.Check("save_drawing", nil); !d.Allowed {
		t.Errorf("no policy refused a tool: %s", d.Reason)
	}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name   string
		file   string
		opt    Options
		tool   string
		ann    string
		allow  bool
		reason string
	}{
		{"deny wins over allow", `{"allow":["*"],"deny":["save_*"]}`, Options{}, "save_drawing", "", false, `deny "save_*"`},
		{"allow list", `{"allow":["get_*"]}`, Options{}, "draw_line", "", false, "not in the allow list"},
		{"allowed", `{"allow":["get_*"]}`, Options{}, "get_entity", "", true, ""},
		{"flag deny", ``, Options{Deny: []string{"save_*", "new_drawing"}}, "new_drawing", "", false, `--deny-tools: deny "new_drawing"`},
		{"flag allow", ``, Options{Allow: []string{"list_*"}}, "draw_line", "", false, "allow list"},
		{"read-only, policy says so", `{"annotations":{"get_*":{"readOnlyHint":true}}}`, Options{ReadOnly: true}, "get_entity", "", true, ""},
		{"read-only, base says so", ``, Options{ReadOnly: true}, "list_layers", `{"readOnlyHint":true}`, true, ""},
		{"read-only, policy overrides base", `{"annotations":{"list_*":{"readOnlyHint":false}}}`, Options{ReadOnly: true}, "list_layers", `{"readOnlyHint":true}`, false, "read-only"},
		{"read-only, nobody says", ``, Options{ReadOnly: true}, "draw_line", "", false, "not marked read-only"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var data []byte
			if c.file != "" {
				data = []byte(c.file)
			}
			p, err := Build("p.json", data, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			var ann []byte
			if c.ann != "" {
				ann = []byte(c.ann)
			}
			d := p.Check(c.tool, ann)
			if d.Allowed != c.allow || !strings.Contains(d.Reason, c.reason) {
				t.Errorf("Check(%s) = %+v; want allowed %v, reason containing %q", c.tool, d, c.allow, c.reason)
			}
			if !d.Allowed && !strings.Contains(d.Reason, "policy") {
				t.Errorf("reason does not name the policy: %s", d.Reason)
			}
		})
	}
}

func TestReadOnlyListLeavesOnlyReadOnlyTools(t *testing.T) {
	p, err := Build("p.json", []byte(`{"annotations":{"get_*":{"readOnlyHint":true}}}`), Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	got := tools(t, p.ApplyList([]byte(list)))
	if d := cmp.Diff(map[string]map[string]any{"get_drawing_info": {"readOnlyHint": true}}, got); d != "" {
		t.Errorf("read-only list (-want +got):\n%s", d)
	}
}

func TestConfirmAndUnmatched(t *testing.T) {
	p, err := Parse("p.json", []byte(`{"deny":["sav_*"],"confirm":["delete_*"],"annotations":{"get_*":{"title":"x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if pat, ok := p.NeedsConfirm("delete_entities"); !ok || pat != "delete_*" {
		t.Errorf("NeedsConfirm(delete_entities) = %q, %v", pat, ok)
	}
	if _, ok := p.NeedsConfirm("draw_line"); ok {
		t.Error("draw_line needs confirmation")
	}
	got := p.Unmatched([]string{"get_entity", "delete_layer", "save_drawing"})
	if d := cmp.Diff([]string{`deny "sav_*"`}, got); d != "" {
		t.Errorf("unmatched (-want +got):\n%s", d)
	}
}

func TestParseErrorsNameLineAndReason(t *testing.T) {
	cases := []struct {
		name, file string
		line       int
		reason     string
	}{
		{"syntax", "{\n  \"deny\": [\"a\"\n  \"b\"]\n}", 3, "not valid JSON"},
		{"unknown key", "{\n  // comment\n  \"denny\": []\n}", 3, `unknown key "denny"`},
		{"bad glob", "{\n  \"deny\": [\n    \"save_[\"\n  ]\n}", 3, "malformed"},
		{"not a string", "{\"allow\": [\n 1]}", 2, "want a string pattern"},
		{"hint type", "{\"annotations\": {\n \"get_*\": {\"readOnlyHint\": \"yes\"}}}", 2, "readOnlyHint must be true or false"},
		{"unknown annotation", "{\"annotations\": {\"get_*\": {\n\"readonly\": true}}}", 2, `unknown annotation "readonly"`},
		{"not an object", "\n\n[1]", 3, "must be a JSON object"},
		{"unterminated comment", "{ /* \"deny\": [] }", 1, "not valid JSON"},
		{"twice", "{\"deny\":[],\n\"deny\":[]}", 2, "given twice"},
		{"confirmWith empty", "{\n\"confirmWith\": []}", 2, `confirmWith: want "client", "desktop" or both`},
		{"confirmWith unknown", "{\"confirmWith\":\n [\"client\", \"desktops\"]}", 2, `"desktops" is neither client nor desktop`},
		{"confirmWith case", "{\"confirmWith\": [\"Client\"]}", 1, `"Client" is neither`},
		{"confirmWith twice", "{\"confirmWith\": [\"desktop\", \"desktop\"]}", 1, `"desktop" is given twice`},
		{"confirmWith string", "{\"confirmWith\": \"client\"}", 1, "want an array"},
		{"confirmWith null element", "{\"confirmWith\": [null]}", 1, "want an array"},
		// The project's one JSONC dialect (package jsonc): a comma only after a value.
		{"empty array comma", "{\n  \"deny\": [,]\n}", 2, "not valid JSON"},
		{"empty object comma", "{\"annotations\": {\n,}}", 2, "not valid JSON"},
		{"double comma", "{\"deny\": [\"a\",\n,]}", 2, "not valid JSON"},
		// A rule an editor shows on a line of its own is not comment.
		{"lone CR in a comment", "{\"allow\": [\"get_*\"],\n // mine\r\"deny\": [\"delete_*\"]}", 2, "line break other than LF or CRLF"},
		{"U+2028 in a comment", "{\"allow\": [\"get_*\"], // mine\u2028\"deny\": [\"delete_*\"]}", 1, "line break other than LF or CRLF"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("policy.json", []byte(c.file))
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("Parse = %v; want a *policy.Error", err)
			}
			if pe.Line != c.line || !strings.Contains(pe.Reason, c.reason) {
				t.Errorf("got %v; want line %d and a reason containing %q", err, c.line, c.reason)
			}
			if !strings.HasPrefix(err.Error(), "policy policy.json:") {
				t.Errorf("message does not name the file: %v", err)
			}
		})
	}
}

func TestConfirmWith(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
	}{
		{`{"confirm": ["delete_*"]}`, nil},
		{`{"confirm": ["delete_*"], "confirmWith": ["client"]}`, []string{"client"}},
		{`{"confirm": ["delete_*"], "confirmWith": ["desktop", "client"]}`, []string{"desktop", "client"}},
	} {
		p, err := Parse("p.json", []byte(c.file))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(c.want, p.ConfirmWith()); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.file, d)
		}
	}
}

func TestCommentsInsideStringsKept(t *testing.T) {
	p, err := Parse("p.json", []byte(`{"annotations":{"get_*":{"title":"a // b /* c */, d"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := tools(t, p.ApplyList([]byte(list)))
	if got["get_drawing_info"]["title"] != "a // b /* c */, d" {
		t.Errorf("title = %v", got["get_drawing_info"]["title"])
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(example))
	f.Add([]byte(`{"deny":["[",]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("f.json", data)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		out := p.ApplyList([]byte(list))
		if !json.Valid(out) {
			t.Fatalf("ApplyList made invalid JSON: %s", out)
		}
	})
}

// TestWhoAsks: the first of the order that can ask does; one that cannot
// is passed over, never chosen; nobody when none can.
func TestWhoAsks(t *testing.T) {
	both, desk, client := []string{AskClient, AskDesktop}, []string{AskDesktop, AskClient}, []string{AskClient}
	for _, c := range []struct {
		order                 []string
		clientCan, desktopCan bool
		want                  string
	}{
		{both, true, true, AskClient},
		{both, false, true, AskDesktop},
		{both, true, false, AskClient},
		{both, false, false, ""},
		{desk, true, true, AskDesktop},
		{desk, true, false, AskClient},
		{client, false, true, ""},
		{client, true, true, AskClient},
		{[]string{AskDesktop}, true, false, ""},
		{nil, true, true, ""},
	} {
		if got := WhoAsks(c.order, c.clientCan, c.desktopCan); got != c.want {
			t.Errorf("WhoAsks(%v, client %v, desktop %v) = %q; want %q", c.order, c.clientCan, c.desktopCan, got, c.want)
		}
	}
}
