package wire

import (
	"bytes"
	"math"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// TestSameBytesAsProtowire: every function writes what the protobuf
// module's own writes, at the edges of each varint length (one bit either
// side of each 7-bit group) and of each fixed width.
func TestSameBytesAsProtowire(t *testing.T) {
	var values []uint64
	for shift := 0; shift < 64; shift += 7 {
		v := uint64(1) << shift
		values = append(values, v-1, v, v+1)
	}
	values = append(values, math.MaxUint32, math.MaxUint32+1, math.MaxUint64-1, math.MaxUint64)
	for _, v := range values {
		if got, want := AppendVarint(nil, v), protowire.AppendVarint(nil, v); !bytes.Equal(got, want) {
			t.Errorf("AppendVarint(%d) = %x, want %x", v, got, want)
		}
		if got, want := SizeVarint(v), protowire.SizeVarint(v); got != want {
			t.Errorf("SizeVarint(%d) = %d, want %d", v, got, want)
		}
		if got, want := AppendFixed64(nil, v), protowire.AppendFixed64(nil, v); !bytes.Equal(got, want) {
			t.Errorf("AppendFixed64(%d) = %x, want %x", v, got, want)
		}
		if got, want := AppendFixed32(nil, uint32(v)), protowire.AppendFixed32(nil, uint32(v)); !bytes.Equal(got, want) {
			t.Errorf("AppendFixed32(%d) = %x, want %x", uint32(v), got, want)
		}
	}
	for _, num := range []Number{1, 15, 16, 2047, 2048, 1<<29 - 1} {
		for _, typ := range []Type{VarintType, Fixed64Type, BytesType, Fixed32Type} {
			if got, want := AppendTag(nil, num, typ), protowire.AppendTag(nil, protowire.Number(num), protowire.Type(typ)); !bytes.Equal(got, want) {
				t.Errorf("AppendTag(%d, %d) = %x, want %x", num, typ, got, want)
			}
		}
	}
	for _, n := range []int{0, 1, 127, 128, 16383, 16384} {
		s := string(bytes.Repeat([]byte{'x'}, n))
		if got, want := AppendString(nil, s), protowire.AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%d bytes) differs", n)
		}
		if got, want := AppendBytes(nil, []byte(s)), protowire.AppendBytes(nil, []byte(s)); !bytes.Equal(got, want) {
			t.Errorf("AppendBytes(%d bytes) differs", n)
		}
	}
	if EncodeBool(true) != protowire.EncodeBool(true) || EncodeBool(false) != protowire.EncodeBool(false) {
		t.Error("EncodeBool differs")
	}
}
