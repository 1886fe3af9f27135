package confirm

import (
	"runtime"
	"strings"
	"testing"
)

// TestCanonicalDeepArgumentsLinear: the form requestState binds is made
// in memory proportional to the arguments, however deep they nest. A
// 2026-07-28 call's arguments are canonicalized when its question is
// issued (in the reader, before anything else of the client is read) and
// again when it comes back. Objects nested d deep around a value of n
// bytes: each level copies the canonical form of the one inside it
// (appendCanonical(nil, ...) per member), d·n bytes in all. 2 MB of
// arguments nested 9,000 deep (a valid message, well under --max-message)
// allocated 17 GB and held the reader 13 s, where encoding/json took
// milliseconds. Counted in bytes allocated, not timed: one level either
// side of flat, and deep.
func TestCanonicalDeepArgumentsLinear(t *testing.T) {
	const blob = 100_000
	for _, depth := range []int{1, 2, 1000} {
		args := []byte(strings.Repeat(`{"a":`, depth) + `"` + strings.Repeat("x", blob) + `"` + strings.Repeat("}", depth))
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c := canonical(args)
		runtime.ReadMemStats(&after)
		if string(c) != string(args) {
			t.Fatalf("depth %d: canonical changed the arguments", depth)
		}
		if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(16*len(args)); got > limit {
			t.Errorf("depth %d, %d bytes of arguments: %d bytes allocated, more than %d (16 times the arguments)", depth, len(args), got, limit)
		}
	}
}
