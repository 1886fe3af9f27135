package rpc

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// SWAR constants: a byte value repeated in all 8 lanes of a uint64.
const (
	lanes01 = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// plainRun is how many leading bytes of b, looking at no more than the
// first shortLen, are plain string content: not '"', not '\\' and not a
// control character (< 0x20). skipRun is the same without the control
// characters, for scanners that only look for a string's end. The
// strings of most messages (keys, names, a tool's description, a line of
// text) end within shortLen, where a call to bytes.IndexByte would cost
// more than it saves.
func plainRun(b []byte) int { return run(b, 0x20) }

func skipRun(b []byte) int { return run(b, 0) }

// run is plainRun with bytes below ctl (0: none) counted as control
// characters. It tests eight bytes at a time. A lane test reports every
// lane that holds such a byte, and may add false hits only in lanes above
// (a borrow carries upward), so its lowest hit is exact.
func run(b []byte, ctl byte) int {
	n := min(len(b), shortLen)
	c := lanes01 * uint64(ctl)
	i := 0
	for ; i+8 <= n; i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ (lanes01 * '"')
		s := x ^ (lanes01 * '\\')
		if hit := ((q-lanes01)&^q | (s-lanes01)&^s | (x-c)&^x) & lanes80; hit != 0 {
			return i + bits.TrailingZeros64(hit)/8
		}
	}
	for i < n && b[i] >= ctl && b[i] != '"' && b[i] != '\\' {
		i++
	}
	return i
}

const shortLen = 128

// nextSpecial returns the index of the first '"' or '\\' in data at or
// after j, or len(data) when there is none: where a string's plain content
// ends. Past a short run, both bytes are found with bytes.IndexByte, which
// is vectorized (tool results are mostly long runs of text): the quote
// first, then a backslash before it. q carries the first quote's index
// between calls scanning one buffer forward (-1 before the first), so that
// a string full of escapes is not searched to its end again after each one.
func nextSpecial(data []byte, j int, q *int) int {
	if k := skipRun(data[j:]); k < shortLen {
		return j + k
	}
	j += shortLen
	if *q < j {
		if k := bytes.IndexByte(data[j:], '"'); k >= 0 {
			*q = j + k
		} else {
			*q = len(data)
		}
	}
	if k := bytes.IndexByte(data[j:*q], '\\'); k >= 0 {
		return j + k
	}
	return *q
}

// controlIndex returns the index of the first byte of b below 0x20 (a
// control character, which JSON strings may not hold raw), or -1. It tests
// eight bytes at a time: a lane test may report a false hit next to a real
// one, never a miss, so the byte loop after it keeps the answer exact.
func controlIndex(b []byte) int {
	const c = lanes01 * 0x20
	i := 0
	for ; i+32 <= len(b); i += 32 { // four words a round: long texts
		x0, x1 := binary.LittleEndian.Uint64(b[i:]), binary.LittleEndian.Uint64(b[i+8:])
		x2, x3 := binary.LittleEndian.Uint64(b[i+16:]), binary.LittleEndian.Uint64(b[i+24:])
		if ((x0-c)&^x0|(x1-c)&^x1|(x2-c)&^x2|(x3-c)&^x3)&lanes80 != 0 {
			break
		}
	}
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if (x-c)&^x&lanes80 != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return i
		}
	}
	return -1
}

// ValueEnd finds where the first JSON value in a growing buffer ends,
// looking at each byte once across calls: objects and arrays end when their
// brackets balance, strings at their closing quote, and bare scalars (never
// a valid base answer, but possible garbage) at whitespace. It does not
// validate; see Valid.
type ValueEnd struct {
	started  bool
	scalar   bool
	inString bool
	escape   bool
	depth    int
}

// Feed scans buf[from:], the bytes it has not seen, and reports the
// value's end as an offset in buf once the value is complete. Only the
// scanner's state carries over between calls, so buf may be a fresh chunk
// each time (tcpbase reads an answer in chunks) or one growing buffer.
func (s *ValueEnd) Feed(buf []byte, from int) (int, bool) {
	q := -1 // nextSpecial's quote, within buf
	for i := from; i < len(buf); i++ {
		c := buf[i]
		if !s.started {
			if isSpace(c) {
				continue
			}
			s.started = true
			switch c {
			case '{', '[':
				s.depth = 1
			case '"':
				s.inString = true
			default:
				s.scalar = true
			}
			continue
		}
		switch {
		case s.scalar:
			if isSpace(c) {
				return i, true
			}
		case s.inString:
			switch {
			case s.escape:
				s.escape = false
			case c == '\\':
				s.escape = true
			case c == '"':
				s.inString = false
				if s.depth == 0 {
					return i + 1, true
				}
			default:
				i = nextSpecial(buf, i+1, &q) - 1 // the loop's i++ lands on it
			}
		case c == '"':
			s.inString = true
		case c == '{' || c == '[':
			s.depth++
		case c == '}' || c == ']':
			s.depth--
			if s.depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}
