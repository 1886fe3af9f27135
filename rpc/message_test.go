package rpc

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// flat is a comparable view of a Decoded, for table tests.
type flat struct {
	Kind   string // request, notification, response, error
	ID     string
	Method string
	Params string
	Result string
	Code   int64
}

func flatten(d Decoded) flat {
	f := flat{ID: d.ID.String()}
	if d.Err != nil {
		f.Kind, f.Code = "error", d.Err.Code
		return f
	}
	switch m := d.Msg.(type) {
	case *Request:
		f.Kind, f.Method, f.Params = "request", m.Method, string(m.Params)
	case *Notification:
		f.Kind, f.Method, f.Params = "notification", m.Method, string(m.Params)
	case *Response:
		f.Kind, f.Result = "response", string(m.Result)
		if m.Error != nil {
			f.Code = m.Error.Code
			f.Result = string(m.ErrorRaw)
		}
	}
	return f
}

func TestDecodeLine(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		want  []flat
		batch bool
	}{
		{"string id", `{"jsonrpc":"2.0","id":"1","method":"ping"}`,
			[]flat{{Kind: "request", ID: `"1"`, Method: "ping"}}, false},
		{"number id", `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
			[]flat{{Kind: "request", ID: `1`, Method: "ping"}}, false},
		{"float id kept", `{"jsonrpc":"2.0","id":1.0,"method":"ping"}`,
			[]flat{{Kind: "request", ID: `1.0`, Method: "ping"}}, false},
		{"huge id kept", `{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`,
			[]flat{{Kind: "request", ID: `12345678901234567890`, Method: "ping"}}, false},
		{"negative exponent id", `{"jsonrpc":"2.0","id":-1e3,"method":"ping"}`,
			[]flat{{Kind: "request", ID: `-1e3`, Method: "ping"}}, false},
		{"escaped string id", `{"jsonrpc":"2.0","id":"a\"b\\u0041","method":"x"}`,
			[]flat{{Kind: "request", ID: `"a\"b\\u0041"`, Method: "x"}}, false},
		{"params kept raw", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{ "name" : "x" }}`,
			[]flat{{Kind: "request", ID: `2`, Method: "tools/call", Params: `{ "name" : "x" }`}}, false},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			[]flat{{Kind: "notification", Method: "notifications/initialized"}}, false},
		{"empty method is a method", `{"jsonrpc":"2.0","id":3,"method":""}`,
			[]flat{{Kind: "request", ID: `3`, Method: ""}}, false},
		{"escaped key is the key", `{"jsonrpc":"2.0","\u0069d":4,"method":"ping"}`,
			[]flat{{Kind: "request", ID: `4`, Method: "ping"}}, false},
		{"wrong case id is no id", `{"jsonrpc":"2.0","ID":5,"method":"ping"}`,
			[]flat{{Kind: "notification", Method: "ping"}}, false},
		{"wrong case method", `{"jsonrpc":"2.0","id":5,"Method":"ping"}`,
			[]flat{{Kind: "error", ID: `5`, Code: -32600}}, false},
		{"missing method", `{"jsonrpc":"2.0","id":6}`,
			[]flat{{Kind: "error", ID: `6`, Code: -32600}}, false},
		{"method not a string", `{"jsonrpc":"2.0","id":7,"method":1}`,
			[]flat{{Kind: "error", ID: `7`, Code: -32600}}, false},
		{"wrong version", `{"jsonrpc":"1.0","id":8,"method":"ping"}`,
			[]flat{{Kind: "error", ID: `8`, Code: -32600}}, false},
		{"missing version", `{"id":9,"method":"ping"}`,
			[]flat{{Kind: "error", ID: `9`, Code: -32600}}, false},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`,
			[]flat{{Kind: "error", Code: -32600}}, false},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`,
			[]flat{{Kind: "error", Code: -32600}}, false},
		{"scalar params", `{"jsonrpc":"2.0","id":10,"method":"x","params":3}`,
			[]flat{{Kind: "error", ID: `10`, Code: -32600}}, false},
		{"garbage", `hello`, []flat{{Kind: "error", Code: -32700}}, false},
		{"truncated", `{"jsonrpc":"2.0","id":1,`, []flat{{Kind: "error", Code: -32700}}, false},
		{"not an object", `42`, []flat{{Kind: "error", Code: -32600}}, false},
		{"empty batch", `[]`, []flat{{Kind: "error", Code: -32600}}, false},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"a"}, {"jsonrpc":"2.0","method":"b"} ,1]`,
			[]flat{{Kind: "request", ID: `1`, Method: "a"}, {Kind: "notification", Method: "b"}, {Kind: "error", Code: -32600}}, true},
		{"result response", `{"jsonrpc":"2.0","id":1,"result":{"a":[1,2]}}`,
			[]flat{{Kind: "response", ID: `1`, Result: `{"a":[1,2]}`}}, false},
		{"error response", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool: x","data":{"k":1}}}`,
			[]flat{{Kind: "response", ID: `1`, Code: -32602, Result: `{"code":-32602,"message":"Unknown tool: x","data":{"k":1}}`}}, false},
		{"bad error object", `{"jsonrpc":"2.0","id":1,"error":"boom"}`,
			[]flat{{Kind: "error", ID: `1`, Code: -32600}}, false},
		{"error response without id", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`,
			[]flat{{Kind: "response", Code: -32700, Result: `{"code":-32700,"message":"Parse error"}`}}, false},
		{"result response without id", `{"jsonrpc":"2.0","result":{}}`,
			[]flat{{Kind: "error", Code: -32600}}, false},
		{"both result and error", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`,
			[]flat{{Kind: "error", ID: `1`, Code: -32600}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds, batch := DecodeLine([]byte(tt.line))
			var got []flat
			for _, d := range ds {
				got = append(got, flatten(d))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DecodeLine(%s) (-want +got):\n%s", tt.line, diff)
			}
			if batch != tt.batch {
				t.Errorf("batch = %v, want %v", batch, tt.batch)
			}
		})
	}
}

func TestWireErrorIs(t *testing.T) {
	var err error = Errorf(CodeMethodNotFound, "Method not found: foo")
	if !errors.Is(err, &WireError{Code: CodeMethodNotFound}) {
		t.Error("errors.Is(-32601, -32601) = false")
	}
	if errors.Is(err, &WireError{Code: CodeInvalidParams}) {
		t.Error("errors.Is(-32601, -32602) = true")
	}
}

func TestWithoutMember(t *testing.T) {
	tests := []struct{ in, key, want string }{
		{`{"a":1,"_meta":{"x":1},"b":2}`, "_meta", `{"a":1,"b":2}`},
		{`{"_meta":{"x":1},"b":2}`, "_meta", `{"b":2}`},
		{`{"a":1,"_meta":{}}`, "_meta", `{"a":1}`},
		{`{"_meta":{}}`, "_meta", `{}`},
		{`{ "a" : "}" , "b":[1,{"_meta":1}] }`, "_meta", `{ "a" : "}" , "b":[1,{"_meta":1}] }`},
		{`{"_meta":1,"a":2,"_meta":3}`, "_meta", `{"a":2}`},
	}
	for _, tt := range tests {
		got := string(WithoutMember([]byte(tt.in), tt.key))
		if got != tt.want {
			t.Errorf("WithoutMember(%s) = %s, want %s", tt.in, got, tt.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("WithoutMember(%s) is not valid JSON: %s", tt.in, got)
		}
	}
}

func TestAppendMembers(t *testing.T) {
	tests := []struct{ in, add, want string }{
		{`{"a":1}`, `"b":2`, `{"a":1,"b":2}`},
		{`{}`, `"b":2`, `{"b":2}`},
		{`{ }`, `"b":2`, `{ "b":2}`},
		{`{"a":{"c":"}"} }`, `"b":2`, `{"a":{"c":"}"} ,"b":2}`},
	}
	for _, tt := range tests {
		got := string(AppendMembers([]byte(tt.in), tt.add))
		if got != tt.want {
			t.Errorf("AppendMembers(%s, %s) = %s, want %s", tt.in, tt.add, got, tt.want)
		}
	}
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	deep := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	tooDeep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	for _, s := range []string{
		`{}`, `[]`, `""`, `0`, `-0`, `1.5e10`, `1E-2`, `true`, `null`, ` {"a" : [ 1 , 2 ] } `,
		`{"a":"\u12ab\"\\\/\b\f\n\r\t"}`, "\"\xff\xfe\"", deep, tooDeep,
		``, ` `, `{`, `}`, `[1 2]`, `{"a":1 "b":2}`, `{1:2}`, `"\u12g4"`, `"\a"`, "\"\t\"", `+1`, `.5`, `1.e5`,
		`0x10`, `00`, `-`, `[1,]`, `{"a":1,}`, `tru`, `nulll`, `1 2`, `{"a":}`, `[,1]`,
	} {
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%.40q) = %v, json.Valid = %v", s, got, want)
		}
	}
}

func TestIDKey(t *testing.T) {
	same := [][]string{
		{`1`, `1.0`, `1e0`, `10E-1`, `0.1e1`, `1.000`},
		{`100`, `1e2`, `1.00e+2`, `10E1`},
		{`0`, `-0`, `0.0e5`},
		{`"a"`, `"\u0061"`},
		{`12345678901234567890`, `1234567890123456789e1`},
	}
	var keys []string
	for _, group := range same {
		want := mustID(group[0]).Key()
		for _, raw := range group[1:] {
			if got := mustID(raw).Key(); got != want {
				t.Errorf("Key(%s) = %q, Key(%s) = %q: want equal", raw, got, group[0], want)
			}
		}
		keys = append(keys, want)
	}
	for _, distinct := range [][2]string{{`1`, `"1"`}, {`12345678901234567890`, `12345678901234567891`}, {`-1`, `1`}, {`1e400`, `1e401`}} {
		if mustID(distinct[0]).Key() == mustID(distinct[1]).Key() {
			t.Errorf("Key(%s) == Key(%s)", distinct[0], distinct[1])
		}
	}
	if _, ok := ParseID([]byte(`{}`)); ok {
		t.Error("ParseID({}) ok")
	}
}

func TestEncodeReplacesInvalidUTF8(t *testing.T) {
	got := string(AppendResult(nil, mustID("\"a\xff\xfeb\""), []byte("{\"t\":\"caf\xe9 \xff ok \u00e9\"}")))
	want := `{"jsonrpc":"2.0","id":"a\ufffd\ufffdb","result":{"t":"caf\ufffd \ufffd ok é"}}`
	if got != strings.NewReplacer(`\ufffd`, "\uFFFD").Replace(want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// FoldTwins finds the members a case-insensitive decoder takes for one.
func TestFoldTwins(t *testing.T) {
	cases := []struct {
		obj  string
		want string // "first second", "" for none
	}{
		{`{"name":1,"arguments":2}`, ""},
		{`{"name":1,"name":2}`, "name name"},
		{`{"name":1,"n\u0061me":2}`, "name name"},
		{`{"name":1,"NAME":2}`, "name NAME"},
		{`{"cloſed":1,"CLOSED":2}`, "cloſed CLOSED"}, // ſ folds to s
		{`{"k":1,"K":2}`, "k K"},                     // the Kelvin sign folds to k
		{`{"a":{"x":1,"X":2}}`, ""},                  // top level only
		{`{"layer":1,"layer ":2,"láyer":3}`, ""},
		{`{}`, ""},
	}
	deep := []struct {
		obj  string
		want string
	}{
		{`{"a":{"x":1,"X":2}}`, "x X"},
		{`{"a":[{"x":1},{"x":2}],"b":[[{"k":{"y":1,"y":2}}]]}`, "y y"},
		{`{"a":"{\"x\":1,\"X\":2}","b":["x","X"]}`, ""}, // strings and array elements are not members
		{`{"x":{"y":1},"y":{"x":1}}`, ""},               // one name in two objects
		{`[{"a":1},{"A":1}]`, ""},
		{`[{"a":1,"A":1}]`, "a A"},
	}
	check := func(obj, want string, isDeep bool) {
		t.Helper()
		first, second, ok := FoldTwins([]byte(obj), isDeep)
		got := ""
		if ok {
			got = first + " " + second
		}
		if got != want {
			t.Errorf("FoldTwins(%s, deep %v) = %q; want %q", obj, isDeep, got, want)
		}
	}
	for _, c := range cases {
		check(c.obj, c.want, false)
	}
	for _, c := range deep {
		check(c.obj, c.want, true)
	}
}

func TestString(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want string
		ok   bool
	}{
		{`"tool"`, "tool", true},
		{` "a\"b\u00e9" `, "a\"bé", true},
		{"\"\xcf\"", "\uFFFD", true}, // not UTF-8: what a UTF-8 decoder reads
		{`""`, "", true},
		{`12`, "", false},
		{`null`, "", false},
		{`{"a":"b"}`, "", false},
		{``, "", false},
	} {
		got, ok := String([]byte(tc.raw))
		if got != tc.want || ok != tc.ok {
			t.Errorf("String(%q) = %q, %v; want %q, %v", tc.raw, got, ok, tc.want, tc.ok)
		}
	}
}
