// Package confirm asks the user before a tool call runs: the elicitation
// request shown to the user (the tool and its arguments in readable form),
// the reading of the user's answer, and, for 2026-07-28 clients, the signed
// requestState that lets the client re-send the call with the answer
// without letting it skip the question.
package confirm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/configs/cut"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Params returns the params of the elicitation/create request that asks the
// user whether to run tool with args (raw JSON object, or nil): a form with
// one required boolean, which every elicitation-capable client can show. It
// fails when the question could not show every argument (Message).
func Params(tool string, args []byte) ([]byte, error) {
	msg, err := Message(tool, args)
	if err != nil {
		return nil, err
	}
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			lifecycle.InputKey: map[string]any{
				"type":        "boolean",
				"title":       "Run " + label(tool),
				"description": "Tick to let the assistant run " + label(tool) + " on your drawing; leave it or decline to stop it.",
				"default":     false,
			},
		},
		"required": []string{lifecycle.InputKey},
	}
	b, _ := json.Marshal(map[string]any{"mode": "form", "message": msg, "requestedSchema": schema})
	return b, nil
}

// LegacyParams is Params for clients of 2025-06-18 and before, whose
// elicitation params have no "mode".
func LegacyParams(tool string, args []byte) ([]byte, error) {
	p, err := Params(tool, args)
	if err != nil {
		return nil, err
	}
	return rpc.WithoutMember(p, "mode"), nil
}

// InputRequest is the input_required result's inputRequests member value.
func InputRequest(tool string, args []byte) ([]byte, error) {
	p, err := Params(tool, args)
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(nil, `{%q:{"method":"elicitation/create","params":%s}}`, lifecycle.InputKey, p), nil
}

const (
	maxName    = 64   // characters of one argument's name shown
	maxValue   = 200  // characters of one argument's value shown, room permitting
	minValue   = 16   // the fewest a value is cut to before the question gives up
	maxMessage = 2000 // characters of the whole message
)

// Message is the question shown to the user: the tool and every argument on
// a line of its own, sorted by name, values as compact JSON. The arguments,
// names included, come from the assistant, so nothing in them may pass for
// another line or hide one: a name that is not plain text (a space, a
// quote, a colon, markup, a line break, an invisible or bidirectional
// character) is shown quoted with such characters escaped, and cut when
// long; values are escaped alike and cut to share the room. It fails when even then the
// names do not all fit in maxMessage characters: a question that hid an
// argument would not be the user's agreement to it.
func Message(tool string, args []byte) (string, error) {
	return text(fmt.Sprintf("The assistant wants to run %s on your drawing. Allow it?", label(tool)), "", args, markup)
}

// Text is Message with the caller's own first line (head) and last part
// (tail, "" for none), for a question shown as plain text elsewhere than in
// the client (the bridge's desktop dialog): the arguments are shown by
// Message's rules within the same maxMessage characters, head and tail
// included, except that the markup characters are shown as they are
// (nothing renders them there). Names put into head must go through Label.
func Text(head, tail string, args []byte) (string, error) { return text(head, tail, args, "") }

// text is the question's text; special are the characters that are
// escaped inside names and strings besides the invisible ones (markup, or
// none).
func text(head, tail string, args []byte, special string) (string, error) {
	type arg struct{ name, value string }
	var list []arg
	if rpc.Kind(args) == rpc.KindObject {
		if rpc.ScanObject(args, func(k string, from, to int) bool {
			var v bytes.Buffer
			_ = json.Compact(&v, args[from:to])
			list = append(list, arg{labelFor(k, special), escape(v.String(), true, special)})
			return true
		}) != nil {
			return "", errors.New("its arguments cannot be read")
		}
	}
	if len(list) == 0 {
		return head + "\n\n(no arguments)" + tail, nil
	}
	slices.SortStableFunc(list, func(a, b arg) int { return strings.Compare(a.name, b.name) })
	const intro, sep = "\n\nArguments:", ": "
	room := maxMessage - utf8.RuneCountInString(head+intro+tail)
	lens := make([]int, len(list))
	for i, a := range list {
		room -= utf8.RuneCountInString("\n  " + a.name + sep)
		lens[i] = utf8.RuneCountInString(a.value)
	}
	// The longest cut that lets every value fit.
	fits := func(c int) bool {
		n := 0
		for _, l := range lens {
			n += min(l, c)
		}
		return n <= room
	}
	c := maxValue
	for c >= minValue && !fits(c) {
		c--
	}
	if c < minValue {
		return "", fmt.Errorf("its %d arguments cannot all be shown in one question", len(list))
	}
	var b strings.Builder
	b.WriteString(head + intro)
	for _, a := range list {
		b.WriteString("\n  " + a.name + sep + cut.Chars(a.value, c))
	}
	b.WriteString(tail)
	return b.String(), nil
}

// Label is a name (a tool's, a client's, a bridge's) as a plain-text
// question (Text) shows it: as it is when it is plain text, else quoted,
// with the characters that could hide or fake text escaped, and cut.
func Label(name string) string { return labelFor(name, "") }

func label(name string) string { return labelFor(name, markup) }

// label is a name as the question shows it: as it is when it is plain
// text, else quoted with its invisible characters escaped; cut at maxName
// characters either way.
func labelFor(name, special string) string {
	plain := name != "" && utf8.RuneCountInString(name) <= maxName
	prev := rune(0)
	for _, r := range name {
		if !unicode.IsGraphic(r) || unicode.IsSpace(r) || invisible(r) || strings.ContainsRune(`"\:`+special, r) || !asIs(r, prev, special) {
			plain = false
			break
		}
		prev = r
	}
	if plain {
		return name
	}
	if r := []rune(name); len(r) > maxName+1 {
		// cut marks it cut; escaping the rest (megabytes from a client)
		// would only be thrown away.
		name = string(r[:maxName+1])
	}
	var b strings.Builder
	prev = 0
	for _, r := range name {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case asIs(r, prev, special):
			b.WriteRune(r)
		default:
			for _, u := range utf16.Encode([]rune{r}) { // bytes not UTF-8: U+FFFD
				fmt.Fprintf(&b, `\u%04x`, u)
			}
		}
		prev = r
	}
	return `"` + cut.Chars(b.String(), maxName) + `"`
}

// markup are the characters with which a client that renders the question
// as Markdown would hide or strike text: HTML (< > &: a comment or tag
// hides the lines between), links and images ([ ]: an image's text is not
// shown) and strikethrough (~).
const markup = "<>&[]~"

// escape writes, as \uXXXX, every character of s that the user would not
// see as itself: controls, line and paragraph separators, spaces other
// than " ", invisible formatting characters (zero-width, bidirectional
// overrides), other characters that display as nothing (invisible), and
// bytes that are not UTF-8 (shown as U+FFFD, which is how decoders read
// them); and the markup characters. When s is JSON, only inside its
// strings, where the escape means the same (outside them [ and ] are
// arrays, and the rest cannot occur).
func escape(s string, isJSON bool, special string) string {
	var b strings.Builder
	inString, escaped := !isJSON, false
	prev := rune(0)
	for i, r := range s {
		before := prev
		prev = r
		if isJSON {
			switch {
			case escaped: // the character after a backslash: ASCII
				escaped = false
				b.WriteRune(r)
				continue
			case r == '"':
				inString = !inString
				b.WriteRune(r)
				continue
			case r == '\\' && inString:
				escaped = true
				b.WriteRune(r)
				continue
			}
		}
		if r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			r = unicode.ReplacementChar
		} else if unicode.IsPrint(r) && !invisible(r) && !(inString && strings.ContainsRune(special, r)) && (!inString || asIs(r, before, "")) {
			b.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&b, `\u%04x`, u)
		}
	}
	return b.String()
}

// asIs reports whether r, after prev, is shown as itself: a printable,
// visible character that is not special, and not the second of a run of
// spaces (a dialog wraps at spaces: a run of them pushes what follows onto
// a line of its own, where it passes for another argument) nor a
// combining mark on a combining mark (stacked marks draw over the lines
// above and below).
func asIs(r, prev rune, special string) bool {
	switch {
	case !unicode.IsPrint(r) || invisible(r) || strings.ContainsRune(special, r):
		return false
	case r == ' ' && prev == ' ':
		return false
	case unicode.In(r, unicode.Mn, unicode.Me) && unicode.In(prev, unicode.Mn, unicode.Me):
		return false
	}
	return true
}

// invisible reports the printable characters that display as nothing: the
// default-ignorable ones that are not formatting characters (Hangul
// fillers, U+034F) and variation selectors.
func invisible(r rune) bool {
	return unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// Read interprets an elicitation result (a client's response to the
// question, or a 2026-07-28 call's answer to the bridge's input request,
// lifecycle.Request.Input): accepted only when the action is
// "accept" and the form's confirm is true. Keys are read exactly, as every
// message is: an object in which two keys are one to a case-insensitive
// decoder ("action" and "ACTION", or one key twice) says two things, and is
// no answer.
func Read(result []byte) Answer {
	object := func(v []byte) bool {
		_, _, twins := rpc.FoldTwins(v, false)
		return rpc.Kind(v) == rpc.KindObject && !twins
	}
	if !object(result) {
		return Invalid
	}
	action, ok := rpc.String(rpc.Field(result, "action"))
	if !ok {
		return Invalid
	}
	switch action {
	case "accept":
		if content := rpc.Field(result, "content"); object(content) && rpc.Kind(rpc.Field(content, lifecycle.InputKey)) == rpc.KindTrue {
			return Accepted
		}
		return Declined
	case "decline":
		return Declined
	case "cancel":
		return Cancelled
	}
	return Invalid
}

// Refusal is the isError tool result given instead of running the call.
func Refusal(tool, why string) []byte {
	b, _ := json.Marshal(map[string]any{
		"content": []map[string]string{{"type": "text", "text": fmt.Sprintf("%s was not run: %s. Nothing was sent to CAD.", tool, why)}},
		"isError": true,
	})
	return b
}
