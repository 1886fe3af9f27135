// Package wire is the little of the protobuf wire format the OTLP encoder
// writes: field tags, varints, fixed-width numbers and length-delimited
// bytes (https://protobuf.dev/programming-guides/encoding/).
//
// It stands in for google.golang.org/protobuf/encoding/protowire, whose
// package links the protobuf module's internal/detrand: that package's
// initialiser opens the running executable and reads samples of it at
// every start of every mcp-bridge process, telemetry on or not. The
// encoder's tests decode what it writes with the official OTLP messages.
package wire

import "math/bits"

// Number is a field number.
type Number int32

// Type is a wire type.
type Type int8

// The wire types the encoder writes.
const (
	VarintType  Type = 0
	Fixed64Type Type = 1
	BytesType   Type = 2
	Fixed32Type Type = 5
)

// AppendTag appends the key of field num with wire type typ.
func AppendTag(b []byte, num Number, typ Type) []byte {
	return AppendVarint(b, uint64(num)<<3|uint64(typ&7))
}

// AppendVarint appends v in base-128, least significant group first.
func AppendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// SizeVarint is the length of v as a varint: 1 to 10 bytes.
func SizeVarint(v uint64) int {
	return 1 + (bits.Len64(v|1)-1)/7
}

// AppendFixed32 appends v little-endian in four bytes.
func AppendFixed32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

// AppendFixed64 appends v little-endian in eight bytes.
func AppendFixed64(b []byte, v uint64) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
}

// AppendBytes appends v with its length before it.
func AppendBytes(b []byte, v []byte) []byte {
	return append(AppendVarint(b, uint64(len(v))), v...)
}

// AppendString appends s with its length before it.
func AppendString(b []byte, s string) []byte {
	return append(AppendVarint(b, uint64(len(s))), s...)
}

// EncodeBool is v as a varint's value.
func EncodeBool(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}
