package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The docs a newcomer reads: the README and docs/, from this package's
// folder.
const repoRoot = "../.."

func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	return append([]string{filepath.Join(repoRoot, "README.md")}, files...)
}

var (
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	headingRe  = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	testCounts = regexp.MustCompile(`(?i)\b\d[\d,]*\s+(tests?|subtests?)\b(\s+(ran|run|passed|pass|skipped))?|counting subtests|\b\d+\s+skipped\b`)
)

// prose is a markdown file's lines outside its fenced code blocks.
func prose(md string) []string {
	var lines []string
	fenced := false
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			lines = append(lines, l)
		}
	}
	return lines
}

// headings are the anchors GitHub gives a page's headings, a repeated
// one numbered (-1, -2, …).
func headings(md string) []string {
	var out []string
	seen := map[string]int{}
	for _, l := range prose(md) {
		m := headingRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		a := anchor(m[1])
		if n := seen[a]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", a, n))
		} else {
			out = append(out, a)
		}
		seen[a]++
	}
	return out
}

// TestDocsLinksResolve: every relative link in README.md and docs/*.md
// names a file of the repository, and an #anchor a heading of its page.
func TestDocsLinksResolve(t *testing.T) {
	for _, file := range docFiles(t) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range prose(string(b)) {
			// In a code span a link is only text.
			for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, frag, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				}
				rel, _ := filepath.Rel(repoRoot, dest)
				content, err := os.ReadFile(dest)
				if info, serr := os.Stat(dest); serr == nil && info.IsDir() {
					err = nil
				}
				switch {
				case err != nil:
					t.Errorf("%s, line %d (of its prose): the link %s names no file: %v", file, n+1, target, err)
				case frag != "" && strings.HasSuffix(dest, ".md") && !slices.Contains(headings(string(content)), frag):
					t.Errorf("%s: the link %s names no heading of %s (%v)", file, target, rel, headings(string(content)))
				}
			}
		}
	}
}

// TestReadmeIsShort: the README stays a newcomer's page; the rest is in
// docs/.
func TestReadmeIsShort(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n >= 250 {
		t.Errorf("README.md has %d lines: keep it under 250, the rest goes to docs/", n)
	}
}

// TestDocsHoldNoTestCounts: a count of tests is out of date with the next
// test; figures come from make bench (docs/performance.md), never a hand.
func TestDocsHoldNoTestCounts(t *testing.T) {
	for _, file := range docFiles(t) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range testCounts.FindAllString(string(b), -1) {
			t.Errorf("%s: %q: say what the tests check, not how many there are", file, m)
		}
	}
}
