package httpheader

import (
	"fmt"
	"strings"
	"testing"
)

// deepList is a 16 MiB tool list (the bridge's --max-message) whose one
// schema nests depth levels along "properties" to a declaration and a
// string full of \u escapes filling the rest at the bottom.
func deepList(depth int) []byte {
	const size = 16 << 20
	s := `{"type":"string","x-mcp-header":"R","b":"%s"}`
	for range depth {
		s = `{"type":"object","properties":{"p":` + s + `}}`
	}
	s = `{"tools":[{"name":"t","inputSchema":` + s + `}]}`
	return fmt.Appendf(nil, s, strings.Repeat(`\u0041`, (size-len(s))/6))
}

// BenchmarkReadDeep: Read costs the list's size, however deep it nests:
// the same 16 MiB nested 64 levels and one. (When each level was read
// again by the level above, 64 levels took 4.4 s on the shared 2-core
// machine; each new list from the base is read in the worker, and
// connect reads a remote's twice.)
func BenchmarkReadDeep(b *testing.B) {
	for _, depth := range []int{1, 64} {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			l := deepList(depth)
			b.SetBytes(int64(len(l)))
			for b.Loop() {
				if d, _ := Read(l).Lookup("t"); d == nil || len(d.Params) != 1 {
					b.Fatalf("read %+v", d)
				}
			}
		})
	}
}
