// Package jsonc is the project's one reader of JSON with comments: policy
// files and the client configuration files install edits. The dialect is
// VS Code's (and tailscale/hujson's): // and /* */ comments wherever
// whitespace may be, a trailing comma after an object's last member or an
// array's last element, and a UTF-8 byte order mark at the start. "{,}",
// "[,]" and "[1,,]" are not JSON with comments: they are refused.
package jsonc

import (
	"bytes"
	"errors"
)

// ErrUnclosedComment is a /* comment with no */.
var ErrUnclosedComment = errors.New("a /* comment is never closed")

// ErrOddLineBreak is a // comment holding a line break other than LF or
// CRLF (a lone CR, a vertical tab or form feed, NEL, U+2028 or U+2029).
// Editors and JavaScript readers end the comment there and show what
// follows as the next line; this reader would take it as comment. A rule
// the user sees in a policy file, or a server in a client's file, would
// be read by one and not the other: such a file is refused.
var ErrOddLineBreak = errors.New("a // comment holds a line break other than LF or CRLF (a lone CR, vertical tab, form feed, NEL, U+2028 or U+2029), which editors show as a new line: make it a plain line end")

// LineBreakError is ErrOddLineBreak at a byte offset of the file.
type LineBreakError struct{ Offset int }

func (e *LineBreakError) Error() string        { return ErrOddLineBreak.Error() }
func (e *LineBreakError) Is(target error) bool { return target == ErrOddLineBreak }

// Standardize returns src as plain JSON of the same length: the byte order
// mark, comments and trailing commas become spaces (line ends are kept),
// so that every offset in the result, of a value or of a syntax error, is
// the same offset in src. trailing lists the offsets of the trailing
// commas. Whether the result is valid JSON is for json.Valid to say.
func Standardize(src []byte) (std []byte, trailing []int, err error) {
	b := bytes.Clone(src)
	if bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) {
		b[0], b[1], b[2] = ' ', ' ', ' '
	}
	blank := func(from, to int) {
		for j := from; j < to; j++ {
			if b[j] != '\n' && b[j] != '\r' {
				b[j] = ' '
			}
		}
	}
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"':
			i = stringEnd(b, i)
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			end := bytes.IndexByte(b[i:], '\n')
			if end < 0 {
				end = len(b) - i
			}
			if at := oddLineBreak(b[i : i+end]); at >= 0 {
				return nil, nil, &LineBreakError{Offset: i + at}
			}
			blank(i, i+end)
			i += end - 1
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			end := bytes.Index(b[i+2:], []byte("*/"))
			if end < 0 {
				return nil, nil, ErrUnclosedComment
			}
			blank(i, i+2+end+2)
			i += 2 + end + 1
		}
	}
	// A trailing comma follows a value and precedes the closing bracket
	// (comments are spaces by now).
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = stringEnd(b, i)
		case ',':
			j := i + 1
			for j < len(b) && isSpace(b[j]) {
				j++
			}
			k := i - 1
			for k >= 0 && isSpace(b[k]) {
				k--
			}
			afterValue := k >= 0 && b[k] != '{' && b[k] != '[' && b[k] != ','
			if afterValue && j < len(b) && (b[j] == '}' || b[j] == ']') {
				b[i] = ' '
				trailing = append(trailing, i)
			}
		}
	}
	return b, trailing, nil
}

// stringEnd is the offset of the quote closing the string that starts at
// i (or the end of b).
func stringEnd(b []byte, i int) int {
	for i++; i < len(b) && b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// oddLineBreak is the offset, in the text of a // comment up to its LF,
// of a line break other than the CR of a CRLF; -1 when there is none.
func oddLineBreak(c []byte) int {
	for i, x := range c {
		switch {
		case x == '\v' || x == '\f' || x == '\r' && i != len(c)-1:
			return i
		case bytes.HasPrefix(c[i:], []byte("\u0085")) || bytes.HasPrefix(c[i:], []byte("\u2028")) || bytes.HasPrefix(c[i:], []byte("\u2029")):
			return i
		}
	}
	return -1
}
