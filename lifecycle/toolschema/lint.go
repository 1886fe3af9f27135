package toolschema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Severity of a schema finding, as the MCP Inspector's --strict grades it.
type Severity string

const (
	SeverityError   Severity = "error"   // --strict fails; some clients drop the tool
	SeverityWarning Severity = "warning" // portable, but some clients handle it badly
)

// Finding is one portability problem of one tool.
type Finding struct {
	Tool     string   `json:"tool"`
	Severity Severity `json:"severity"`
	Path     string   `json:"path"` // JSON pointer-ish path in the tool, e.g. inputSchema/properties/x
	Problem  string   `json:"problem"`
}

// LintTools checks a tools/list result for what makes tools fail or vanish
// in real clients: the Inspector --strict rules (a bare true/false where a
// schema is expected is an error; type arrays, remote $refs and schemas that
// constrain nothing are warnings), a root that is not type object (SDK
// clients drop the tool; the bridge adds the type unless told not to), and
// names too long for clients (over 64 characters, or over 60 with the
// server name, which Cursor rejects).
func LintTools(result []byte, serverName string) ([]Finding, error) {
	// Members by their exact names, as clients read them (encoding/json
	// would also take "InputSchema" for "inputSchema").
	if !json.Valid(result) || rpc.Kind(result) != rpc.KindObject {
		return nil, fmt.Errorf("tools/list result: not a JSON object")
	}
	type tool struct {
		Name        string
		InputSchema []byte
	}
	var tools []tool
	raw := rpc.Field(result, "tools")
	if raw != nil && rpc.Kind(raw) != rpc.KindArray && rpc.Kind(raw) != rpc.KindNull {
		return nil, fmt.Errorf("tools/list result: \"tools\" is not an array")
	}
	notObject := false
	rpc.EachElement(raw, func(from, to int) {
		el := raw[from:to]
		notObject = notObject || rpc.Kind(el) != rpc.KindObject
		name, _ := rpc.String(rpc.Field(el, "name"))
		tools = append(tools, tool{Name: name, InputSchema: rpc.Field(el, "inputSchema")})
	})
	if notObject {
		return nil, fmt.Errorf("tools/list result: a tool that is not a JSON object")
	}
	var out []Finding
	for _, t := range tools {
		add := func(sev Severity, path, format string, a ...any) {
			out = append(out, Finding{Tool: t.Name, Severity: sev, Path: path, Problem: fmt.Sprintf(format, a...)})
		}
		if n := len(t.Name); n > 64 {
			add(SeverityError, "name", "the name has %d characters; clients allow 64", n)
		} else if n+len(serverName)+1 > 60 {
			add(SeverityWarning, "name", "server and tool name together have %d characters; Cursor rejects more than 60", n+len(serverName)+1)
		}
		var root any
		if len(t.InputSchema) == 0 || json.Unmarshal(t.InputSchema, &root) != nil {
			add(SeverityWarning, "inputSchema", `no inputSchema: SDK clients drop the tool (the bridge adds {"type": "object"})`)
			continue
		}
		m, ok := root.(map[string]any)
		if !ok {
			add(SeverityError, "inputSchema", "inputSchema is %s, not a schema object", kindOf(root))
			continue
		}
		if m["type"] == nil {
			add(SeverityWarning, "inputSchema", `the root lacks "type": "object": SDK clients drop the tool (the bridge adds it)`)
		} else if m["type"] != "object" {
			add(SeverityError, "inputSchema/type", `the root type is %v; tool arguments must be an object`, m["type"])
		}
		lintSchema(m, "inputSchema", true, add)
	}
	return out, nil
}

// The keywords whose values are schemas, and those whose values are maps
// or lists of schemas. additionalProperties and the like may be booleans.
var (
	schemaValued    = []string{"items", "not", "if", "then", "else", "contains", "propertyNames"}
	schemaMapValued = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaListValue = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	constraining    = []string{"type", "enum", "const", "$ref", "allOf", "anyOf", "oneOf", "not", "properties", "items",
		"pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
		"minItems", "maxItems", "required", "multipleOf", "if", "prefixItems", "contains", "patternProperties"}
)

func lintSchema(s map[string]any, path string, root bool, add func(Severity, string, string, ...any)) {
	if ts, ok := s["type"].([]any); ok {
		add(SeverityWarning, path+"/type", "type is a list %v; some clients only read a single type", ts)
	}
	if ref, ok := s["$ref"].(string); ok && !strings.HasPrefix(ref, "#") {
		add(SeverityWarning, path+"/$ref", "remote $ref %q: clients do not fetch it", ref)
	}
	if !root {
		has := false
		for _, k := range constraining {
			if _, ok := s[k]; ok {
				has = true
				break
			}
		}
		if !has {
			add(SeverityWarning, path, "the schema constrains nothing (no type or other keyword): the model gets no guidance")
		}
	}
	sub := func(v any, p string) {
		switch x := v.(type) {
		case bool:
			add(SeverityError, p, "a bare %v where a schema is expected", x)
		case map[string]any:
			lintSchema(x, p, false, add)
		}
	}
	for _, k := range schemaValued {
		if v, ok := s[k]; ok {
			if list, isList := v.([]any); isList && k == "items" {
				for i, e := range list {
					sub(e, fmt.Sprintf("%s/items/%d", path, i))
				}
				continue
			}
			sub(v, path+"/"+k)
		}
	}
	for _, k := range schemaMapValued {
		if m, ok := s[k].(map[string]any); ok {
			names := make([]string, 0, len(m))
			for n := range m {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				sub(m[n], path+"/"+k+"/"+n)
			}
		}
	}
	for _, k := range schemaListValue {
		if list, ok := s[k].([]any); ok {
			for i, e := range list {
				sub(e, fmt.Sprintf("%s/%s/%d", path, k, i))
			}
		}
	}
}

func kindOf(v any) string {
	switch v.(type) {
	case bool:
		return fmt.Sprintf("the boolean %v", v)
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case nil:
		return "null"
	}
	return "unknown"
}
