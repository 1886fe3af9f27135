package rpc

import "encoding/binary"

// SWAR constants: a byte value repeated in all 8 lanes of a uint64.
const (
	lanes01 = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// plainRun returns how many leading bytes of b are plain string content:
// not '"', not '\\' and not a control character (< 0x20). It tests eight
// bytes at a time, since tool results are mostly long runs of text. A lane
// test may report a false hit next to a real one, never a miss, so the byte
// loop after it keeps the answer exact.
func plainRun(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ (lanes01 * '"')
		s := x ^ (lanes01 * '\\')
		hit := (q - lanes01) &^ q
		hit |= (s - lanes01) &^ s
		hit |= (x - lanes01*0x20) &^ x // a byte below 0x20
		if hit&lanes80 != 0 {
			break
		}
	}
	for i < len(b) && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' {
		i++
	}
	return i
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
				i += skipPlain(buf[i+1:])
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

// skipPlain is plainRun that also passes control characters: ValueEnd only
// needs to find quotes and backslashes; Valid rejects the rest.
func skipPlain(b []byte) int {
	n := 0
	for {
		k := plainRun(b[n:])
		n += k
		if n >= len(b) || b[n] == '"' || b[n] == '\\' {
			return n
		}
		n++ // a control character
	}
}
