package main

import (
	"embed"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
)

// docsURL is where the docs/ pages the topics point to are read online;
// a checkout and the release archive have them under docs/.
const docsURL = "https://github.com/mcp-bridge/mcp-bridge/blob/main/"

// commandHelp is a subcommand as the root help lists it.
type commandHelp struct{ name, summary string }

// commandList is every subcommand, in the root help's order and groups
// (an empty name starts a group; its summary is the group's heading).
var commandList = []commandHelp{
	{"", "Set up and check"},
	{"install", "register the bridge with your assistant (help clients)"},
	{"uninstall", "take that registration out again"},
	{"doctor", "check the CAD base and every registration on this machine"},
	{"verify", "check the bridge with your CAD program, as a client would"},
	{"launch-command", "the flags that start FreeCAD or AutoCAD when it is closed"},
	{"", "Try it, talk to the CAD base"},
	{"demo", "see the bridge work, on a simulated CAD base"},
	{"sim", "run a simulated CAD base"},
	{"tools", "list the CAD base's tools"},
	{"call", "call one tool of the CAD base"},
	{"request", "send one raw JSON-RPC frame to the CAD base"},
	{"", "More"},
	{"journal", "read the record that --journal FILE writes"},
	{"connect", "relay stdio to a bridge on another machine over HTTPS"},
	{"bench", "measure the bridge against a direct call to the base"},
	{"help", "this text; help <command>, help <topic>"},
	{"version", "the version (also --version)"},
}

// commands are the subcommands' names, for suggestions and `help`.
var commands = func() []string {
	var names []string
	for _, c := range commandList {
		if c.name != "" {
			names = append(names, c.name)
		}
	}
	return names
}()

// commonFlags are the bridge's flags most people set, as the root help
// shows them: the flag, its value's name, what it does (its default, and
// that it has a variable, come from the flag itself).
var commonFlags = []struct{ name, value, text string }{
	{"port", "N", "the CAD base's TCP port"},
	{"host", "HOST", "the CAD base's host"},
	{"policy", "FILE", "which tools the assistant sees, which need your OK"},
	{"launch", "PROGRAM", "start CAD when a call finds it closed (help launch)"},
	{"listen", "ADDR", "serve Streamable HTTP instead of stdio (help http)"},
	{"log-file", "FILE", "append the logs to FILE instead of stderr"},
	{"print-config", "", "print the entry that registers the bridge in a client"},
}

// rootHelp is `mcp-bridge --help`, `-h` and `help`: one terminal's
// screen (TestRootHelpFitsOneScreen) of what it is, the commands, the
// flags most people set and the topics. The rest is under the topics.
func rootHelp(fs *pflag.FlagSet) string {
	var b strings.Builder
	fmt.Fprintf(&b, `mcp-bridge %s lets an AI assistant (Claude Desktop, Cursor, VS Code, any
MCP client) drive your CAD program through its MCP base, a TCP server in CAD.

Usage: mcp-bridge [flags]          the bridge itself: your assistant starts it
       mcp-bridge <command> [flags]

`, version)
	for _, c := range commandList {
		if c.name == "" {
			fmt.Fprintf(&b, "%s:\n", c.summary)
			continue
		}
		fmt.Fprintf(&b, "  %-16s%s\n", c.name, c.summary)
	}
	b.WriteString("\nFlags most people set (all of them: mcp-bridge help settings):\n")
	for _, c := range commonFlags {
		fl := fs.Lookup(c.name)
		text := c.text
		switch def := fl.DefValue; {
		case def != "" && def != "false":
			text += " (default " + def + ")"
		}
		fmt.Fprintf(&b, "  %-19s%s\n", strings.TrimSpace("--"+c.name+" "+c.value), text)
	}
	b.WriteString("The settings are also read from CAD_MCP_<NAME>: CAD_MCP_PORT=9000.\n")
	b.WriteString("\nTopics, each with its flags (mcp-bridge help <topic>):\n")
	b.WriteString(wrapWords(strings.Split(strings.Join(topicNames(), ", "), " "), "  ", helpWidth) + "\n")
	b.WriteString("A command's own flags: mcp-bridge <command> --help. The docs: docs/README.md\n")
	return b.String()
}

// usages lists the flags of fs that keep says to, in the order given (or
// fs's order when order is nil), hidden ones left out: the flag and its
// value's kind, then what it does and its default, wrapped to helpWidth.
func usages(fs *pflag.FlagSet, keep func(*pflag.Flag) bool, order []string) string {
	var flags []*pflag.Flag
	add := func(fl *pflag.Flag) {
		if keep(fl) && !fl.Hidden {
			flags = append(flags, fl)
		}
	}
	if order != nil {
		for _, n := range order {
			if fl := fs.Lookup(n); fl != nil {
				add(fl)
			}
		}
	} else {
		fs.VisitAll(add)
	}
	return formatFlags(flags)
}

// all keeps every flag (usages).
func all(*pflag.Flag) bool { return true }

// formatFlags is the flags' lines: "  --port int   what it does (default
// 8080)", a switch (bool) without a value's kind, the texts in one column
// (at most a third of the line in, else on the next line).
func formatFlags(flags []*pflag.Flag) string {
	lefts := make([]string, len(flags))
	col := 0
	for i, fl := range flags {
		name, _ := pflag.UnquoteUsage(fl)
		if fl.Value.Type() == "bool" {
			name = ""
		}
		lefts[i] = strings.TrimSpace("  --" + fl.Name + " " + name)
		lefts[i] = "  " + lefts[i]
		col = max(col, len(lefts[i])+3)
	}
	col = min(col, helpWidth/3)
	var b strings.Builder
	for i, fl := range flags {
		_, text := pflag.UnquoteUsage(fl)
		words := strings.Fields(text)
		switch def := fl.DefValue; {
		case def == "" || def == "false" || def == "[]" || def == "0s": // 0s: not set (its text says what then)
		default:
			words = append(words, "(default "+def+")") // on one line, a path with spaces too
		}
		indent := strings.Repeat(" ", col)
		body := wrapWords(words, indent, helpWidth)
		if len(lefts[i])+2 <= col {
			b.WriteString(lefts[i] + body[len(lefts[i]):] + "\n")
		} else {
			b.WriteString(lefts[i] + "\n" + body + "\n")
		}
	}
	return b.String()
}

// helpWidth is the width help is wrapped to: a terminal's 80 columns,
// less one (a console window breaks a line of exactly 80).
const helpWidth = 79

// topicKey is the annotation that puts a flag in its topic's group.
const topicKey = "mcp-bridge/topic"

// addGroup adds the flags add defines to fs, each marked as one of
// topic's: `help <topic>` lists them, and `help settings` lists every
// group under its topic's name.
func addGroup(fs *pflag.FlagSet, topic string, add func(*pflag.FlagSet)) {
	g := pflag.NewFlagSet(topic, pflag.ContinueOnError)
	g.SortFlags = false
	add(g)
	g.VisitAll(func(fl *pflag.Flag) {
		if fl.Annotations == nil {
			fl.Annotations = map[string][]string{}
		}
		fl.Annotations[topicKey] = []string{topic}
	})
	fs.AddFlagSet(g)
}

// inTopic is whether a flag is in topic's group ("" for the flags in no
// group).
func inTopic(topic string) func(*pflag.Flag) bool {
	return func(fl *pflag.Flag) bool {
		return topicOf(fl) == topic
	}
}

func topicOf(fl *pflag.Flag) string {
	if t := fl.Annotations[topicKey]; len(t) > 0 {
		return t[0]
	}
	return ""
}

// topic is a subject `mcp-bridge help <topic>` explains in a few lines,
// with the bridge flags of its group, pointing to the docs/ page that
// says the rest.
type topic struct {
	name, summary string
	page          string // the docs page, from the repository's root
	section       string // the page's heading to start at, or ""
}

// topicTexts are the topics' texts, topics/<name>.txt: prose, kept as
// text; {{clients}} stands for the list of clients install knows.
//
//go:embed topics/*.txt
var topicTexts embed.FS

// text is the topic's own words, as help prints them after its heading.
func (t *topic) text() string {
	b, err := topicTexts.ReadFile("topics/" + t.name + ".txt")
	if err != nil {
		panic("help topic " + t.name + " has no text: " + err.Error()) // every topic has its file (TestHelpGolden)
	}
	return strings.ReplaceAll(string(b), "{{clients}}", clientList())
}

// topics are in the order `mcp-bridge help` lists them. Their texts
// (topics/<name>.txt) are kept as golden files (testdata/help/topic-*.txt), and their pages are
// checked to exist (TestHelpTopicPagesExist).
var topics = []topic{
	{"clients", "install in a client, the file each one reads, what each can do", "docs/clients.md", ""},
	{"base", "what must run in the CAD program, and its settings", "docs/base.md", ""},
	{"policy", "which tools clients see, which calls need your agreement", "docs/policy.md", ""},
	{"journal", "a record of every tool request, and reading it", "docs/journal.md", ""},
	{"launch", "starting CAD when a call finds it closed", "docs/launch.md", ""},
	{"http", "Streamable HTTP: one CAD program for several clients", "docs/http.md", ""},
	{"remote", "CAD on another machine: --listen there, connect here", "docs/http.md", "CAD on another machine"},
	{"telemetry", "traces and metrics for sites with many workstations", "docs/telemetry.md", ""},
	{"diagnostics", "doctor, verify, the base's tools, logs, what errors mean", "docs/diagnostics.md", ""},
	{"settings", "every flag of the bridge, by topic, and its variable", "docs/settings.md", ""},
}

func lookupTopic(name string) *topic {
	for i := range topics {
		if topics[i].name == name {
			return &topics[i]
		}
	}
	return nil
}

func topicNames() []string {
	names := make([]string, len(topics))
	for i, t := range topics {
		names[i] = t.name
	}
	return names
}

// help is what `mcp-bridge help <topic>` prints: its text, then the
// bridge flags of its group (for settings, every group), then where to
// read more.
func (t *topic) help(fs *pflag.FlagSet) string {
	where, url := t.page, docsURL+t.page
	if t.section != "" {
		where += `, "` + t.section + `"`
		url += "#" + anchor(t.section)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "mcp-bridge help %s: %s\n%s", t.name, t.summary, t.text())
	if t.name == "settings" {
		for _, g := range topics {
			if u := usages(fs, inTopic(g.name), nil); u != "" {
				fmt.Fprintf(&b, "\n%s (mcp-bridge help %[1]s): %s\n%s", g.name, g.summary, u)
			}
		}
		fmt.Fprintf(&b, "\nand:\n%s", usages(fs, inTopic(""), nil))
	} else if u := usages(fs, inTopic(t.name), nil); u != "" {
		fmt.Fprintf(&b, "\nFlags:\n%s", u)
	}
	if slices.Contains(commands, t.name) {
		fmt.Fprintf(&b, "\nThe %s command's flags: mcp-bridge %[1]s --help\n", t.name)
	}
	fmt.Fprintf(&b, "\nMore: %s, or %s\n", where, url)
	return b.String()
}

// anchor is the fragment GitHub gives a heading: lower case, spaces to
// hyphens, other punctuation dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ' || r == '-':
			b.WriteRune('-')
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// clientList names every client install knows, with its --client id,
// wrapped for a terminal.
func clientList() string {
	words := strings.Fields("Clients install registers it with (--client):")
	for i, c := range clientconf.Clients {
		sep := ","
		if i == len(clientconf.Clients)-1 {
			sep = "."
		}
		words = append(words, strings.Fields(c.Name)...)
		words = append(words, "("+c.ID+")"+sep)
	}
	words = append(words, strings.Fields("Any other MCP client, and the MCP Inspector, take the entry that --print-config prints.")...)
	return wrapWords(words, "", 76)
}

// wrapWords joins words with spaces into lines of at most width
// characters, each starting with indent (a word longer than the line gets
// a line of its own).
func wrapWords(words []string, indent string, width int) string {
	var b strings.Builder
	b.WriteString(indent)
	line, fresh := len(indent), true
	for _, w := range words {
		switch {
		case fresh:
		case line+1+len(w) > width:
			b.WriteString("\n" + indent)
			line = len(indent)
		default:
			b.WriteString(" ")
			line++
		}
		b.WriteString(w)
		line += len(w)
		fresh = false
	}
	return b.String()
}

// clientIDs are the --client values of install, comma-separated.
func clientIDs() string { return strings.Join(clientconf.IDs(), ", ") }
