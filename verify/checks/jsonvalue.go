package checks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/verify"
)

// sameValue reports, as an error naming the first difference, whether two
// JSON texts hold the same value: whitespace and object member order do
// not count, numbers are compared by their text (1 and 1.0 differ, as ids
// do), strings after unescaping ("\u0041" is "A").
func sameValue(a, b string) error {
	va, err := decodeValue(a)
	if err != nil {
		return fmt.Errorf("not JSON (%v): %s", err, verify.Short(a))
	}
	vb, err := decodeValue(b)
	if err != nil {
		return fmt.Errorf("not JSON (%v): %s", err, verify.Short(b))
	}
	return diffValue("", va, vb)
}

func decodeValue(s string) (any, error) {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("more than one value")
	}
	return v, nil
}

func diffValue(path string, a, b any) error {
	at := func() string {
		if path == "" {
			return "the value"
		}
		return path
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: an object, and %s", at(), kindOf(b))
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			xv, inX := x[k]
			yv, inY := y[k]
			if inX != inY {
				return fmt.Errorf("%s.%s: present on one side only", at(), k)
			}
			if err := diffValue(join(path, k), xv, yv); err != nil {
				return err
			}
		}
		return nil
	case []any:
		y, ok := b.([]any)
		if !ok {
			return fmt.Errorf("%s: an array, and %s", at(), kindOf(b))
		}
		if len(x) != len(y) {
			return fmt.Errorf("%s: %d and %d elements", at(), len(x), len(y))
		}
		for i := range x {
			if err := diffValue(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); err != nil {
				return err
			}
		}
		return nil
	default: // json.Number, string, bool, nil: comparable
		if a != b || kindOf(a) != kindOf(b) {
			return fmt.Errorf("%s: %s and %s", at(), short(a), short(b))
		}
		return nil
	}
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "null"
}

func short(v any) string {
	b, _ := json.Marshal(v)
	return verify.Short(string(b))
}

// passedOn is what the bridge promises to make of a payload the base sent
// (a result or an error object): the same bytes, except that a payload
// spanning lines is compacted onto one, and each byte that is not valid
// UTF-8 becomes U+FFFD, as encoding/json does.
func passedOn(payload string) string {
	if bytes.ContainsAny([]byte(payload), "\r\n") {
		var out bytes.Buffer
		if json.Compact(&out, []byte(payload)) == nil {
			payload = out.String()
		}
	}
	if utf8.ValidString(payload) {
		return payload
	}
	var b []byte
	for i := 0; i < len(payload); {
		r, size := utf8.DecodeRuneInString(payload[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, payload[i:i+size]...)
		}
		i += size
	}
	return string(b)
}

// sameAnswer checks the bridge's answer (got) against the base's answer to
// the same frame (want): the envelope as a JSON value (the bridge writes it
// anew, so spacing and member order are its own), the result or error
// object byte for byte as passedOn promises.
func sameAnswer(got, want string) error {
	for _, member := range []string{"result", "error"} {
		w, g := raw(want, member), raw(got, member)
		if w == "" && g == "" {
			continue
		}
		if w == "" || g == "" {
			return fmt.Errorf("the base answered with %s, the bridge with %s", verify.Short(want), verify.Short(got))
		}
		if g != passedOn(w) {
			return fmt.Errorf("%s changed on the way: bridged %s, base %s", member, verify.Short(g), verify.Short(w))
		}
	}
	if err := sameValue(got, want); err != nil {
		return fmt.Errorf("bridged %s, base %s: %v", verify.Short(got), verify.Short(want), err)
	}
	return nil
}
