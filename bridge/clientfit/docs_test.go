package clientfit

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDocsTable: docs/limits.md's table is this package's, client for
// client and value for value (its sources column is the page's own).
func TestDocsTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/limits.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(b), "\n## The table\n")
	section, _, _ = strings.Cut(section, "\n## ")
	var rows []string
	for _, l := range strings.Split(section, "\n") {
		if strings.HasPrefix(l, "| `") && !strings.HasPrefix(l, "| `clientInfo.name`") {
			rows = append(rows, l)
		}
	}
	if len(rows) != len(clients) {
		t.Errorf("docs/limits.md has %d clients, the table %d", len(rows), len(clients))
	}
	for i, c := range clients {
		want := docRow(c)
		if i >= len(rows) || !strings.HasPrefix(rows[i], want) {
			got := ""
			if i < len(rows) {
				got = rows[i]
			}
			t.Errorf("row %d of docs/limits.md:\n got %.200s\nwant %s …", i+1, got, want)
		}
	}
}

// docRow is the start of a client's row in docs/limits.md: every column
// but its sources.
func docRow(c Client) string {
	l := c.Limits
	unknown := "no limit known"
	wait, result, picture, meta := unknown, unknown, unknown, "none"
	if l.AnswerWithin > 0 {
		wait = l.AnswerWithin.String()
		if l.AnswerWithin%time.Minute == 0 {
			wait = strings.TrimSuffix(l.AnswerWithin.String(), "m0s") + " min"
		}
	}
	if l.MaxResultBytes > 0 {
		result = human(l.MaxResultBytes)
	}
	var pic []string
	if l.MaxImageSide > 0 {
		pic = append(pic, strconv.Itoa(l.MaxImageSide)+" px a side")
	}
	if l.MaxImageBytes > 0 {
		pic = append(pic, human(l.MaxImageBytes))
	}
	if len(pic) > 0 {
		picture = strings.Join(pic, ", ")
	}
	var m []string
	if l.ReadsAlwaysLoad {
		m = append(m, "`anthropic/alwaysLoad`")
	}
	if l.MaxResultSizeChars > 0 {
		m = append(m, "`anthropic/maxResultSizeChars` up to "+count(l.MaxResultSizeChars)+" (default "+count(l.DefaultResultChars)+")")
	}
	if len(m) > 0 {
		meta = strings.Join(m, "; ")
	}
	return "| `" + c.Name + "` | " + c.Product + " | " + wait + " | " + result + " | " + picture + " | " + meta + " | "
}
