package rpc

import (
	"bytes"
	"encoding/json"
)

func compact(dst *bytes.Buffer, v []byte) error { return json.Compact(dst, v) }

// Compact returns v without line breaks: v itself when it has none.
func Compact(v []byte) []byte {
	if !hasNewline(v) {
		return v
	}
	var out bytes.Buffer
	if err := json.Compact(&out, v); err != nil {
		return v
	}
	return out.Bytes()
}
