package clienterr

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// The table's rows, by error name: its cells.
type table map[string][]string

// TestErrorsTable: docs/errors.md has a row for every entry of the
// catalogue, with its code and data.kind, and no row for anything that is
// not in it; each row says when and what to do.
func TestErrorsTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := table{}
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) != 5 {
			t.Errorf("row with %d cells: %s", len(cells), line)
			continue
		}
		name := strings.Trim(cells[0], "`")
		if rows[name] != nil {
			t.Errorf("%s: two rows", name)
		}
		rows[name] = cells
	}
	for _, e := range All() {
		row := rows[e.Name]
		if row == nil {
			t.Errorf("%s (%d, kind %q) is not in docs/errors.md", e.Name, e.Code, e.Kind)
			continue
		}
		delete(rows, e.Name)
		if row[1] != fmt.Sprint(e.Code) {
			t.Errorf("%s: code %s in the table, %d in the catalogue", e.Name, row[1], e.Code)
		}
		if kind := strings.Trim(row[2], "`"); kind != e.Kind && (e.Kind != "" || kind != "the base failure's") {
			t.Errorf("%s: data.kind %q in the table, %q in the catalogue", e.Name, kind, e.Kind)
		}
		if row[3] == "" || row[4] == "" {
			t.Errorf("%s: the table does not say when or what to do", e.Name)
		}
	}
	for name := range rows {
		t.Errorf("docs/errors.md lists %s, which the catalogue does not have", name)
	}
}

// TestNew: an entry's error has its code, its message and data.kind; With
// adds members and keeps the kind.
func TestNew(t *testing.T) {
	w := Denied.With(map[string]string{"tool": "x", "kind": "other"}, "no")
	if w.Code != -32602 || w.Message != "no; nothing was sent to CAD" || string(w.Data) != `{"kind":"denied","tool":"x"}` {
		t.Errorf("Denied.With: %d %q %s", w.Code, w.Message, w.Data)
	}
	if w := MethodNotFound.New("a/b"); w.Data != nil || w.Message != "Method not found: a/b" {
		t.Errorf("MethodNotFound.New: %q %s", w.Message, w.Data)
	}
}
