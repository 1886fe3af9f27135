package simbase

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// schema is a JSON Schema subset, built with the helpers below and used
// twice: marshalled into tools/list, and to check a call's arguments the way
// a real base would, so bad arguments get a clear isError result.
type schema map[string]any

func num(desc string) schema  { return schema{"type": "number", "description": desc} }
func str(desc string) schema  { return schema{"type": "string", "description": desc} }
func boolean(d string) schema { return schema{"type": "boolean", "description": d} }
func integer(desc string, min, max int) schema {
	return schema{"type": "integer", "description": desc, "minimum": min, "maximum": max}
}
func positive(desc string) schema {
	return schema{"type": "number", "description": desc, "exclusiveMinimum": 0}
}
func arrayOf(desc string, items schema, minItems int) schema {
	return schema{"type": "array", "description": desc, "items": items, "minItems": minItems}
}
func object(props map[string]schema, required ...string) schema {
	if props == nil {
		props = map[string]schema{} // "properties": null makes SDK clients drop the tool
	}
	s := schema{"type": "object", "properties": props, "additionalProperties": false}
	if required == nil {
		required = []string{}
	}
	s["required"] = required
	return s
}

var point = func(desc string) schema {
	s := object(map[string]schema{"x": num("X coordinate"), "y": num("Y coordinate")}, "x", "y")
	s["description"] = desc
	return s
}

// check validates v against s and returns a message naming the first
// problem, or "" when v conforms.
func (s schema) check(path string, v any) string {
	want, _ := s["type"].(string)
	switch want {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s must be an object", name(path))
		}
		props, _ := s["properties"].(map[string]schema)
		if req, ok := s["required"].([]string); ok {
			for _, r := range req {
				if _, ok := m[r]; !ok {
					return fmt.Sprintf("missing required argument %s", name(join(path, r)))
				}
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ps, ok := props[k]
			if !ok {
				if s["additionalProperties"] == false {
					return fmt.Sprintf("unknown argument %s", name(join(path, k)))
				}
				continue
			}
			if msg := ps.check(join(path, k), m[k]); msg != "" {
				return msg
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return fmt.Sprintf("%s must be an array", name(path))
		}
		if min, ok := s["minItems"].(int); ok && len(a) < min {
			return fmt.Sprintf("%s needs at least %d items", name(path), min)
		}
		if items, ok := s["items"].(schema); ok {
			for i, e := range a {
				if msg := items.check(fmt.Sprintf("%s[%d]", path, i), e); msg != "" {
					return msg
				}
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return fmt.Sprintf("%s must be a string", name(path))
		}
		if enum, ok := s["enum"].([]string); ok && !contains(enum, str) {
			return fmt.Sprintf("%s must be one of %s", name(path), strings.Join(enum, ", "))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Sprintf("%s must be true or false", name(path))
		}
	case "number", "integer":
		f, ok := v.(float64)
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Sprintf("%s must be a number", name(path))
		}
		if want == "integer" && f != math.Trunc(f) {
			return fmt.Sprintf("%s must be a whole number", name(path))
		}
		if min, ok := s["minimum"].(int); ok && f < float64(min) {
			return fmt.Sprintf("%s must be at least %d", name(path), min)
		}
		if max, ok := s["maximum"].(int); ok && f > float64(max) {
			return fmt.Sprintf("%s must be at most %d", name(path), max)
		}
		if min, ok := s["exclusiveMinimum"].(int); ok && f <= float64(min) {
			return fmt.Sprintf("%s must be greater than %d", name(path), min)
		}
	}
	return ""
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func name(path string) string {
	if path == "" {
		return "arguments"
	}
	return "'" + path + "'"
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
