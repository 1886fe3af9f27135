package bridge

import (
	"fmt"
	"testing"
)

// TestRereadsBounded: the list is read again once per call (its tool and
// the Mcp-Param-* headers the list does not declare) and for at most
// maxRereads calls per list; a new list starts over. A call the list
// settles (its tool listed, every header declared) needs no read at all.
func TestRereadsBounded(t *testing.T) {
	var s toolState
	h := func(names ...string) map[string][]string {
		m := map[string][]string{}
		for _, n := range names {
			m[n] = []string{"x"}
		}
		return m
	}
	if _, _, settled := s.settles("t", h()); settled {
		t.Fatal("settled with no list held")
	}
	list := []byte(`{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}}]}`)
	if _, _, err := s.record(list); err != nil {
		t.Fatal(err)
	}
	if _, _, settled := s.settles("t", h("Mcp-Param-Region")); !settled {
		t.Error("a listed tool whose headers are all declared is not settled")
	}
	if _, _, settled := s.settles("T", h("Mcp-Param-Region")); !settled {
		t.Error("a tool listed under a name that folds to the call's is not settled")
	}
	// maxRereads calls, each read once.
	for i := range maxRereads {
		_, key, settled := s.settles("t", h(fmt.Sprintf("Mcp-Param-X%d", i)))
		if settled {
			t.Fatalf("call %d settled before it was read again for", i)
		}
		s.markReread(key)
		if _, _, settled := s.settles("t", h(fmt.Sprintf("Mcp-Param-x%d", i))); !settled {
			t.Fatalf("call %d not settled after it was read again for", i)
		}
	}
	// Then no more, until a new list.
	if _, _, settled := s.settles("u", h()); !settled {
		t.Errorf("call %d has the list read again", maxRereads+1)
	}
	if _, _, err := s.record(list); err != nil { // the same list, answered again
		t.Fatal(err)
	}
	if _, _, settled := s.settles("t", h("Mcp-Param-X0")); settled {
		t.Error("a new list does not start over")
	}
	s.listSeen() // a page the client asked for
	if _, _, settled := s.settles("u", h()); settled {
		t.Error("a page answered does not start over")
	}
}
