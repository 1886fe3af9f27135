package policy

import (
	"errors"
	"unicode/utf8"
)

// Patterns name tools. Tool names are not paths: "layer/delete",
// "file.save" and "x-y" are ordinary names, so a pattern treats every
// character alike (path.Match would stop * at a "/"):
//
//	*       any run of characters, none included, "/" included
//	?       exactly one character
//	[abc]   one of the characters listed; [a-z] a range; [^a-z] any other one
//	\c      the character c itself (\* is a star)
//
// Everything else matches itself, case-sensitively: "Delete_*" does not
// match "delete_entities". Characters are Unicode code points.

// PatternSyntax is the one-line summary of the syntax, for messages.
const PatternSyntax = `* any run of characters ("/" included), ? one character, [a-z] [^a-z] one character of a set, \ makes the next character literal`

var (
	errTrailingEscape = errors.New(`ends with \`)
	errOpenClass      = errors.New("[ without a closing ]")
	errEmptyClass     = errors.New("empty []")
	errBadRange       = errors.New("a range whose start is after its end")
)

// CheckPattern reports why pat is not a valid pattern, or nil.
func CheckPattern(pat string) error {
	for i := 0; i < len(pat); {
		switch pat[i] {
		case '*', '?':
			i++
		case '[':
			_, n, err := class(pat[i:], 0)
			if err != nil {
				return err
			}
			i += n
		case '\\':
			if i+1 >= len(pat) {
				return errTrailingEscape
			}
			_, n := utf8.DecodeRuneInString(pat[i+1:])
			i += 1 + n
		default:
			_, n := utf8.DecodeRuneInString(pat[i:])
			i += n
		}
	}
	return nil
}

// Match reports whether name matches pat, a pattern CheckPattern accepts.
// It backtracks only to the last star, so it takes at most
// len(pat)*len(name) steps.
func Match(pat, name string) bool {
	p, n := 0, 0
	starP, starN := -1, 0 // just after the last *, and where its run ends now
	for n < len(name) || p < len(pat) {
		if p < len(pat) {
			if pat[p] == '*' {
				p++
				starP, starN = p, n
				continue
			}
			if n < len(name) {
				r, size := utf8.DecodeRuneInString(name[n:])
				if ok, width := one(pat[p:], r); ok {
					p += width
					n += size
					continue
				}
			}
		}
		if starP < 0 || starN >= len(name) {
			return false
		}
		_, size := utf8.DecodeRuneInString(name[starN:]) // the star takes one more character
		starN += size
		p, n = starP, starN
	}
	return true
}

// one matches the single-character token at the start of pat (not a star)
// against r; width is the token's length in pat.
func one(pat string, r rune) (ok bool, width int) {
	switch pat[0] {
	case '?':
		return true, 1
	case '[':
		ok, width, _ := class(pat, r)
		return ok, width
	case '\\':
		c, n := utf8.DecodeRuneInString(pat[1:])
		return c == r, 1 + n
	}
	c, n := utf8.DecodeRuneInString(pat)
	return c == r, n
}

// class reads the [set] at the start of pat: whether r is in it, its
// length, and why it is malformed.
func class(pat string, r rune) (in bool, width int, err error) {
	i := 1
	negate := i < len(pat) && pat[i] == '^'
	if negate {
		i++
	}
	char := func() (rune, bool) {
		if i >= len(pat) || pat[i] == ']' {
			return 0, false
		}
		if pat[i] == '\\' {
			i++
			if i >= len(pat) {
				return 0, false
			}
		}
		c, n := utf8.DecodeRuneInString(pat[i:])
		i += n
		return c, true
	}
	items := 0
	for i < len(pat) && pat[i] != ']' {
		lo, ok := char()
		if !ok {
			return false, 0, errOpenClass
		}
		hi := lo
		if i+1 < len(pat) && pat[i] == '-' && pat[i+1] != ']' {
			i++
			if hi, ok = char(); !ok {
				return false, 0, errOpenClass
			}
			if hi < lo {
				return false, 0, errBadRange
			}
		}
		in = in || (lo <= r && r <= hi)
		items++
	}
	if i >= len(pat) {
		return false, 0, errOpenClass
	}
	if items == 0 {
		return false, 0, errEmptyClass
	}
	return in != negate, i + 1, nil
}
