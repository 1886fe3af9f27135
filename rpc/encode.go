package rpc

import (
	"bytes"
	"io"
	"strconv"
	"unicode/utf8"
)

// Encoded is one JSON-RPC message as it goes on the wire, without its
// newline: compact (no line breaks) and valid UTF-8. It is a head, a body
// and a tail, written in that order; the body is the payload (a result, an
// error object, params), referenced where it lies when it needed no change,
// so that a 15 MiB result is never copied to be sent. Build one with the
// Encode functions; a Writer frames and writes it.
//
// Invalid UTF-8 in a payload or an id (possible only inside JSON strings)
// is replaced, byte by byte, with U+FFFD, as encoding/json does; every
// other byte goes out as it came.
type Encoded struct {
	head []byte
	body []byte
	tail string
	kind EncodedKind
	code int64 // EncodeError's code; 0 for every other message
}

// EncodedKind says what an encoded message is, so that whoever carries it
// (an HTTP response that ends with its answer) need not read its bytes.
type EncodedKind uint8

const (
	// KindResponse is a result or an error: the answer to a request.
	KindResponse EncodedKind = iota
	// KindRequest is a request the sender expects an answer to.
	KindRequest
	// KindNotification is a request without id: it answers nothing.
	KindNotification
)

// Kind is what the message is.
func (m Encoded) Kind() EncodedKind { return m.kind }

// Payload is the response's result or error object where it lies, without
// a copy, and whether it is an error; nil for a request or notification.
// It is for whoever only reads an answer (telemetry's outcome).
func (m Encoded) Payload() (payload []byte, isError bool) {
	if m.kind != KindResponse {
		return nil, false
	}
	if m.body == nil { // EncodeError: the error object is the head's end
		if i := bytes.Index(m.head, []byte(`,"error":`)); i >= 0 {
			return m.head[i+len(`,"error":`):], true
		}
		return nil, false
	}
	return m.body, bytes.HasSuffix(m.head, []byte(`,"error":`))
}

// ErrorCode is the code of an error response made with EncodeError (the
// sender's own error, not one passed on raw), for a transport that answers
// some of them with a status of its own; false for any other message.
func (m Encoded) ErrorCode() (int64, bool) { return m.code, m.code != 0 }

// Len is the message's length in bytes, without the newline.
func (m Encoded) Len() int { return len(m.head) + len(m.body) + len(m.tail) }

// AppendTo appends the message to b.
func (m Encoded) AppendTo(b []byte) []byte {
	b = append(b, m.head...)
	b = append(b, m.body...)
	return append(b, m.tail...)
}

// WriteTo writes the message to w from where its bytes lie: a 15 MiB
// result is not copied to be sent. It stops at the first failed write.
func (m Encoded) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(m.head)
	if err == nil {
		var k int
		k, err = w.Write(m.body)
		n += k
	}
	if err == nil {
		var k int
		k, err = io.WriteString(w, m.tail)
		n += k
	}
	return int64(n), err
}

// EncodeRequest encodes {"jsonrpc":"2.0","id":id,"method":method,"params":params};
// params is left out when nil.
func EncodeRequest(id ID, method string, params []byte) Encoded {
	h := appendHead(make([]byte, 0, 64), id)
	h = append(h, `,"method":`...)
	h = AppendString(h, method)
	kind := KindRequest
	if id.IsZero() {
		kind = KindNotification
	}
	if params == nil {
		return Encoded{head: h, tail: "}", kind: kind}
	}
	return Encoded{head: append(h, `,"params":`...), body: clean(params), tail: "}", kind: kind}
}

// EncodeNotification encodes {"jsonrpc":"2.0","method":method,"params":params};
// params is left out when nil.
func EncodeNotification(method string, params []byte) Encoded {
	return EncodeRequest(ID{}, method, params)
}

// EncodeResult encodes {"jsonrpc":"2.0","id":id,"result":result}.
func EncodeResult(id ID, result []byte) Encoded {
	h := append(appendHead(make([]byte, 0, 48), id), `,"result":`...)
	return Encoded{head: h, body: clean(result), tail: "}"}
}

// EncodeError encodes an error response. A zero id is left out, never null.
func EncodeError(id ID, e *WireError) Encoded {
	h := append(appendHead(make([]byte, 0, 64+len(e.Message)+len(e.Data)), id), `,"error":`...)
	return Encoded{head: e.appendJSON(h), tail: "}", code: e.Code}
}

// EncodeErrorRaw encodes an error response whose error object is raw JSON,
// passed on as it came (compacted if it spans lines).
func EncodeErrorRaw(id ID, errObj []byte) Encoded {
	h := append(appendHead(make([]byte, 0, 48), id), `,"error":`...)
	return Encoded{head: h, body: clean(errObj), tail: "}"}
}

// AppendRequest, AppendResult and AppendError append one encoded message
// to b, for callers that want plain bytes (the simulated base).
func AppendRequest(b []byte, id ID, method string, params []byte) []byte {
	return EncodeRequest(id, method, params).AppendTo(b)
}

// AppendResult appends EncodeResult(id, result) to b.
func AppendResult(b []byte, id ID, result []byte) []byte { return EncodeResult(id, result).AppendTo(b) }

// AppendError appends EncodeError(id, e) to b.
func AppendError(b []byte, id ID, e *WireError) []byte { return EncodeError(id, e).AppendTo(b) }

// appendHead appends `{"jsonrpc":"2.0"` and, when the id is not zero,
// `,"id":<id>`.
func appendHead(b []byte, id ID) []byte {
	b = append(b, `{"jsonrpc":"2.0"`...)
	if !id.IsZero() {
		b = append(b, `,"id":`...)
		b = appendValidUTF8(b, id.raw)
	}
	return b
}

// appendJSON appends e as a compact JSON object.
func (e *WireError) appendJSON(b []byte) []byte {
	b = append(b, `{"code":`...)
	b = strconv.AppendInt(b, e.Code, 10)
	b = append(b, `,"message":`...)
	b = AppendString(b, e.Message)
	if len(e.Data) > 0 {
		b = append(b, `,"data":`...)
		b = append(b, clean(e.Data)...)
	}
	return append(b, '}')
}

// clean returns v (valid JSON) on one line and in valid UTF-8: v itself
// when it already is, which is nearly always.
func clean(v []byte) []byte {
	v = Compact(v)
	if utf8.Valid(v) {
		return v
	}
	return appendValidUTF8(make([]byte, 0, len(v)+len(v)/8), v)
}

// appendValidUTF8 appends v to b with each byte that is not part of a valid
// UTF-8 sequence replaced by U+FFFD.
func appendValidUTF8(b, v []byte) []byte {
	for len(v) > 0 {
		n := 0
		for n < len(v) && v[n] < utf8.RuneSelf {
			n++
		}
		b = append(b, v[:n]...)
		v = v[n:]
		if len(v) == 0 {
			break
		}
		r, size := utf8.DecodeRune(v)
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, v[:size]...)
		}
		v = v[size:]
	}
	return b
}
