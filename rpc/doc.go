// Package rpc is JSON-RPC 2.0 as it travels on a line-oriented wire:
// message types that keep ids and payloads as raw bytes, wire errors as
// values, and newline framing for reading and writing.
//
// The bridge forwards far more than it inspects, so nothing here decodes a
// payload it does not need: params, result, error data and ids stay the
// exact bytes that arrived, and go back out byte for byte, with one
// exception: invalid UTF-8 goes out as U+FFFD, so that every line written
// is valid UTF-8 JSON, as RFC 8259 requires.
//
// Files: message.go decodes messages and ids, encode.go encodes them
// (Encode*, Append*), framing.go only frames (LineReader, Writer), errors.go
// has the wire errors; rawjson.go, valid.go and plain.go are the raw-JSON
// toolkit the rest is built on.
package rpc
