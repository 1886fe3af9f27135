package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/configs/setting"
)

// The repository's root, from this package's folder.
const repoRoot = "../.."

// docFiles are the docs a newcomer reads: the README and docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	return append([]string{filepath.Join(repoRoot, "README.md")}, files...)
}

// notOurs are folders whose Markdown is not the project's: installed
// packages, builds, git's own.
var notOurs = map[string]bool{"node_modules": true, ".git": true, "bin": true, "dist": true}

// markdownFiles are every Markdown file of the repository (the tracked
// ones, and any other outside the folders git ignores): README.md,
// docs/, CHANGELOG.md, configs/README.md, tcpbase/freecad/README.md, …
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && notOurs[d.Name()] {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil || len(files) < len(docFiles(t)) {
		t.Fatalf("the repository's Markdown files: %v, %v", files, err)
	}
	return files
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

// TestDocsLinksResolve: every relative link in every Markdown file of the
// repository names a file of it, and an #anchor a heading of its page.
func TestDocsLinksResolve(t *testing.T) {
	for _, file := range markdownFiles(t) {
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

// machineNotes are words of notes about the machine a page was written
// on, which mean nothing to its reader: what a search index there held,
// what that network reached, the setup it started from.
var machineNotes = regexp.MustCompile(`(?i)reachable (from )?here|not reachable from|search index|registry (reachable )?here|\b(the|a|our) seeds?\b|seed (notes|documents|article)|seeds/|in this sandbox`)

// TestDocsSayNothingOfTheirMachine: no Markdown file of the repository
// carries such a note.
func TestDocsSayNothingOfTheirMachine(t *testing.T) {
	for _, file := range markdownFiles(t) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := machineNotes.FindString(line); m != "" {
				t.Errorf("%s:%d: %q, a note about the machine it was written on: say what holds for the reader", file, i+1, m)
			}
		}
	}
}

// TestSettingsPageNamesEveryFlag: docs/settings.md has a row for every
// flag of the bridge and of connect, each with the variable it is read
// from (the one its help names), and names no flag that is not one.
func TestSettingsPageNamesEveryFlag(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "settings.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	rows := map[string]string{} // flag → its table row(s)
	for _, line := range strings.Split(page, "\n") {
		if !strings.HasPrefix(line, "| `--") {
			continue
		}
		first := strings.Split(line, "|")[1]
		for _, m := range regexp.MustCompile("`--([a-z0-9-]+)`").FindAllStringSubmatch(first, -1) {
			rows[m[1]] += line
		}
	}
	envOf := regexp.MustCompile(`\b((?:CAD_MCP|OTEL)_[A-Z_]+)\b`)
	seen := map[string]bool{}
	// The settings are the flags whose variable the bridge reads.
	asked := map[string]bool{}
	bridgeFlags := newBridgeFlags(io.Discard)
	_ = bridgeFlags.parse(nil, func(k string) string { asked[k] = true; return "" })
	check := func(cmd string, fs *pflag.FlagSet) {
		fs.VisitAll(func(fl *pflag.Flag) {
			if fl.Hidden {
				return
			}
			seen[fl.Name] = true
			row, ok := rows[fl.Name]
			if !ok {
				t.Errorf("docs/settings.md has no row for %s's --%s", cmd, fl.Name)
				return
			}
			for _, v := range envOf.FindAllString(fl.Usage, -1) {
				if fl.Name == "metrics-listen" {
					continue // its help names where the token comes from, not a variable of its own
				}
				if !strings.Contains(row, v) {
					t.Errorf("docs/settings.md's row for --%s does not name %s", fl.Name, v)
				}
			}
			if !asked[setting.EnvName(fl.Name)] || cmd == "connect" || topicOf(fl) == "telemetry" || fl.Name == "token-file" {
				return
			}
			if want := setting.EnvName(fl.Name); !strings.Contains(row, "`"+want+"`") {
				t.Errorf("docs/settings.md's row for --%s does not name its variable %s", fl.Name, want)
			}
		})
	}
	check("the bridge", bridgeFlags.fs)
	check("connect", newConnectFlags(io.Discard))
	for name := range rows {
		if !seen[name] {
			t.Errorf("docs/settings.md has a row for --%s, which no longer exists", name)
		}
	}
}
