package journal

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/configs/userfile"
)

// Files returns the journal's files, oldest first: the rotated ones
// (path.N … path.1) and then path itself. Missing files are skipped.
func Files(path string) []string {
	matches, _ := filepath.Glob(globEscape(path) + ".*")
	type rotated struct {
		n    int
		name string
	}
	var rs []rotated
	for _, m := range matches {
		if n, err := strconv.Atoi(strings.TrimPrefix(m, path+".")); err == nil && n > 0 {
			rs = append(rs, rotated{n, m})
		}
	}
	slices.SortFunc(rs, func(a, b rotated) int { return b.n - a.n })
	var out []string
	for _, r := range rs {
		out = append(out, r.name)
	}
	if _, err := os.Stat(path); err == nil {
		out = append(out, path)
	}
	return out
}

func globEscape(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`)
	if filepath.Separator == '\\' {
		return s // backslash is the separator there, not an escape
	}
	return r.Replace(s)
}

// Line is one journal line: its text, and the entry when it parsed.
type Line struct {
	Text  []byte
	Entry *Entry // nil for a line that is not an entry
	File  string
	N     int // 1-based line number in File
}

// testHookListed, when a test sets it, runs between listing the files and
// reading them: where a bridge may rotate the journal.
var testHookListed func()

// Each calls fn for every line of the journal's files, oldest first, until
// fn returns false. A bridge may rotate the journal meanwhile: a file that
// is gone by the time it is opened (path.keep is removed) is skipped.
// Rotation only renames a file to an older name, one this reader has
// already passed, so no file, and no entry, is read twice. A rotated file
// that is not a regular one (a link planted at its name) is not read, and
// the others still are: the error then names what was skipped, and
// errors.Is(err, userfile.ErrNotRegular) tells it apart.
func Each(path string, fn func(Line) bool) error {
	files := Files(path)
	if len(files) == 0 {
		return fmt.Errorf("journal %s: no such file", path)
	}
	if testHookListed != nil {
		testHookListed()
	}
	var skipped []error
	for _, name := range files {
		more, err := eachLine(name, fn)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case errors.Is(err, userfile.ErrNotRegular) && name != path: // the journal itself must be one
			skipped = append(skipped, err)
		case err != nil || !more:
			return err
		}
	}
	return errors.Join(skipped...)
}

// eachLine calls fn for every line of one file; more is false when fn
// asked to stop. The file is closed however fn ends (a test's Fatalf
// included: an open file cannot be removed on Windows).
func eachLine(name string, fn func(Line) bool) (more bool, err error) {
	f, err := userfile.Open(name, os.O_RDONLY, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		l := Line{Text: sc.Bytes(), File: name, N: n}
		var e Entry
		if json.Unmarshal(l.Text, &e) == nil {
			l.Entry = &e
		}
		if !fn(l) {
			return false, nil
		}
	}
	if err := sc.Err(); err != nil {
		return false, fmt.Errorf("%s: %w", name, err)
	}
	return true, nil
}
