package journal

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/configs/cut"
	"github.com/mcp-bridge/mcp-bridge/configs/userfile"
)

// Query picks the entries `mcp-bridge journal` shows.
type Query struct {
	Since  time.Time // zero: from the first entry
	Tool   string    // a glob ('delete_*'); "" for every tool
	Failed bool      // only requests that did not succeed
}

// NewQuery is the query of journal's flags: since is --since (a duration
// back from now, or a date or time; "" for all), tool --tool (a glob).
func NewQuery(since, tool string, failed bool, now time.Time) (Query, error) {
	q := Query{Tool: tool, Failed: failed}
	if since != "" {
		var err error
		if q.Since, err = ParseSince(since, now); err != nil {
			return q, err
		}
	}
	if tool != "" {
		if err := policy.CheckPattern(tool); err != nil {
			return q, fmt.Errorf("--tool %q: malformed pattern: %v (%s)", tool, err, policy.PatternSyntax)
		}
	}
	return q, nil
}

// ParseSince reads --since: a duration back from now, or a date or time
// (local unless it says otherwise).
func ParseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--since %q: want a duration (1h, 30m) or a time (2026-11-30, 2026-11-30T08:00:00Z)", s)
}

// Match reports whether q picks e.
func (q Query) Match(e *Entry) bool {
	return (q.Since.IsZero() || !e.Time.Before(q.Since)) &&
		(q.Tool == "" || policy.Match(q.Tool, e.Tool)) &&
		(!q.Failed || e.Failed())
}

// Found is what a query found besides its entries: the lines that are not
// entries, and the entries shown.
type Found struct {
	NotEntries, Shown int
	// Skipped names the rotated files that are not regular ones (a link
	// planted at their name), which were not read; the others were.
	Skipped error
}

// Find calls fn for each line of the journal at path whose entry q picks,
// oldest first (Each).
func (q Query) Find(path string, fn func(Line)) (Found, error) {
	var f Found
	err := Each(path, func(l Line) bool {
		switch {
		case l.Entry == nil:
			f.NotEntries++
		case q.Match(l.Entry):
			f.Shown++
			fn(l)
		}
		return true
	})
	if errors.Is(err, userfile.ErrNotRegular) {
		f.Skipped, err = err, nil
	}
	return f, err
}

// Table writes entries as the columns of `mcp-bridge journal`.
type Table struct{ tw *tabwriter.Writer }

// NewTable starts a table on w with its header.
func NewTable(w io.Writer) *Table {
	t := &Table{tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
	fmt.Fprintln(t.tw, "TIME\tCLIENT\tERA\tMETHOD\tTOOL\tOUTCOME\tDURATION\tBYTES\tDETAIL")
	return t
}

// Flush writes the rows out, aligned.
func (t *Table) Flush() { t.tw.Flush() }

// Add writes en's row: what a person reads of it, every value from a
// client or the base as text (AsText), long ones cut.
func (t *Table) Add(en *Entry) {
	client := "-"
	if en.Client != nil {
		client = AsText(strings.TrimSuffix(en.Client.Name+" "+en.Client.Version, " "))
	}
	tool := AsText(en.Tool)
	if tool == "" {
		tool = "-"
	}
	var detail []string
	if o := en.Confirmation(); o != confirm.NotAsked {
		c := "confirmation " + AsText(o.String())
		if en.AskedBy != "" {
			c += " (" + AsText(en.AskedBy) + ")"
		}
		detail = append(detail, c)
	}
	if en.Code != 0 {
		detail = append(detail, fmt.Sprintf("%d", en.Code))
	}
	if en.Kind != "" && en.Kind != "denied" {
		detail = append(detail, en.Kind)
	}
	if en.Outcome == Error || en.Outcome == Denied {
		detail = append(detail, AsText(cut.Chars(en.Message, 60)))
	}
	if len(en.Args) > 0 {
		detail = append(detail, AsText(cut.Chars(string(en.Args), 60)))
	}
	fmt.Fprintf(t.tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.1f ms\t%d\t%s\n",
		en.Time.Local().Format("2006-01-02 15:04:05"), client, en.Era, en.Method, tool, en.Outcome, en.DurationMs, en.Bytes, strings.Join(detail, "; "))
}

// AsText is a value from a client or the base (a tool name, a client's
// name, a message, arguments) as the journal table prints it: quoted, with
// controls and invisible formatting escaped, when it holds any. Tool names
// come from the assistant, refused ones included: none may move the
// cursor, erase or forge a row, or reorder text in the user's terminal.
func AsText(s string) string {
	for _, r := range s {
		if !unicode.IsGraphic(r) {
			return strconv.QuoteToGraphic(s)
		}
	}
	return s
}
