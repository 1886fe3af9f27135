package lifecycle

import (
	"bytes"
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// A tool list may come in pages: a tools/list result with "nextCursor" is
// one page, and the next is asked for with that cursor in "cursor". Whoever
// reads a whole list on its own account (the bridge from its base, for the
// policy and the Mcp-Param-* headers; connect from its remote, for the
// headers it sends) follows the cursors with ReadPages, bounded.

// MaxListPages is how many pages ReadPages reads at most: a base that pages
// its list by ten tools still has 640 read.
const MaxListPages = 64

// ReadPages reads a whole tool list: page asks for the page at cursor (a
// JSON string as the last page gave it; nil for the first) and returns its
// result. It returns the pages' results in order; an error when page fails,
// when a result is not a tool list, when a cursor comes twice (the pages
// would loop), when there are more than MaxListPages pages, or when they
// hold more than max bytes in all.
func ReadPages(page func(cursor []byte) ([]byte, error), max int) ([][]byte, error) {
	var pages [][]byte
	var cursor []byte
	seen := map[string]bool{}
	size := 0
	for {
		res, err := page(cursor)
		if err != nil {
			return nil, err
		}
		if rpc.Kind(res) != rpc.KindObject || rpc.Kind(rpc.Field(res, "tools")) != rpc.KindArray {
			return nil, fmt.Errorf("page %d of its tool list is not a tool list", len(pages)+1)
		}
		if size += len(res); size > max {
			return nil, fmt.Errorf("its tool list holds more than %d bytes in %d pages (--max-message)", max, len(pages)+1)
		}
		pages = append(pages, res)
		next := rpc.Field(res, "nextCursor")
		switch k := rpc.Kind(next); {
		case k == rpc.KindNone || k == rpc.KindNull:
			return pages, nil
		case k != rpc.KindString:
			return nil, fmt.Errorf("page %d of its tool list has a nextCursor that is not a string", len(pages))
		case seen[string(next)]:
			return nil, fmt.Errorf("its tool list pages loop: page %d gives the cursor %s again", len(pages), quoteCut(next))
		case len(pages) == MaxListPages:
			return nil, fmt.Errorf("its tool list has more than %d pages", MaxListPages)
		}
		seen[string(next)] = true
		cursor = next
	}
}

// Paged reports whether a tools/list result is one page of a list that
// goes on (it has a nextCursor).
func Paged(result []byte) bool {
	k := rpc.Kind(rpc.Field(result, "nextCursor"))
	return k != rpc.KindNone && k != rpc.KindNull
}

// JoinPages is the one tool list pages (ReadPages) make: the first page's
// members without nextCursor, and the tools of every page, in order. A
// single page is returned as it is.
func JoinPages(pages [][]byte) []byte {
	if len(pages) == 1 {
		return pages[0]
	}
	tools := []byte(`"tools":[`)
	for _, p := range pages {
		list := rpc.Field(p, "tools")
		rpc.EachElement(list, func(from, to int) {
			if tools[len(tools)-1] != '[' {
				tools = append(tools, ',')
			}
			tools = append(tools, list[from:to]...)
		})
	}
	head := rpc.WithoutMember(rpc.WithoutMember(pages[0], "tools"), "nextCursor")
	return rpc.AppendMembers(head, string(append(tools, ']')))
}

// quoteCut is a raw JSON value for a message, cut past 64 bytes.
func quoteCut(raw []byte) string {
	if len(raw) > 64 {
		return string(bytes.ToValidUTF8(raw[:64], nil)) + "…"
	}
	return string(raw)
}
