package status

import (
	"html"
	"strconv"
	"strings"
)

// style is the page's one style element; CSP allows it by its hash, so it
// must be written into the page exactly as it is here.
const style = `
body{font:15px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;background:#f4f5f7;color:#1d2430}
header{display:flex;justify-content:space-between;align-items:baseline;padding:10px 24px;background:#1d2430;color:#e8ebf0}
header h1{font-size:18px;margin:0}
header span{font-size:13px;color:#aeb6c4}
main{padding:16px 24px;max-width:1200px}
.base{border-radius:8px;padding:14px 18px;margin-bottom:16px;color:#fff}
.base b{font-size:24px;display:block}
.base.up{background:#1e7f3c}.base.down{background:#b42318}.base.unknown{background:#5b6475}
.tiles{display:flex;flex-wrap:wrap;gap:10px;margin-bottom:18px}
.tile{background:#fff;border:1px solid #d5d9e0;border-radius:8px;padding:8px 14px;min-width:96px}
.tile b{font-size:26px;display:block}
.tile.busy{border-color:#b54708;background:#fffaeb}
h2{font-size:16px;margin:18px 0 6px}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #d5d9e0}
th,td{text-align:left;padding:4px 10px;border-bottom:1px solid #eceef2;vertical-align:top;unicode-bidi:isolate;overflow-wrap:anywhere}
th{background:#eceef2;font-weight:600;font-size:13px}
td.n{text-align:right;white-space:nowrap}
tr.failed td{background:#fef3f2}
.none{color:#5b6475;font-style:italic;margin:4px 0}
.tag{font-size:12px;border:1px solid #98a2b3;border-radius:4px;padding:0 4px;margin-left:6px;color:#344054}
.tools{display:flex;flex-wrap:wrap;gap:6px}
.tools span{background:#fff;border:1px solid #d5d9e0;border-radius:4px;padding:2px 8px}
code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:13px}
`

// writePage writes the page. Every value from the view is written
// through esc (text content only: no value goes into an attribute, a URL,
// a style or a script), so nothing a client sent is markup. The page is
// written by hand rather than by html/template: that package's use of
// reflection keeps every exported method of the program in the binary,
// which cost the bridge 2.5 MB.
func writePage(b *strings.Builder, v view) {
	w := b.WriteString
	esc := func(s string) { w(html.EscapeString(s)) }
	refresh := strconv.Itoa(v.Refresh)
	w("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	w("<meta http-equiv=\"refresh\" content=\"" + refresh + "\">\n")
	w("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"referrer\" content=\"no-referrer\">\n")
	w("<title>")
	esc(v.Title)
	w("</title>\n<style>" + style + "</style>\n</head>\n<body>\n")
	w("<header><h1>mcp-bridge ")
	esc(v.Version)
	w("</h1><span>")
	if v.Serving != "" {
		w("serving ")
		esc(v.Serving)
		w(" · ")
	}
	if v.Uptime != "" {
		w("up ")
		esc(v.Uptime)
		w(" · ")
	}
	w("updated ")
	esc(v.Updated)
	w(", every " + refresh + " s</span></header>\n<main>\n")

	w("<div class=\"base " + v.BaseClass + "\" id=\"base\"><b>")
	esc(v.BaseLine)
	w("</b>base ")
	esc(v.BaseAddr)
	if v.BaseWhy != "" {
		w(": ")
		esc(v.BaseWhy)
	}
	w("</div>\n<div class=\"tiles\">")
	for _, t := range v.Tiles {
		w("<div class=\"tile")
		if t.Busy {
			w(" busy")
		}
		w("\"><b>" + strconv.Itoa(t.N) + "</b>")
		esc(t.Label)
		w("</div>")
	}
	w("</div>\n")

	// cells writes one row; the last n cells are right-aligned figures.
	cells := func(right int, values ...string) {
		w("<tr>")
		for i, c := range values {
			if i >= len(values)-right {
				w("<td class=\"n\">")
			} else {
				w("<td>")
			}
			esc(c)
			w("</td>")
		}
		w("</tr>\n")
	}
	header := func(id string, names ...string) {
		w("<table id=\"" + id + "\"><tr>")
		for _, n := range names {
			w("<th>" + n + "</th>")
		}
		w("</tr>\n")
	}
	none := func(s string) { w("<p class=\"none\">" + s + "</p>\n") }

	w("\n<h2>Calls in flight and queued</h2>\n")
	if len(v.InFlight) == 0 {
		none("No call in flight or queued.")
	} else {
		header("calls", "state", "tool", "client", "for")
		for _, c := range v.InFlight {
			what := c.Tool
			if what == "" {
				what = c.Method
			}
			cells(1, c.State, what, c.Client, c.Wait)
		}
		w("</table>\n")
	}

	w("\n<h2>Open questions</h2>\n")
	if len(v.Questions) == 0 {
		none("No question waits for an answer.")
	} else {
		header("questions", "confirm tool", "for client", "asked by", "waiting")
		for _, q := range v.Questions {
			cells(1, q.Tool, q.Client, q.AskedBy, q.Wait)
		}
		w("</table>\n")
	}

	w("\n<h2>Clients</h2>\n")
	if len(v.Clients) == 0 {
		none("No client connected.")
	} else {
		header("clients", "client", "transport", "era", "session", "address", "for", "in progress")
		for _, c := range v.Clients {
			cells(2, c.Name, c.Transport, c.Era, c.Session, c.Address, c.Since, c.InProgress)
		}
		w("</table>\n")
	}

	w("\n<h2>Tools, as clients see them</h2>\n")
	if len(v.Tools) == 0 {
		none("No tools listed yet.")
	} else {
		w("<div class=\"tools\" id=\"tools\">")
		for _, t := range v.Tools {
			w("<span>")
			esc(t.Name)
			if t.ReadOnly {
				w("<span class=\"tag\">read-only</span>")
			}
			if t.Confirm {
				w("<span class=\"tag\">asks first</span>")
			}
			w("</span>")
		}
		w("</div>\n")
	}

	w("\n<h2>Journal, last " + strconv.Itoa(JournalLines) + " lines, newest first</h2>\n")
	switch {
	case !v.JournalOn:
		none("No journal kept (--journal).")
	default:
		if v.JournalEr != "" {
			w("<p class=\"none\">")
			esc(v.JournalEr)
			w("</p>\n")
		}
		if len(v.Journal) == 0 {
			none("The journal is empty.")
			break
		}
		header("journal", "time", "client", "tool", "outcome", "took", "message")
		for _, r := range v.Journal {
			if r.Raw {
				w("<tr><td colspan=\"6\"><code>")
				esc(r.Message)
				w("</code></td></tr>\n")
				continue
			}
			if r.Failed {
				w("<tr class=\"failed\">")
			} else {
				w("<tr>")
			}
			for i, c := range []string{r.Time, r.Client, r.Tool, r.Outcome, r.Took, r.Message} {
				if i == 4 {
					w("<td class=\"n\">")
				} else {
					w("<td>")
				}
				esc(c)
				w("</td>")
			}
			w("</tr>\n")
		}
		w("</table>\n")
	}
	w("</main>\n</body>\n</html>\n")
}
