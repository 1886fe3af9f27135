// Package policy is the user's rules for the CAD tools: which tools the
// client may see and call (allow and deny globs, read-only), the
// annotations merged into every tools/list answer, and which calls need the
// user's confirmation. Without a policy, the bridge behaves exactly as if
// this package did not exist: nothing is guessed from tool names.
package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Annotations are the MCP tool annotations a policy can set. A nil field is
// one the policy is silent about: the base's own value, if any, stays.
type Annotations struct {
	Title           *string `json:"title,omitempty"`
	ReadOnlyHint    *bool   `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool   `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool   `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool   `json:"openWorldHint,omitempty"`
}

// annotationRule is one "pattern": {annotations} entry, in file order.
type annotationRule struct {
	pattern string
	ann     Annotations
}

// Policy is a parsed policy. The nil *Policy is "no policy": every tool is
// allowed, nothing is annotated, nothing needs confirmation.
type Policy struct {
	// Source names where the rules came from, for messages: the file, and
	// the flags that added to it.
	Source string

	allow       []string // the tools allowed, when allowSet
	allowSet    bool     // an allow list is in force; an empty one allows no tool
	deny        []string
	confirm     []string
	annotations []annotationRule
	readOnly    bool
	confirmWith []string // who asks, from the file's confirmWith; nil: not said
}

// Options are the command-line shortcuts, added to a file's rules (or making
// a policy on their own).
type Options struct {
	Allow    []string // --allow-tools
	Deny     []string // --deny-tools
	ReadOnly bool     // --read-only
}

// Build makes the policy in force from an optional file's contents (nil for
// none; file names it in messages) and the shortcuts. It returns nil when
// there are no rules at all, so that the bridge behaves as it always did.
func Build(file string, data []byte, opt Options) (*Policy, error) {
	p := &Policy{}
	var src []string
	if data != nil {
		var err error
		if p, err = Parse(file, data); err != nil {
			return nil, err
		}
		src = append(src, file)
	}
	for _, list := range []struct {
		flag string
		pats []string
		dst  *[]string
	}{{"--allow-tools", opt.Allow, &p.allow}, {"--deny-tools", opt.Deny, &p.deny}} {
		for _, pat := range list.pats {
			pat = strings.TrimSpace(pat)
			if pat == "" {
				continue
			}
			if err := CheckPattern(pat); err != nil {
				return nil, fmt.Errorf("%s: pattern %q is malformed: %v (%s)", list.flag, pat, err, PatternSyntax)
			}
			*list.dst = append(*list.dst, pat)
		}
		p.allowSet = p.allowSet || len(p.allow) > 0
		if len(list.pats) > 0 {
			src = append(src, list.flag)
		}
	}
	if opt.ReadOnly {
		p.readOnly = true
		src = append(src, "--read-only")
	}
	if p.empty() {
		return nil, nil
	}
	p.Source = strings.Join(src, " + ")
	return p, nil
}

func (p *Policy) empty() bool {
	return !p.allowSet && len(p.deny) == 0 && len(p.confirm) == 0 && len(p.annotations) == 0 && !p.readOnly
}

// matchAny returns the first pattern in pats that matches name.
func matchAny(pats []string, name string) (string, bool) {
	for _, p := range pats {
		if Match(p, name) {
			return p, true
		}
	}
	return "", false
}

// Decision says whether a tool may be listed and called, and why not.
type Decision struct {
	Allowed bool
	Reason  string // why it is refused, naming the policy; "" when allowed
	// Kind is which rule refused it: denied (a deny pattern), not_allowed
	// (outside the allow list) or read_only (read-only mode); "" when
	// allowed. Telemetry counts refusals by it.
	Kind string
}

// Check decides for the tool name. baseAnn is the base's own annotations
// object for it (raw JSON, nil when unknown); it matters only for
// --read-only. Deny wins over allow.
func (p *Policy) Check(name string, baseAnn []byte) Decision {
	if p == nil {
		return Decision{Allowed: true}
	}
	if pat, ok := matchAny(p.deny, name); ok {
		return Decision{Kind: "denied", Reason: fmt.Sprintf("tool %q is denied by the mcp-bridge policy (%s: deny %q)", name, p.Source, pat)}
	}
	if p.allowSet {
		if _, ok := matchAny(p.allow, name); !ok {
			return Decision{Kind: "not_allowed", Reason: fmt.Sprintf("tool %q is not in the allow list of the mcp-bridge policy (%s)", name, p.Source)}
		}
	}
	if p.readOnly && !p.readOnlyTool(name, baseAnn) {
		return Decision{Kind: "read_only", Reason: fmt.Sprintf("tool %q is not marked read-only, and the mcp-bridge policy allows only read-only tools (%s)", name, p.Source)}
	}
	return Decision{Allowed: true}
}

// readOnlyTool: the merged annotations say readOnlyHint true.
func (p *Policy) readOnlyTool(name string, baseAnn []byte) bool {
	if a := p.annotationsFor(name); a.ReadOnlyHint != nil {
		return *a.ReadOnlyHint
	}
	if rpc.Kind(baseAnn) == '{' {
		return rpc.Kind(rpc.Field(baseAnn, "readOnlyHint")) == 't'
	}
	return false
}

// Who may ask the user to confirm a call, in a confirmWith list.
const (
	AskClient  = "client"  // the client, through elicitation
	AskDesktop = "desktop" // a dialog on the desktop of the bridge's machine
)

// WhoAsks is who asks a call's user to confirm it: the first in order (a
// confirmWith list) that can: AskClient when the client can show an
// elicitation form, AskDesktop when this machine can show a dialog; ""
// when none can. The bridge and connect choose alike.
func WhoAsks(order []string, clientCan, desktopCan bool) string {
	for _, who := range order {
		switch {
		case who == AskClient && clientCan:
			return AskClient
		case who == AskDesktop && desktopCan:
			return AskDesktop
		}
	}
	return ""
}

// CheckConfirmWith validates a confirmWith list (the policy file's, or
// --confirm-with's): client and desktop, in the order they are tried, each
// at most once, at least one.
func CheckConfirmWith(list []string) error {
	if len(list) == 0 {
		return errors.New(`want "client", "desktop" or both, in the order they are tried`)
	}
	for i, w := range list {
		if w != AskClient && w != AskDesktop {
			return fmt.Errorf("%q is neither client nor desktop", w)
		}
		if slices.Contains(list[:i], w) {
			return fmt.Errorf("%q is given twice", w)
		}
	}
	return nil
}

// ConfirmWith is who the policy file says asks, in order; nil when it does
// not say.
func (p *Policy) ConfirmWith() []string {
	if p == nil {
		return nil
	}
	return p.confirmWith
}

// AsksAny reports whether some call may need the user's confirmation.
func (p *Policy) AsksAny() bool { return p != nil && len(p.confirm) > 0 }

// NeedsConfirm reports whether a call to name waits for the user's
// agreement, and the confirm pattern that says so.
func (p *Policy) NeedsConfirm(name string) (string, bool) {
	if p == nil {
		return "", false
	}
	return matchAny(p.confirm, name)
}

// annotationsFor merges the annotation rules that match name, in file
// order: where two rules set the same field, the later one wins.
func (p *Policy) annotationsFor(name string) Annotations {
	var a Annotations
	for _, r := range p.annotations {
		if !Match(r.pattern, name) {
			continue
		}
		set(&a.Title, r.ann.Title)
		set(&a.ReadOnlyHint, r.ann.ReadOnlyHint)
		set(&a.DestructiveHint, r.ann.DestructiveHint)
		set(&a.IdempotentHint, r.ann.IdempotentHint)
		set(&a.OpenWorldHint, r.ann.OpenWorldHint)
	}
	return a
}

func set[T any](dst **T, v *T) {
	if v != nil {
		*dst = v
	}
}

// ApplyList returns a tools/list result as the client should see it: tools
// the policy refuses removed, and the policy's annotations merged into the
// others (the base's own annotations stay where the policy is silent). The
// result is raw JSON and must be valid; members other than tools, and every
// member of each tool other than annotations, are kept byte for byte. A
// result without a tools array is returned unchanged.
func (p *Policy) ApplyList(result []byte) []byte {
	if p == nil || rpc.Kind(result) != '{' {
		return result
	}
	tools := rpc.Field(result, "tools")
	if rpc.Kind(tools) != '[' {
		return result
	}
	out := make([]byte, 0, len(tools)+256)
	out = append(out, '[')
	n := 0
	rpc.EachElement(tools, func(from, to int) {
		tool := tools[from:to]
		name, baseAnn := lifecycle.ToolEntry(tool)
		if !p.Check(name, baseAnn).Allowed {
			return
		}
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out = append(out, p.annotate(tool, name, baseAnn)...)
	})
	out = append(out, ']')
	return rpc.AppendMembers(rpc.WithoutMember(result, "tools"), `"tools":`+string(out))
}

// annotate merges the policy's annotations for name into one tool object.
func (p *Policy) annotate(tool []byte, name string, baseAnn []byte) []byte {
	a := p.annotationsFor(name)
	if a == (Annotations{}) {
		return tool
	}
	merged := []byte(`{}`)
	if rpc.Kind(baseAnn) == '{' {
		merged = baseAnn
	}
	var add []string
	fields := []struct {
		key string
		v   any
	}{{"title", a.Title}, {"readOnlyHint", a.ReadOnlyHint}, {"destructiveHint", a.DestructiveHint}, {"idempotentHint", a.IdempotentHint}, {"openWorldHint", a.OpenWorldHint}}
	for _, f := range fields {
		switch v := f.v.(type) {
		case *string:
			if v == nil {
				continue
			}
		case *bool:
			if v == nil {
				continue
			}
		}
		merged = rpc.WithoutMember(merged, f.key)
		b, _ := json.Marshal(f.v)
		add = append(add, fmt.Sprintf("%q:%s", f.key, b))
	}
	merged = rpc.AppendMembers(merged, strings.Join(add, ","))
	return rpc.AppendMembers(rpc.WithoutMember(tool, "annotations"), `"annotations":`+string(merged))
}

// Unmatched returns the patterns, each with the list it is in, that match
// none of the given tool names: usually a typo.
func (p *Policy) Unmatched(names []string) []string {
	if p == nil {
		return nil
	}
	var out []string
	check := func(list string, pats []string) {
		for _, pat := range pats {
			if !slices.ContainsFunc(names, func(n string) bool { return Match(pat, n) }) {
				out = append(out, fmt.Sprintf("%s %q", list, pat))
			}
		}
	}
	check("allow", p.allow)
	check("deny", p.deny)
	check("confirm", p.confirm)
	for _, r := range p.annotations {
		check("annotations", []string{r.pattern})
	}
	return out
}

// Summary describes the rules in one line, for doctor and the log.
func (p *Policy) Summary() string {
	if p == nil {
		return "none (every tool of the base, as the base describes it)"
	}
	var parts []string
	switch {
	case len(p.allow) > 0:
		parts = append(parts, "allow "+strings.Join(p.allow, ","))
	case p.allowSet:
		parts = append(parts, "allow none (an empty allow list)")
	}
	if len(p.deny) > 0 {
		parts = append(parts, "deny "+strings.Join(p.deny, ","))
	}
	if p.readOnly {
		parts = append(parts, "read-only tools only")
	}
	if len(p.confirm) > 0 {
		parts = append(parts, "confirm "+strings.Join(p.confirm, ","))
	}
	if len(p.annotations) > 0 {
		parts = append(parts, fmt.Sprintf("annotations for %d patterns", len(p.annotations)))
	}
	return p.Source + ": " + strings.Join(parts, "; ")
}
