// Package rpc is JSON-RPC 2.0 as it travels on a line-oriented wire:
// message types that keep ids and payloads as raw bytes, wire errors as
// values, and newline framing for reading and writing.
//
// The bridge forwards far more than it inspects, so nothing here decodes a
// payload it does not need: params, result, error data and ids stay the
// exact bytes that arrived, and go back out byte for byte.
package rpc
