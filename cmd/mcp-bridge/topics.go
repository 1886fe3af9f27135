package main

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// docsURL is where the docs/ pages the topics point to are read online;
// a checkout has them under docs/.
const docsURL = "https://github.com/mcp-bridge/mcp-bridge/blob/main/"

// topic is a subject `mcp-bridge help <topic>` explains in a few lines,
// pointing to the docs/ page that says the rest.
type topic struct {
	name, summary string
	page          string // the docs page, from the repository's root
	section       string // the page's heading to start at, or ""
	text          string
}

// topics are in the order `mcp-bridge help` lists them. Their texts are
// kept as golden files (testdata/help/topic-*.txt), and their pages are
// checked to exist (TestHelpTopicPagesExist).
var topics = []topic{
	{"clients", "install in a client, the file each one reads, what each can do", "docs/clients.md", "", `
The client (Claude Desktop, Claude Code, Cursor, VS Code, …) starts
mcp-bridge and talks to it over stdio. install writes that entry in the
client's own file, with this binary's absolute path and your settings;
everything else in the file stays as it was:

  mcp-bridge install --copy --client claude-desktop   # --copy: first copy the binary where it stays
  mcp-bridge install --client all --dry-run           # every client found here, changing nothing
  mcp-bridge uninstall --client cursor
  mcp-bridge --print-config --client vscode           # the entry to paste yourself

Then restart the client; mcp-bridge doctor checks every registration.
--scope project writes the current folder's file (shared with your
team), --url a bridge on another machine (help remote).
`},
	{"policy", "which tools clients see, which calls need your agreement", "docs/policy.md", "", `
Without a policy every tool of the CAD base is offered. A policy file
(JSON with comments) hides tools, adds annotations, and names the calls
that run only after you agree:

  mcp-bridge --policy configs/policy.example.jsonc
  mcp-bridge --deny-tools 'save_*,new_drawing' --read-only

  {"deny": ["save_*"], "confirm": ["delete_*"]}

A denied tool is absent from tools/list and its calls never reach CAD.
A confirmed call is asked about by your client when it can, else in a
dialog on this desktop (--confirm-with client, desktop or both; waits
--confirm-timeout). mcp-bridge doctor --policy FILE shows the policy in
force; mcp-bridge tools --policy FILE what clients will see.
`},
	{"journal", "a record of every tool request, and reading it", "docs/journal.md", "", `
--journal FILE appends one JSON line per tool request: when, which
client, which tool, the outcome (ok, tool_error, error, denied, declined,
cancelled) and how long it took; the arguments only with --journal-args.
Several bridges may share one file; it rotates at --journal-max to
FILE.1 … FILE.5, and --journal-required refuses calls while it cannot be
written.

  mcp-bridge --journal ~/cad-journal.jsonl
  mcp-bridge journal ~/cad-journal.jsonl --since 1h --failed
  mcp-bridge journal --tool 'delete_*' --json       # FILE from CAD_MCP_JOURNAL
`},
	{"http", "Streamable HTTP: one CAD program for several clients", "docs/http.md", "", `
With --listen the bridge serves Streamable HTTP at http://ADDR/mcp instead
of stdio, to any number of clients at once (both protocol eras); their
calls take turns at the one CAD base:

  mcp-bridge --listen 127.0.0.1:8931 --token-file ~/cad-token
  mcp-bridge --print-config --client cursor --listen 127.0.0.1:8931
  mcp-bridge verify --url http://127.0.0.1:8931/mcp

A non-loopback address needs a token (or --allow-remote); foreign
browser origins get 403. --tls-self-signed or --tls-cert/--tls-key serve
HTTPS (help remote).
`},
	{"remote", "CAD on another machine: --listen there, connect here", "docs/http.md", "CAD on another machine", `
On the CAD machine, serve HTTPS with a token; on the client's machine,
register it, pinned to the certificate:

  mcp-bridge --listen 0.0.0.0:8931 --tls-self-signed --token-file token   # prints fingerprint=sha256:…
  mcp-bridge install --client cursor --url https://cad-pc:8931/mcp --fingerprint sha256:… --token-file token

With --fingerprint or --ca the client starts "mcp-bridge connect URL",
which relays stdio to the remote bridge; without them a client that takes
URLs of its own gets the URL, the token read from CAD_MCP_TOKEN. A call
is never sent twice; confirmation is asked on the machine you sit at.
`},
	{"diagnostics", "doctor, verify, the base's tools, logs, what errors mean", "docs/diagnostics.md", "", `
  mcp-bridge doctor                  # this binary, the CAD base, every registration
  mcp-bridge verify --port 8080      # as a client would, against your CAD program (read-only)
  mcp-bridge tools                   # the base's tools, straight from the base
  mcp-bridge call get_drawing_info   # one call; request sends one raw frame

Logs go to stderr (--log-file FILE, --log-level debug, --log-format json);
stdout carries only protocol messages. An error the client sees has a
data.kind (unreachable, timeout, closed, malformed, too_large, …) that
says which side failed; docs/errors.md lists them all.
`},
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

// help is what `mcp-bridge help <topic>` prints.
func (t *topic) help() string {
	where, url := t.page, docsURL+t.page
	if t.section != "" {
		where += `, "` + t.section + `"`
		url += "#" + anchor(t.section)
	}
	more := ""
	if slices.Contains(commands, t.name) {
		more = fmt.Sprintf("The %s command's flags: mcp-bridge %[1]s --help\n", t.name)
	}
	return fmt.Sprintf("mcp-bridge help %s: %s\n%s\n%sMore: %s, or %s\n", t.name, t.summary, t.text, more, where, url)
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

// topicList is the root help's list of topics.
func topicList() string {
	var b strings.Builder
	for _, t := range topics {
		fmt.Fprintf(&b, "  %-12s %s\n", t.name, t.summary)
	}
	return b.String()
}
