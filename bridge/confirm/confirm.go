// Package confirm asks the user before a tool call runs: the elicitation
// request shown to the user (the tool and its arguments in readable form),
// the reading of the user's answer, and, for 2026-07-28 clients, the signed
// requestState that lets the client re-send the call with the answer
// without letting it skip the question.
package confirm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// InputKey is the key of the bridge's one input request in a 2026-07-28
// input_required result, and of the client's answer in inputResponses.
const InputKey = "confirm"

// Params returns the params of the elicitation/create request that asks the
// user whether to run tool with args (raw JSON object, or nil): a form with
// one required boolean, which every elicitation-capable client can show.
func Params(tool string, args []byte) []byte {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"confirm": map[string]any{
				"type":        "boolean",
				"title":       "Run " + tool,
				"description": "Tick to let the assistant run " + tool + " on your drawing; leave it or decline to stop it.",
				"default":     false,
			},
		},
		"required": []string{"confirm"},
	}
	b, _ := json.Marshal(map[string]any{"mode": "form", "message": Message(tool, args), "requestedSchema": schema})
	return b
}

// LegacyParams is Params for clients of 2025-06-18 and before, whose
// elicitation params have no "mode".
func LegacyParams(tool string, args []byte) []byte {
	return rpc.WithoutMember(Params(tool, args), "mode")
}

// InputRequest is the input_required result's inputRequests member value.
func InputRequest(tool string, args []byte) []byte {
	return fmt.Appendf(nil, `{%q:{"method":"elicitation/create","params":%s}}`, InputKey, Params(tool, args))
}

const (
	maxValue   = 200  // characters of one argument shown
	maxMessage = 2000 // characters of the whole message
)

// Message is the question shown to the user: the tool and each argument on
// its own line, values as compact JSON, long ones cut.
func Message(tool string, args []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The assistant wants to run %s on your drawing. Allow it?", tool)
	var m map[string]json.RawMessage
	if rpc.Kind(args) == '{' && json.Unmarshal(args, &m) == nil && len(m) > 0 {
		b.WriteString("\n\nArguments:")
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			var v bytes.Buffer
			_ = json.Compact(&v, m[k])
			fmt.Fprintf(&b, "\n  %s: %s", k, cut(v.String(), maxValue))
		}
	} else {
		b.WriteString("\n\n(no arguments)")
	}
	return cut(b.String(), maxMessage)
}

func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Answer is what the user did with the question.
type Answer int

const (
	Accepted  Answer = iota
	Declined         // action "decline", or accepted without ticking the box
	Cancelled        // action "cancel" (the dialog was dismissed)
	Invalid          // not an elicitation result
)

func (a Answer) String() string {
	return [...]string{"accepted", "declined", "cancelled", "invalid"}[a]
}

// Read interprets an elicitation result: accepted only when the action is
// "accept" and the form's confirm is true.
func Read(result []byte) Answer {
	if rpc.Kind(result) != '{' {
		return Invalid
	}
	var r struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if json.Unmarshal(result, &r) != nil {
		return Invalid
	}
	switch r.Action {
	case "accept":
		if v, ok := r.Content["confirm"].(bool); ok && v {
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

// canonical is args in a form that does not depend on spacing or member
// order, for binding requestState to them.
func canonical(args []byte) []byte {
	if len(bytes.TrimSpace(args)) == 0 || rpc.Kind(args) == 'z' {
		return []byte("{}")
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return args
	}
	b, err := json.Marshal(v) // map keys sorted
	if err != nil {
		return args
	}
	return b
}
