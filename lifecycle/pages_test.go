package lifecycle

import (
	"fmt"
	"strings"
	"testing"
)

// pagedList is a list of n pages, page i holding tool "t<i>", each page
// but the last pointing at the next by the cursor next(i).
func pagedList(n int, next func(i int) string) func(cursor []byte) ([]byte, error) {
	return func(cursor []byte) ([]byte, error) {
		i := 0
		if cursor != nil {
			fmt.Sscanf(strings.Trim(string(cursor), `"`), "c%d", &i)
		}
		page := fmt.Sprintf(`{"tools":[{"name":"t%d"}]`, i)
		if i+1 < n {
			page += `,"nextCursor":"` + next(i) + `"`
		}
		return []byte(page + `}`), nil
	}
}

func TestReadPages(t *testing.T) {
	following := func(i int) string { return fmt.Sprintf("c%d", i+1) }
	// Every page, up to MaxListPages and no more.
	pages, err := ReadPages(pagedList(MaxListPages, following), 1<<20)
	if err != nil || len(pages) != MaxListPages {
		t.Fatalf("%d pages: %d, %v", MaxListPages, len(pages), err)
	}
	joined := string(JoinPages(pages))
	if !strings.HasPrefix(joined, `{"tools":[{"name":"t0"},{"name":"t1"},`) || !strings.HasSuffix(joined, fmt.Sprintf(`{"name":"t%d"}]}`, MaxListPages-1)) || strings.Contains(joined, "nextCursor") {
		t.Errorf("joined: %.200s", joined)
	}
	if _, err := ReadPages(pagedList(MaxListPages+1, following), 1<<20); err == nil || !strings.Contains(err.Error(), "more than 64 pages") {
		t.Errorf("%d pages: %v", MaxListPages+1, err)
	}
	// A cursor that comes again: the pages loop.
	loop := func(i int) string { return fmt.Sprintf("c%d", min(i+1, 2)) }
	if _, err := ReadPages(pagedList(10, loop), 1<<20); err == nil || !strings.Contains(err.Error(), `page 3 gives the cursor "c2" again`) {
		t.Errorf("a loop: %v", err)
	}
	// The bytes of all pages, up to max and not one more.
	pages, _ = ReadPages(pagedList(3, following), 1<<20)
	size := 0
	for _, p := range pages {
		size += len(p)
	}
	if _, err := ReadPages(pagedList(3, following), size); err != nil {
		t.Errorf("%d bytes within %d: %v", size, size, err)
	}
	if _, err := ReadPages(pagedList(3, following), size-1); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("%d bytes within %d: %v", size, size-1, err)
	}
	// What a page is.
	for _, c := range []struct{ page, err string }{
		{`{"tools":[],"nextCursor":null}`, ""},
		{`{"tools":[],"nextCursor":7}`, "not a string"},
		{`{"tools":{}}`, "not a tool list"},
		{`[]`, "not a tool list"},
	} {
		_, err := ReadPages(func([]byte) ([]byte, error) { return []byte(c.page), nil }, 1<<20)
		if (c.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v", c.page, err)
		}
	}
	// One page is the list as it came.
	one := []byte(`{"tools":[{"name":"a"}],"x":1}`)
	if got := JoinPages([][]byte{one}); &got[0] != &one[0] {
		t.Errorf("one page rewritten: %s", got)
	}
	if got := string(JoinPages([][]byte{[]byte(`{"tools":[],"nextCursor":"c","x":1}`), []byte(`{"tools":[{"name":"a"}]}`), []byte(`{"tools":[]}`)})); got != `{"x":1,"tools":[{"name":"a"}]}` {
		t.Errorf("joined with empty pages: %s", got)
	}
}
