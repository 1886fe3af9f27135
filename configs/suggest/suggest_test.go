package suggest

import "testing"

// TestNearest: a swap of neighbours is one edit, a prefix of three or more
// letters counts as one, case does not count; a word further than
// max(2, a third of its length), or as far as it is long, gets nothing.
func TestNearest(t *testing.T) {
	commands := []string{"install", "uninstall", "doctor", "verify", "call", "tools"}
	for _, tt := range []struct{ word, want string }{
		{"isntall", "install"},    // a swap
		{"instal", "install"},     // one letter
		{"INSTALL", "install"},    // case
		{"inst", "install"},       // a prefix
		{"doctr", "doctor"},       // one letter
		{"dcotr", "doctor"},       // a swap and a letter: two
		{"dxxtxr", ""},            // three of six
		{"ca", ""},                // a prefix of two: two edits, as many as it has letters
		{"x", ""},                 // as far as it is long
		{"zzzzzzzz", ""},          // far from all
		{"verifyyyy", "verify"},   // three edits in nine letters: a third
		{"verifyyyyy", ""},        // four in ten: more than a third
		{"uninstal", "uninstall"}, // nearer to uninstall than to install
	} {
		if got := Nearest(tt.word, commands); got != tt.want {
			t.Errorf("Nearest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
	if got := DidYouMean("instal", commands); got != " (did you mean install?)" {
		t.Errorf("DidYouMean: %q", got)
	}
	if got := DidYouMean("zzzz", commands); got != "" {
		t.Errorf("DidYouMean, nothing near: %q", got)
	}
}
