package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
)

const journalUsage = `Usage: mcp-bridge journal [FILE] [flags]

Prints the journal written by mcp-bridge --journal FILE (or CAD_MCP_JOURNAL),
its rotated files included, oldest first: what the assistant asked CAD to
do, and how it went.

Examples:
  mcp-bridge journal ~/cad-journal.jsonl --since 1h --failed
  mcp-bridge journal --tool 'delete_*' --json

Flags:
`

// runJournal is the journal subcommand: the entries journal.Query picks,
// as a table or as the JSON lines they are.
func runJournal(e *env, args []string) error {
	fs := pflag.NewFlagSet("journal", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	since := fs.String("since", "", "only entries from this long ago (1h, 30m) or since this time (2026-11-30, 2026-11-30T08:00:00Z)")
	tool := fs.String("tool", "", "only this tool (a glob: 'delete_*')")
	failed := fs.Bool("failed", false, "only requests that did not succeed (errors, tool errors, denied, declined)")
	asJSON := fs.Bool("json", false, "print the matching lines as they are (JSON lines)")
	fs.Usage = func() { fmt.Fprint(e.stdout, journalUsage+usages(fs, all, nil)) }
	if done, err := parseFlags(fs, args); done {
		return err
	}
	file := e.getenv("CAD_MCP_JOURNAL")
	switch fs.NArg() {
	case 0:
		if file == "" {
			return usageError{fmt.Errorf("journal: which file? Give FILE or set CAD_MCP_JOURNAL")}
		}
	case 1:
		file = fs.Arg(0)
	default:
		return usageError{fmt.Errorf("journal takes one FILE, got %d arguments", fs.NArg())}
	}
	q, err := journal.NewQuery(*since, *tool, *failed, time.Now())
	if err != nil {
		return usageError{err}
	}
	var table *journal.Table
	show := func(l journal.Line) { fmt.Fprintln(e.stdout, string(l.Text)) }
	if !*asJSON {
		table = journal.NewTable(e.stdout)
		show = func(l journal.Line) { table.Add(l.Entry) }
	}
	found, err := q.Find(file, show)
	if err != nil {
		return err
	}
	if table != nil {
		table.Flush()
	}
	if found.Skipped != nil {
		fmt.Fprintf(e.stderr, "journal: skipped, not read: %v\n", found.Skipped)
	}
	if found.NotEntries > 0 {
		fmt.Fprintf(e.stderr, "journal: %d lines that are not journal entries skipped\n", found.NotEntries)
	}
	if found.Shown == 0 && !*asJSON {
		fmt.Fprintln(e.stderr, "journal: no matching entries")
	}
	return nil
}
