package clientfit

import "unicode/utf8"

// Cutting text where it lies: in the JSON string token the base wrote,
// without decoding it. A character is one UTF-8 sequence or one escape
// (\n, \", \u00e9), and a surrogate pair written as two escapes
// (\ud83d\ude00) is one character too: a cut falls only between
// characters, so what is kept is always a valid token whose text is a
// prefix of the original's.

// nextChar returns the length, in bytes of the token's interior s, of the
// character at the start of s (s non-empty, valid JSON string contents in
// valid UTF-8).
func nextChar(s []byte) int {
	if s[0] != '\\' {
		if s[0] < utf8.RuneSelf {
			return 1
		}
		_, n := utf8.DecodeRune(s)
		return n
	}
	if len(s) < 6 || s[1] != 'u' {
		return min(2, len(s))
	}
	if isHighSurrogate(s[2:6]) && len(s) >= 12 && s[6] == '\\' && s[7] == 'u' && isLowSurrogate(s[8:12]) {
		return 12
	}
	return 6
}

// isHighSurrogate and isLowSurrogate read four hex digits: D800–DBFF,
// DC00–DFFF.
func isHighSurrogate(h []byte) bool { return surrogate(h, 0x8, 0xb) }
func isLowSurrogate(h []byte) bool  { return surrogate(h, 0xc, 0xf) }

func surrogate(h []byte, lo, hi byte) bool {
	if h[0] != 'd' && h[0] != 'D' {
		return false
	}
	v, ok := hexVal(h[1])
	return ok && v >= lo && v <= hi
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// countChars is the number of characters in a string token's interior.
func countChars(s []byte) int {
	n := 0
	for i := 0; i < len(s); i += nextChar(s[i:]) {
		n++
	}
	return n
}

// cutChars returns the longest prefix of the string token's interior s
// that is at most max bytes and ends between two characters, and how many
// characters it holds.
func cutChars(s []byte, max int) (prefix []byte, kept int) {
	i := 0
	for i < len(s) {
		n := nextChar(s[i:])
		if i+n > max {
			break
		}
		i += n
		kept++
	}
	return s[:i], kept
}
