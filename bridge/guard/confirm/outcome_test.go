package confirm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The journal's words are on disk in every journal written so far, and the
// labels are documented series values (docs/telemetry.md): neither may
// change. Withheld is what the journal's "declined" flag says.
func TestOutcomeWords(t *testing.T) {
	type row struct {
		Word, Label string
		Withheld    bool
	}
	want := map[Outcome]row{
		NotAsked:    {"", "", false},
		Asked:       {"asked", "", false},
		Accepted:    {"accepted", "agreed", false},
		Declined:    {"declined", "declined", true},
		Cancelled:   {"cancelled", "cancelled", true},
		TimedOut:    {"timed out", "timeout", true},
		Unsupported: {"unsupported", "", true},
		Refused:     {"refused", "", true},
	}
	got := map[Outcome]row{}
	for o := range want {
		got[o] = row{o.String(), o.Label(), o.Withheld()}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("outcomes (-want +got):\n%s", d)
	}
	// A word read back from an old journal is the same outcome.
	if Outcome("timed out") != TimedOut || Invalid != Refused {
		t.Error("a journal's words no longer name the outcomes")
	}
}
