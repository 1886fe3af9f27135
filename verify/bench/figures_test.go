package bench

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReportMedians: each row is the median of its rounds, its ratios the
// median of the rounds' ratios (both sides measured in the same round),
// and a bridge's row says whether it met the figure's target.
func TestReportMedians(t *testing.T) {
	f := newFigures(direct, floor, "bridge", "old")
	for r, v := range [][4]float64{{100, 200, 220, 300}, {100, 400, 480, 500}, {50, 100, 100, 90}} {
		f.round = r
		f.addAll(figList, "µs", map[string]sample{
			direct: {P50: v[0], P99: 1}, floor: {P50: v[1], P99: 2}, "bridge": {P50: v[2], P99: 3}, "old": {P50: v[3], P99: 4}})
	}
	f.round = 1
	f.fail("HTTP", errTest("no port"))
	yes, no := true, false
	want := []Figure{
		{Name: figList, Unit: "µs", Target: "÷ floor ≤ 1.1", Rows: []Row{
			{Subject: direct, P50: 100, P99: 1, Rounds: []float64{100, 100, 50}, PerFloor: 0.5, PerDirect: 1},
			{Subject: floor, P50: 200, P99: 2, Rounds: []float64{200, 400, 100}, PerFloor: 1, PerDirect: 2},
			{Subject: "bridge", P50: 220, P99: 3, Rounds: []float64{220, 480, 100}, PerFloor: 1.1, PerDirect: 2.2, Met: &yes},
			{Subject: "old", P50: 300, P99: 4, Rounds: []float64{300, 500, 90}, PerFloor: 1.25, PerDirect: 3, Met: &no},
		}},
		{Name: "HTTP", Note: "failed in round 2: no port"},
	}
	if diff := cmp.Diff(want, f.report()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	var out strings.Builder
	Print(&out, &Report{Rounds: 3, Figures: f.report()})
	for _, s := range []string{"medians of 3 rounds", "  bridge", "220 µs / 3 µs", "1.10", "NO", "failed in round 2: no port"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("the table lacks %q:\n%s", s, out.String())
		}
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }

// TestReplaceBlock: make bench rewrites only what stands between the
// marks; the text around it stays byte for byte, and a file without both
// marks, or with one twice, is refused (never half written).
func TestReplaceBlock(t *testing.T) {
	doc := "# Performance\n\nHand text.\n" + docBegin + "\nold figures\n" + docEnd + "\n\nMore hand text.\n"
	got, err := replaceBlock([]byte(doc), "new figures\n\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# Performance\n\nHand text.\n" + docBegin + "\n\nnew figures\n\n" + docEnd + "\n\nMore hand text.\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	again, err := replaceBlock(got, "new figures\n")
	if err != nil || string(again) != string(got) {
		t.Errorf("a second run with the same figures changed the file: %v\n%s", err, again)
	}
	for _, bad := range []string{
		"no marks\n",
		docBegin + "\nfigures\n",
		"figures\n" + docEnd + "\n",
		docEnd + "\nx\n" + docBegin + "\n",
		docBegin + "\n" + docBegin + "\nx\n" + docEnd + "\n",
	} {
		if _, err := replaceBlock([]byte(bad), "x"); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}
