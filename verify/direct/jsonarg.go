package direct

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// JSONObject checks a flag's value is a JSON object. When it is not JSON
// at all, the message shows where parsing stopped (a caret under the
// character), which is what a user typing JSON in a shell needs:
// '{center:1}' lacks quotes, not objectness.
func JSONObject(flag, s string) error {
	v, err := JSONValue(flag, s)
	if err != nil {
		return err
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("%s must be a JSON object ({\"name\": value, …}), got %s", flag, kindName(bytes.TrimSpace([]byte(s))))
	}
	return nil
}

// JSONValue parses s as one JSON value, saying where parsing stopped when
// it is not one.
func JSONValue(flag, s string) (any, error) {
	var v any
	d := json.NewDecoder(strings.NewReader(s))
	err := d.Decode(&v)
	at := len(s) // an unexpected end
	if err == nil && d.More() {
		err = errors.New("something follows the JSON value")
		at = int(d.InputOffset()) + len(s[d.InputOffset():]) - len(strings.TrimLeft(s[d.InputOffset():], " \t\r\n"))
	}
	if err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			at = int(syn.Offset) - 1
		}
		if at < 0 {
			at = 0
		}
		if at > len(s) {
			at = len(s)
		}
		msg := strings.TrimPrefix(err.Error(), "json: ")
		if errors.Is(err, io.EOF) || err.Error() == "unexpected EOF" {
			msg = "it ends before the JSON is complete"
		}
		col := utf8.RuneCountInString(s[:at])
		return nil, fmt.Errorf("%s is not valid JSON: %s, at character %d:\n  %s\n  %s^", flag, msg, col+1, s, strings.Repeat(" ", col))
	}
	return v, nil
}

func kindName(b []byte) string {
	switch {
	case len(b) == 0:
		return "nothing"
	case b[0] == '[':
		return "an array"
	case b[0] == '"':
		return "a string"
	case b[0] == 't' || b[0] == 'f':
		return "a boolean"
	case b[0] == 'n':
		return "null"
	}
	return "a number"
}
