package rpc

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// ID is a request id exactly as it arrived: the raw JSON token of a string
// or a number. It is never converted, so "1", 1, 1.0 and
// 12345678901234567890 all go back out unchanged. The zero ID means "no id"
// and is never written as null.
type ID struct{ raw []byte }

// ParseID returns the id that raw, a JSON token, stands for, or false when
// it is not a string or a number.
func ParseID(raw []byte) (ID, bool) {
	raw = bytes.TrimSpace(raw)
	if k := Kind(raw); (k != KindString && k != KindNumber) || !Valid(raw) {
		return ID{}, false
	}
	return ID{raw: raw}, true
}

// IsZero reports whether the id is absent.
func (id ID) IsZero() bool { return len(id.raw) == 0 }

// Raw returns the id's JSON token.
func (id ID) Raw() []byte { return id.raw }

// String returns the JSON token as text, for logs and messages.
func (id ID) String() string { return string(id.raw) }

// Key is the same for two ids exactly when they are the same JSON value,
// which is how a peer names a request it wants cancelled: strings by what
// they spell ("\u0061" is "a"), numbers by their value (1, 1.0 and 1e0 are
// one id). A string never matches a number.
func (id ID) Key() string {
	switch Kind(id.raw) {
	case KindString:
		s, err := unquote(id.raw)
		if err != nil {
			return "r" + string(id.raw)
		}
		return "s" + s
	case KindNumber:
		return "n" + numberKey(id.raw)
	}
	return ""
}

// numberKey writes a JSON number in one canonical form: its significant
// digits, without leading or trailing zeros, and a decimal exponent, so
// that 100, 1e2, 1.00e+2 and 10E1 all give "1e2". It never converts through
// float64, which would make large ids collide.
func numberKey(tok []byte) string {
	neg := tok[0] == '-'
	if neg {
		tok = tok[1:]
	}
	var digits []byte
	exp := int64(0)
	i := 0
	for ; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
		digits = append(digits, tok[i])
	}
	if i < len(tok) && tok[i] == '.' {
		for i++; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
			digits = append(digits, tok[i])
			exp--
		}
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		e, err := strconv.ParseInt(strings.TrimPrefix(string(tok[i+1:]), "+"), 10, 64)
		if err != nil || e > 1<<40 || e < -(1<<40) {
			return string(tok) // an absurd exponent: only the same text matches
		}
		exp += e
	}
	digits = bytes.TrimLeft(digits, "0")
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	if len(digits) == 0 {
		return "0" // 0, -0, 0.0e5
	}
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + string(digits) + "e" + strconv.FormatInt(exp, 10)
}

// Message is one of *Request, *Notification or *Response.
type Message interface{ isMessage() }

// Request expects exactly one response carrying its ID.
type Request struct {
	ID     ID
	Method string
	Params json.RawMessage // nil when absent
}

// Notification expects no response.
type Notification struct {
	Method string
	Params json.RawMessage
}

// Response answers a request: exactly one of Result and Error is set.
// ErrorRaw keeps the error object as it arrived so that it can be passed on
// byte for byte; Error is its decoded form.
type Response struct {
	ID       ID
	Result   json.RawMessage
	Error    *WireError
	ErrorRaw json.RawMessage
}

func (*Request) isMessage()      {}
func (*Notification) isMessage() {}
func (*Response) isMessage()     {}

// Decoded is one message read off the wire, or why it is not one. When Err
// is set, ID holds the request id if it could be read, so the error answer
// can carry it.
type Decoded struct {
	Msg Message
	Err *WireError
	ID  ID
}

// DecodeLine decodes one line of input: a single message or a batch (a
// JSON array). It returns one Decoded per message, in order, and whether the
// line was a batch, in which case the answers go back as one array. Input
// that is not JSON yields a single -32700; an empty batch a single -32600.
// The returned messages alias line.
func DecodeLine(line []byte) (msgs []Decoded, batch bool) {
	if !Valid(line) {
		return []Decoded{{Err: Errorf(CodeParseError, "Parse error: the line is not valid JSON")}}, false
	}
	if Kind(line) != KindArray {
		return []Decoded{decodeValue(line)}, false
	}
	i := skipSpace(line, 0) + 1
	for {
		i = skipSpace(line, i)
		if line[i] == ']' {
			break
		}
		end := skipValue(line, i)
		msgs = append(msgs, decodeValue(line[i:end]))
		i = skipSpace(line, end)
		if line[i] == ',' {
			i++
		}
	}
	if len(msgs) == 0 {
		return []Decoded{{Err: Errorf(CodeInvalidRequest, "Invalid Request: empty batch")}}, false
	}
	return msgs, true
}

// DecodeMessage decodes a single JSON-RPC message (not a batch).
func DecodeMessage(data []byte) Decoded {
	if !Valid(data) {
		return Decoded{Err: Errorf(CodeParseError, "Parse error: not valid JSON")}
	}
	return decodeValue(data)
}

// DecodeValidMessage is DecodeMessage for data already known to be valid
// JSON (tcpbase checks every answer): a 15 MiB answer is not scanned twice.
func DecodeValidMessage(data []byte) Decoded { return decodeValue(data) }

// decodeValue classifies one valid JSON value by key presence, matching keys
// case-sensitively: "ID" is not "id", and "method": "" is a method.
func decodeValue(data []byte) Decoded {
	if Kind(data) != KindObject {
		return Decoded{Err: Errorf(CodeInvalidRequest, "Invalid Request: a message must be a JSON object")}
	}
	var version, id, method, params, result, errObj []byte
	_ = ScanObject(data, func(k string, s, e int) bool {
		switch k {
		case "jsonrpc":
			version = data[s:e]
		case "id":
			id = data[s:e]
		case "method":
			method = data[s:e]
		case "params":
			params = data[s:e]
		case "result":
			result = data[s:e]
		case "error":
			errObj = data[s:e]
		}
		return true
	})
	var d Decoded
	if k := Kind(id); k == KindString || k == KindNumber {
		d.ID = ID{raw: id}
	}
	invalid := func(why string) Decoded {
		d.Err = Errorf(CodeInvalidRequest, "Invalid Request: %s", why)
		return d
	}
	if !bytes.Equal(version, []byte(`"2.0"`)) {
		return invalid(`"jsonrpc" must be "2.0"`)
	}
	if id != nil && d.ID.IsZero() {
		return invalid(`"id" must be a string or a number`)
	}
	if method != nil {
		if Kind(method) != KindString {
			return invalid(`"method" must be a string`)
		}
		name, err := unquote(method)
		if err != nil {
			return invalid(`"method" is not a valid string`)
		}
		if params != nil && Kind(params) != KindObject && Kind(params) != KindArray {
			return invalid(`"params" must be an object or an array`)
		}
		if id == nil {
			d.Msg = &Notification{Method: name, Params: params}
		} else {
			d.Msg = &Request{ID: d.ID, Method: name, Params: params}
		}
		return d
	}
	if id == nil && errObj == nil {
		return invalid(`a request needs "method"`)
	}
	// An error response may lack the id: it answers a message whose id
	// could not be read (we write those without "id", never "id": null).
	switch {
	case result != nil && errObj == nil:
		d.Msg = &Response{ID: d.ID, Result: result}
	case errObj != nil && result == nil:
		we, ok := parseErrorObject(errObj)
		if !ok {
			return invalid(`"error" must be an object with an integer "code" and a string "message"`)
		}
		d.Msg = &Response{ID: d.ID, Error: we, ErrorRaw: errObj}
	default:
		return invalid(`a request needs "method"; a response needs exactly one of "result" and "error"`)
	}
	return d
}

func parseErrorObject(raw []byte) (*WireError, bool) {
	if Kind(raw) != KindObject {
		return nil, false
	}
	code, msg := Field(raw, "code"), Field(raw, "message")
	if Kind(code) != KindNumber || Kind(msg) != KindString {
		return nil, false
	}
	n, err := strconv.ParseInt(string(code), 10, 64)
	if err != nil {
		return nil, false
	}
	text, err := unquote(msg)
	if err != nil {
		return nil, false
	}
	return &WireError{Code: n, Message: text, Data: Field(raw, "data")}, true
}
