package rpc

// maxDepth is encoding/json's nesting limit; Valid agrees with json.Valid.
const maxDepth = 10000

// Valid reports whether data is exactly one JSON value (with optional
// surrounding whitespace). It accepts exactly what encoding/json.Valid
// accepts (FuzzValid checks that), but runs several times faster on the
// large string payloads tool results carry, because it skips string
// contents with a tight loop instead of a per-byte state machine.
func Valid(data []byte) bool {
	i := skipSpace(data, 0)
	i, ok := validValue(data, i)
	if !ok {
		return false
	}
	return skipSpace(data, i) == len(data)
}

// validValue checks the value starting at i and returns the index after it.
// Nesting is tracked on an explicit stack, so deep input cannot overflow
// the goroutine stack.
func validValue(data []byte, i int) (int, bool) {
	var stack []byte // '{' or '[' per open container
	for {
		// A value is expected at i.
		if i >= len(data) {
			return i, false
		}
		switch c := data[i]; {
		case c == '{' || c == '[':
			if len(stack) >= maxDepth {
				return i, false
			}
			stack = append(stack, c)
			i = skipSpace(data, i+1)
			if i < len(data) && data[i] == c+2 { // '}' or ']': empty
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if c == '{' {
				var ok bool
				if i, ok = validKey(data, i); !ok {
					return i, false
				}
			}
			continue
		case c == '"':
			var ok bool
			if i, ok = validString(data, i); !ok {
				return i, false
			}
		case c == '-' || (c >= '0' && c <= '9'):
			var ok bool
			if i, ok = validNumber(data, i); !ok {
				return i, false
			}
		case c == 't':
			if !hasPrefix(data[i:], "true") {
				return i, false
			}
			i += 4
		case c == 'f':
			if !hasPrefix(data[i:], "false") {
				return i, false
			}
			i += 5
		case c == 'n':
			if !hasPrefix(data[i:], "null") {
				return i, false
			}
			i += 4
		default:
			return i, false
		}
		// After a value: close containers or expect the next member.
		for {
			if len(stack) == 0 {
				return i, true
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return i, false
			}
			top := stack[len(stack)-1]
			if data[i] == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if data[i] != ',' {
				return i, false
			}
			i = skipSpace(data, i+1)
			if top == '{' {
				var ok bool
				if i, ok = validKey(data, i); !ok {
					return i, false
				}
			}
			break
		}
	}
}

// validKey checks `"key" :` at i and returns the index of the value.
func validKey(data []byte, i int) (int, bool) {
	if i >= len(data) || data[i] != '"' {
		return i, false
	}
	i, ok := validString(data, i)
	if !ok {
		return i, false
	}
	i = skipSpace(data, i)
	if i >= len(data) || data[i] != ':' {
		return i, false
	}
	return skipSpace(data, i+1), true
}

func validString(data []byte, i int) (int, bool) {
	i++ // the opening quote
	q := -1
	for {
		k := plainRun(data[i:])
		if k == shortLen { // a long run: find its end, then check it
			j := nextSpecial(data, i+k, &q)
			if c := controlIndex(data[i+k : j]); c >= 0 {
				return i + k + c, false
			}
			k = j - i
		}
		if i += k; i >= len(data) || data[i] < 0x20 {
			return i, false
		}
		if data[i] == '"' {
			return i + 1, true
		}
		// An escape.
		if i+1 >= len(data) {
			return i, false
		}
		switch data[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > len(data) {
				return i, false
			}
			for _, h := range data[i+2 : i+6] {
				if !isHex(h) {
					return i, false
				}
			}
			i += 6
		default:
			return i, false
		}
	}
}

func validNumber(data []byte, i int) (int, bool) {
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		i = digits(data, i)
	default:
		return i, false
	}
	if i < len(data) && data[i] == '.' {
		j := digits(data, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(data, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

func digits(data []byte, i int) int {
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	return i
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hasPrefix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[:len(s)]) == s
}
