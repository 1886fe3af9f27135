package rpc

import (
	"encoding/json"
	"fmt"
)

// Standard JSON-RPC 2.0 error codes, and the MCP ones the bridge uses.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeUnsupportedVersion is MCP 2026-07-28's answer to a request that
	// names a protocol version the server does not implement.
	CodeUnsupportedVersion = -32022
)

// WireError is a JSON-RPC error object. Two WireErrors match under
// errors.Is when their codes are equal, so callers branch on codes and
// never on message text.
type WireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *WireError) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// Is reports whether target is a *WireError with the same code.
func (e *WireError) Is(target error) bool {
	t, ok := target.(*WireError)
	return ok && t.Code == e.Code
}

// Errorf returns a WireError with the given code and formatted message.
func Errorf(code int64, format string, args ...any) *WireError {
	return &WireError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithData returns a copy of e carrying data, marshalled to JSON.
func (e *WireError) WithData(data any) *WireError {
	raw, err := json.Marshal(data)
	if err != nil {
		panic("rpc: error data does not marshal: " + err.Error())
	}
	c := *e
	c.Data = raw
	return &c
}

// AppendString appends s as a JSON string, exactly as encoding/json writes
// it: a plain string (printable ASCII that JSON and its HTML escaping leave
// alone: method names, tool names) as it is, between quotes, without a
// call to json.Marshal; any other through json.Marshal.
func AppendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a Go string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
