package httpheader

import (
	"strings"
	"testing"
)

// deepList is a 16 MiB tool list (the bridge's --max-message) whose one
// schema nests 64 levels along "properties", a declaration and a 16 MiB
// string full of \u escapes at the bottom. Every level scans the whole of
// what is below it (mayDeclare twice, EachMember's skipValue once): the
// cost is depth × size, about 1 GiB of scanning per Read, and as much
// again per Valid.
func deepList() []byte {
	blob := `"b":"` + strings.Repeat(`\u0041`, (16<<20)/6-40) + `"`
	s := `{"type":"string","x-mcp-header":"R",` + blob + `}`
	for range 63 {
		s = `{"type":"object","properties":{"p":` + s + `}}`
	}
	return []byte(`{"tools":[{"name":"t","inputSchema":` + s + `}]}`)
}

// BenchmarkAttackReadDeep (issue 42 review): about 5 s per op on the
// shared 2-core machine. The bridge reads each new list from its base in
// the worker (every call waits); connect reads a hostile remote's relayed
// list twice (Valid, then learnTools under toolsMu, which every relayed
// call's paramHeaders waits for).
//
//	go test -run '^$' -bench AttackReadDeep -benchtime 1x ./lifecycle/httpheader/
func BenchmarkAttackReadDeep(b *testing.B) {
	l := deepList()
	b.SetBytes(int64(len(l)))
	for b.Loop() {
		Read(l)
	}
}
