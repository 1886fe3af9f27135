package httpheader

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// checked is the tool every Check case calls.
var checked, _ = Read(list(`{"type":"object","properties":{
	"region":{"type":"string","x-mcp-header":"Region"},
	"count":{"type":"integer","x-mcp-header":"Count"},
	"flag":{"type":"boolean","x-mcp-header":"Flag"},
	"target":{"type":"object","properties":{"layer":{"type":"string","x-mcp-header":"Layer"}}}}}`)).Lookup("t")

func TestCheck(t *testing.T) {
	h := func(kv ...string) map[string][]string {
		m := map[string][]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = append(m[kv[i]], kv[i+1])
		}
		return m
	}
	cases := []struct {
		name    string
		args    string
		headers map[string][]string
		refused string // "" when the call may go on
	}{
		{"literal", `{"region":"us-west1"}`, h("Mcp-Param-Region", "us-west1"), ""},
		{"Base64", `{"region":"Hello"}`, h("Mcp-Param-Region", "=?base64?SGVsbG8=?="), ""},
		{"Base64 of UTF-8", `{"region":"日本語"}`, h("Mcp-Param-Region", "=?base64?5pel5pys6Kqe?="), ""},
		{"no value, no header", `{}`, h(), ""},
		{"no arguments at all", ``, h(), ""},
		{"null value, no header", `{"region":null}`, h(), ""},
		{"name in any case", `{"region":"eu"}`, h("mcp-param-REGION", "eu"), ""},
		{"a header no argument declares", `{"region":"eu"}`, h("Mcp-Param-Region", "eu", "Mcp-Param-Other", "=?base64?!!?="), ""},
		{"empty string", `{"region":""}`, h("Mcp-Param-Region", ""), ""},
		{"integer", `{"count":42}`, h("Mcp-Param-Count", "42"), ""},
		{"integer against 42.0", `{"count":42}`, h("Mcp-Param-Count", "42.0"), ""},
		{"42.0 against 42", `{"count":42.0}`, h("Mcp-Param-Count", "42"), ""},
		{"exponent", `{"count":4.2e1}`, h("Mcp-Param-Count", "42"), ""},
		{"negative", `{"count":-7}`, h("Mcp-Param-Count", "-7"), ""},
		{"zero and minus zero", `{"count":-0}`, h("Mcp-Param-Count", "0"), ""},
		{"largest safe integer", `{"count":9007199254740991}`, h("Mcp-Param-Count", "9007199254740991"), ""},
		{"true", `{"flag":true}`, h("Mcp-Param-Flag", "true"), ""},
		{"false", `{"flag":false}`, h("Mcp-Param-Flag", "false"), ""},
		{"nested", `{"target":{"layer":"A"}}`, h("Mcp-Param-Layer", "A"), ""},
		{"nested, parent not an object", `{"target":"A"}`, h(), ""},

		// One character off, one bit off.
		{"one character off", `{"region":"us-west1"}`, h("Mcp-Param-Region", "us-west2"), "does not match"},
		{"case of the value", `{"region":"eu"}`, h("Mcp-Param-Region", "EU"), "does not match"},
		{"padding error", `{"region":"Hello"}`, h("Mcp-Param-Region", "=?base64?SGVsbG8?="), "not valid"},
		{"alphabet error", `{"region":"Hello"}`, h("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?="), "not valid"},
		{"Base64 of another value", `{"region":"Hello"}`, h("Mcp-Param-Region", "=?base64?SGVsbG9=?="), "not valid"},
		{"missing header, value in body", `{"region":"us-west1"}`, h(), "is required"},
		{"missing header, empty string in body", `{"region":""}`, h(), "is required"},
		{"header without value in body", `{}`, h("Mcp-Param-Region", "us-west1"), "has no value"},
		{"header with null in body", `{"region":null}`, h("Mcp-Param-Region", "null"), "has no value"},
		{"header twice", `{"region":"eu"}`, h("Mcp-Param-Region", "eu", "Mcp-Param-Region", "eu"), "2 times"},
		{"header twice in two cases", `{"region":"eu"}`, h("Mcp-Param-Region", "eu", "mcp-param-region", "eu"), "2 times"},
		{"non-ASCII literal", `{"region":"Région"}`, h("Mcp-Param-Region", "Région"), "not valid"},
		{"leading space lost", `{"region":" eu"}`, h("Mcp-Param-Region", "eu"), "does not match"},
		{"integer one off", `{"count":42}`, h("Mcp-Param-Count", "43"), "does not match"},
		{"integer as words", `{"count":42}`, h("Mcp-Param-Count", "forty-two"), "does not match"},
		{"integer with a plus", `{"count":42}`, h("Mcp-Param-Count", "+42"), "does not match"},
		{"integer in hex", `{"count":42}`, h("Mcp-Param-Count", "0x2A"), "does not match"},
		{"integer with leading zero", `{"count":42}`, h("Mcp-Param-Count", "042"), "does not match"},
		{"beyond the safe range", `{"count":9007199254740992}`, h("Mcp-Param-Count", "9007199254740992"), "outside"},
		{"true as True", `{"flag":true}`, h("Mcp-Param-Flag", "True"), "does not match"},
		{"true as 1", `{"flag":true}`, h("Mcp-Param-Flag", "1"), "does not match"},
		{"string holds true", `{"region":"true"}`, h("Mcp-Param-Region", "true"), ""},
		{"an object", `{"region":{"a":1}}`, h("Mcp-Param-Region", "x"), "object or an array"},
		{"a lone surrogate", `{"region":"\ud800"}`, h("Mcp-Param-Region", "=?base64?77+9?="), "surrogate"},
		{"nested mismatch", `{"target":{"layer":"A"}}`, h("Mcp-Param-Layer", "B"), "does not match"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checked.Check([]byte(c.args), c.headers)
			switch {
			case c.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)):
				t.Fatalf("got %v, want an error saying %q", err, c.refused)
			}
		})
	}
	// A surrogate pair is one character, and fine.
	if err := checked.Check([]byte(`{"region":"\ud83d\ude00"}`), h("Mcp-Param-Region", "=?base64?8J+YgA==?=")); err != nil {
		t.Errorf("surrogate pair: %v", err)
	}
	// A tool whose declarations are invalid: no call of it passes.
	bad, _ := Read(list(`{"type":"object","properties":{"p":{"type":"number","x-mcp-header":"P"}}}`)).Lookup("t")
	if err := bad.Check([]byte(`{}`), nil); err == nil || !strings.Contains(err.Error(), "invalid") {
		t.Errorf("invalid declarations: %v", err)
	}
	// A tool that declares nothing checks nothing.
	var none *Tool
	if err := none.Check([]byte(`{"region":"x"}`), h("Mcp-Param-Region", "y")); err != nil {
		t.Errorf("no declarations: %v", err)
	}
}

func TestHeaders(t *testing.T) {
	got := checked.Headers([]byte(`{"region":" padded ","count":4.2e1,"flag":false,"target":{"layer":"日本"},"other":"x"}`))
	want := map[string]string{
		"Mcp-Param-Region": "=?base64?IHBhZGRlZCA=?=",
		"Mcp-Param-Count":  "42",
		"Mcp-Param-Flag":   "false",
		"Mcp-Param-Layer":  "=?base64?5pel5pys?=",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
	// What a header cannot carry, or that has no value, gets none.
	got = checked.Headers([]byte(`{"region":null,"count":1e300,"flag":[true]}`))
	if len(got) != 0 {
		t.Errorf("got %v", got)
	}
	// Every header Headers writes passes Check.
	for _, args := range []string{`{"region":"a\tb","count":-0.5e1}`, `{"region":"=?base64?x?="}`, `{"count":7,"flag":true,"target":{"layer":""}}`} {
		hs := map[string][]string{}
		for k, v := range checked.Headers([]byte(args)) {
			hs[k] = []string{v}
		}
		if err := checked.Check([]byte(args), hs); err != nil {
			t.Errorf("%s: %v", args, err)
		}
	}
}

// FuzzCheck: for any arguments and any Mcp-Param-Region header, Check
// never panics; what it lets through says what the body says (the text the
// base reads from the argument, or no header for no value), and the
// headers Headers writes for those arguments always pass.
func FuzzCheck(f *testing.F) {
	f.Add(`{"region":"us-west1"}`, "us-west1", true)
	f.Add(`{"region":"Hello"}`, "=?base64?SGVsbG8?=", true)
	f.Add(`{"region":"\ud800"}`, "=?base64?77+9?=", true)
	f.Add(`{"region":42}`, "42.0", true)
	f.Add(`{"region":null}`, "", false)
	f.Fuzz(func(t *testing.T, args, header string, send bool) {
		if !json.Valid([]byte(args)) {
			return
		}
		hs := map[string][]string{}
		if send {
			hs["Mcp-Param-Region"] = []string{header}
		}
		v := valueAt([]byte(args), []string{"region"})
		if checked.Check([]byte(args), hs) == nil {
			text, ok := asText(v)
			got, _ := Decode(header)
			switch k := rpc.Kind(v); {
			case k == rpc.KindNone || k == rpc.KindNull:
				if send {
					t.Fatalf("a header for no value passed: %s %q", args, header)
				}
			case !send || !ok:
				t.Fatalf("passed without a header that says the value: %s %q", args, header)
			case k == rpc.KindNumber:
				if a, _ := parseDecimal(text); a != mustDecimal(t, got) {
					t.Fatalf("number %s passed with %q", args, header)
				}
			case got != text:
				t.Fatalf("%s passed with %q (%q)", args, header, got)
			}
		}
		written := map[string][]string{}
		for k, v := range checked.Headers([]byte(args)) {
			written[k] = []string{v}
		}
		if err := checked.Check([]byte(args), written); err != nil && rpc.Kind([]byte(args)) == rpc.KindObject {
			if _, ok := asText(v); ok || rpc.Kind(v) == rpc.KindNone || rpc.Kind(v) == rpc.KindNull {
				t.Fatalf("Headers(%s) = %v fails Check: %v", args, written, err)
			}
		}
	})
}

func mustDecimal(t *testing.T, s string) decimal {
	d, ok := parseDecimal(s)
	if !ok {
		t.Fatalf("%q passed as a number", s)
	}
	return d
}

// TestCheckSpelling: "_" and "-" are one character to a gateway that maps
// one to the other (CGI-style header environments, proxies that let
// underscores through): a header of a declared name with them swapped is
// refused, alone or beside the right one; the declared spelling passes in
// any case.
func TestCheckSpelling(t *testing.T) {
	tool, _ := Read(list(`{"type":"object","properties":{
		"tenant":{"type":"string","x-mcp-header":"Tenant-Id"},
		"zone":{"type":"string","x-mcp-header":"Zone_Name"}}}`)).Lookup("t")
	args := []byte(`{"tenant":"a","zone":"z"}`)
	cases := []struct {
		headers map[string][]string
		refused string
	}{
		{map[string][]string{"Mcp-Param-Tenant-Id": {"a"}, "Mcp-Param-Zone_Name": {"z"}}, ""},
		{map[string][]string{"mcp-param-TENANT-ID": {"a"}, "MCP-PARAM-zone_name": {"z"}}, ""},
		{map[string][]string{"Mcp-Param-Tenant_Id": {"a"}, "Mcp-Param-Zone_Name": {"z"}}, "Mcp-Param-Tenant_Id is Mcp-Param-Tenant-Id"},
		{map[string][]string{"Mcp-Param-Tenant-Id": {"a"}, "Mcp-Param-Tenant_Id": {"b"}, "Mcp-Param-Zone_Name": {"z"}}, "Mcp-Param-Tenant_Id is Mcp-Param-Tenant-Id"},
		{map[string][]string{"Mcp-Param-Tenant-Id": {"a"}, "Mcp-Param-Zone-Name": {"z"}}, "Mcp-Param-Zone-Name is Mcp-Param-Zone_Name"},
	}
	for i, c := range cases {
		err := tool.Check(args, c.headers)
		if (c.refused == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.refused) {
			t.Errorf("case %d: %v, want %q", i, err, c.refused)
		}
	}
	if u := tool.Undeclared(map[string][]string{"Mcp-Param-Tenant_Id": {"a"}, "Mcp-Param-Zone-Name": {"z"}}); u != nil {
		t.Errorf("a declared header with \"_\" and \"-\" swapped is undeclared: %q", u)
	}
}

// TestUndeclared: the Mcp-Param-* headers a tool does not declare, by
// their names without case; the prefix and a name after it, exactly.
func TestUndeclared(t *testing.T) {
	cases := []struct {
		tool    *Tool
		headers map[string][]string
		want    []string
	}{
		{checked, map[string][]string{"Mcp-Param-Region": {"x"}, "mcp-param-count": {"1"}, "Mcp-Name": {"t"}}, nil},
		{checked, map[string][]string{"Mcp-Param-Tenant": {"x"}}, []string{"TENANT"}},
		{checked, map[string][]string{"MCP-PARAM-TENANT": {"x"}, "mcp-param-tenant": {"y"}, "Mcp-Param-Zone": {"z"}}, []string{"TENANT", "ZONE"}},
		{checked, map[string][]string{"Mcp-Param-": {"x"}, "Mcp-Params-Region": {"x"}, "Mcp-Param": {"x"}}, nil},
		{checked, map[string][]string{"Mcp-Param-R": {"x"}, "Mcp-Param-Regio": {"x"}}, []string{"R", "REGIO"}},
		{nil, map[string][]string{"Mcp-Param-Region": {"x"}}, []string{"REGION"}},
		{nil, map[string][]string{"Mcp-Name": {"x"}}, nil},
	}
	for i, c := range cases {
		if got := c.tool.Undeclared(c.headers); !cmp.Equal(got, c.want) {
			t.Errorf("case %d: Undeclared = %q, want %q", i, got, c.want)
		}
	}
}
