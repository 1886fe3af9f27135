// Package suggest says what a mistyped word was probably meant to be: a
// command, a help topic, a flag, a client, a tool. One rule for every
// command of the program: a typo or two, a swap of neighbours, or a
// prefix.
package suggest

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// Nearest is the candidate closest to word by edit distance, if it is
// close enough to be what the user meant (a typo or two, or a prefix);
// "" otherwise.
func Nearest(word string, candidates []string) string {
	best, bestDist := "", -1
	w := strings.ToLower(word)
	for _, c := range candidates {
		d := editDistance(w, strings.ToLower(c))
		if len(w) >= 3 && strings.HasPrefix(strings.ToLower(c), w) {
			d = min(d, 1)
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist < 0 || bestDist > max(2, len(word)/3) || bestDist >= len(word) {
		return ""
	}
	return best
}

// DidYouMean is " (did you mean X?)" for the nearest candidate, or "".
func DidYouMean(word string, candidates []string) string {
	if n := Nearest(word, candidates); n != "" {
		return fmt.Sprintf(" (did you mean %s?)", n)
	}
	return ""
}

// editDistance is the Levenshtein distance, counting a swap of two
// neighbours as one edit (Damerau): "isntall" is one edit from "install".
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// Flag adds the nearest flag of fs to pflag's "unknown flag: --prot"
// error.
func Flag(fs *pflag.FlagSet, err error) error {
	const prefix = "unknown flag: --"
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return err
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if n := Nearest(strings.TrimPrefix(msg, prefix), names); n != "" {
		return errors.New(msg + " (did you mean --" + n + "?)")
	}
	return err
}
