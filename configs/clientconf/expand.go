package clientconf

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Expansion is what a client fills in in the strings of its file (the
// URL, the headers, the command line, the environment), as its own code
// or documentation says (configs/README.md, "What each client fills
// in"): its passes run in order over every string, each replacing every
// match of its pattern.
type Expansion struct {
	Passes []ExpandPass
	// Unconfirmed: nothing we could read says what the client fills in;
	// it gets the union of every client's syntax, to be safe.
	Unconfirmed bool
}

// ExpandPass is one pattern a client replaces. The pattern's named groups
// say what a match is: a group named name… holds an environment
// variable's name, def the default used when it is unset (${VAR:-def}),
// file a file's path whose content replaces it; a match with none of
// them is a value of the client's own (${workspaceFolder}, ${input:id}).
type ExpandPass struct {
	// Re is the pattern, compiled when first used: a stdio bridge, which
	// edits no client's file, never compiles it (package initialisation
	// compiled ten of them, 47 KB and the regexp compiler's code pages,
	// in every run).
	Re func() *regexp.Regexp
	// UnsetEmpty: an unset variable becomes "" (OpenCode, VS Code); else
	// the reference stays as written.
	UnsetEmpty bool
}

// The clients' syntaxes (sources in configs/README.md).
var (
	// Gemini CLI's resolveEnvVarsInString: $NAME (\w+, digits first too),
	// ${NAME} and ${NAME:-default}; an unset one stays as written.
	shellVars = &Expansion{Passes: []ExpandPass{{Re: lazyRegexp(`\$(?:(?P<name>\w+)|\{(?P<name2>[^}]+?)(?::-(?P<def>[^}]*))?\})`)}}}
	// Claude Code: ${NAME} and ${NAME:-default}, never $NAME.
	braceVars = &Expansion{Passes: []ExpandPass{{Re: lazyRegexp(`\$\{(?P<name>[^}]+?)(?::-(?P<def>[^}]*))?\}`)}}}
	// CodeBuddy Code's expandEnvVariables (2.117.0, in command, args,
	// env, url and headers): ${NAME} and ${NAME:-default} for a NAME of
	// capitals, digits and _ not starting with a digit; an unset one
	// stays as written.
	codebuddyVars = &Expansion{Passes: []ExpandPass{{Re: lazyRegexp(`\$\{(?P<name>[A-Z_][A-Z0-9_]*)(?::-(?P<def>.*?))?\}`)}}}
	// VS Code's resolver: every ${…}; ${env:NAME} is a variable ("" when
	// unset), the others (${workspaceFolder}, ${input:id}, ${config:…},
	// ${command:…}) its own.
	vscodeVars = &Expansion{Passes: []ExpandPass{{Re: lazyRegexp(`\$\{env:(?P<name>[^}]*)\}|\$\{[^}]*\}`), UnsetEmpty: true}}}
	// Cursor: ${env:NAME}, and its own ${userHome}, ${workspaceFolder},
	// ${workspaceFolderBasename}, ${pathSeparator}, ${/}.
	cursorVars = &Expansion{Passes: []ExpandPass{{Re: lazyRegexp(`\$\{env:(?P<name>[^}]+)\}|\$\{[^}]*\}`)}}}
	// Windsurf: ${env:NAME} and ${file:PATH}.
	windsurfVars = &Expansion{Passes: []ExpandPass{{Re: lazyRegexp(`\$\{env:(?P<name>[^}]+)\}|\$\{file:(?P<file>[^}]+)\}|\$\{[^}]*\}`)}}}
	// OpenCode's ConfigVariable.substitute, on the file's text: first
	// {env:NAME} ("" when unset), then {file:PATH}.
	opencodeVars = &Expansion{Passes: []ExpandPass{
		{Re: lazyRegexp(`\{env:(?P<name>[^}]+)\}`), UnsetEmpty: true},
		{Re: lazyRegexp(`\{file:(?P<file>[^}]+)\}`)},
	}}
	// Codex reads its strings as written.
	noVars = &Expansion{}
	// Every syntax above, and Windows' %NAME%: for a client nothing says
	// anything about.
	anyVars = &Expansion{Unconfirmed: true, Passes: []ExpandPass{{Re: lazyRegexp(
		`\$(?P<name>\w+)|\$\{[^}]*\}|\{env:(?P<name2>[^}]+)\}|\{file:(?P<file>[^}]+)\}|%(?P<name3>[A-Za-z_][A-Za-z0-9_]*)%`)}}}
)

// lazyRegexp is a pattern compiled once, when first used.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// expansion is what c fills in.
func (c *Client) expansion() *Expansion {
	if c.Expands == nil {
		return anyVars
	}
	return c.Expands
}

// Ref is one reference a client fills in, found in a string.
type Ref struct {
	Text string // as written: "$GITHUB_TOKEN", "${env:HOME}"
	Var  string // the environment variable it names, if it names one
	File string // the file whose content replaces it, if it is one
	// Known: Expand knew its value (a variable, set or not); false for a
	// file's content or a value of the client's own.
	Known bool
}

// Expand is v as the client sends it: every reference replaced as the
// client replaces it, variables read with getenv (nil: none set; an empty
// value counts as unset). A file's content and the client's own values
// are left as written (Ref.Known false). refs are the references found,
// in order.
func (c *Client) Expand(v string, getenv func(string) string) (out string, refs []Ref) {
	out = v
	for _, p := range c.expansion().Passes {
		out = p.Re().ReplaceAllStringFunc(out, func(m string) string {
			ref, def, hasDef := p.ref(m)
			switch {
			case ref.Var != "":
				ref.Known = true
				refs = append(refs, ref)
				if getenv != nil {
					if val := getenv(ref.Var); val != "" {
						return val
					}
				}
				if hasDef {
					return def
				}
				if p.UnsetEmpty {
					return ""
				}
				return m
			default:
				refs = append(refs, ref)
				return m
			}
		})
	}
	return out, refs
}

// ref reads one match of the pattern.
func (p ExpandPass) ref(m string) (ref Ref, def string, hasDef bool) {
	ref.Text = m
	re := p.Re()
	sub := re.FindStringSubmatchIndex(m)
	for i, name := range re.SubexpNames() {
		if name == "" || sub[2*i] < 0 {
			continue
		}
		val := m[sub[2*i]:sub[2*i+1]]
		switch {
		case strings.HasPrefix(name, "name"):
			ref.Var = val
		case name == "def":
			def, hasDef = val, true
		case name == "file":
			ref.File = val
		}
	}
	return ref, def, hasDef
}

// says is what the client does with the reference, for people.
func (c *Client) says(ref Ref) string {
	var what string
	switch {
	case ref.Var != "":
		what = fmt.Sprintf("replaces %s with the value of the environment variable %s", ref.Text, ref.Var)
	case ref.File != "":
		what = fmt.Sprintf("replaces %s with the content of the file %s", ref.Text, ref.File)
	default:
		what = fmt.Sprintf("replaces %s with a value of its own", ref.Text)
	}
	if c.expansion().Unconfirmed {
		return fmt.Sprintf("%s may %s (nothing says what %s fills in, so install refuses every client's syntax for it)", c.Name, what, c.Name)
	}
	return c.Name + " " + what
}

// CheckExpansion refuses an entry with a string in it that the client
// would fill in: the URL would carry another secret to its host, a
// header would send it, the bridge would start with other arguments than
// the ones written. The token reference install writes in the
// Authorization header is the one filled in on purpose.
func (c *Client) CheckExpansion(s Server) error {
	check := func(v, where, because string) error {
		if _, refs := c.Expand(v, nil); len(refs) > 0 {
			return fmt.Errorf("%s %q: %s, so %s", where, v, c.says(refs[0]), because)
		}
		return nil
	}
	if s.URL != "" {
		host := "its host"
		if u, err := url.Parse(s.URL); err == nil && u.Host != "" {
			host = u.Host
		}
		if err := check(s.URL, "--url", "the URL would carry it to "+host+": write $ as %24, { as %7B, } as %7D, % as %25"); err != nil {
			return err
		}
	}
	for _, k := range sortedKeys(s.Headers) {
		v := s.Headers[k]
		if k == "Authorization" && c.URLForm != nil && c.URLForm.VarRef != "" && v == "Bearer "+c.TokenRef() {
			continue
		}
		if err := check(v, "the "+k+" header", "the header would send it to the host"); err != nil {
			return err
		}
	}
	started := "the client would start the bridge with it instead of what install wrote"
	if err := check(s.Command, "the command", started+": run install from a copy of mcp-bridge in another folder (or --copy)"); err != nil {
		return err
	}
	for _, a := range s.Args {
		if err := check(a, "the argument", started); err != nil {
			return err
		}
	}
	for _, k := range sortedKeys(s.Env) {
		if err := check(s.Env[k], k, started); err != nil {
			return err
		}
	}
	return nil
}
