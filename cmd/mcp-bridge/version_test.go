package main

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionOfAPlainBuild: --version says the source's version (not
// "dev") whatever built it, and the commit when the build recorded one.
func TestVersionOfAPlainBuild(t *testing.T) {
	out, _, code := runCLI(t, nil, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "mcp-bridge "+version+"\n") || !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(version) {
		t.Errorf("--version: exit %d %q (version %q: want MAJOR.MINOR.PATCH)", code, out, version)
	}
	info := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-12-03T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if c, d := buildStamp(info, true); c != "0123456789ab with changes not committed" || d != "2026-12-03T10:00:00Z" {
		t.Errorf("build info: %q, %q", c, d)
	}
	if c, d := buildStamp(&debug.BuildInfo{}, true); c != "" || d != "" {
		t.Errorf("no vcs in the build info: %q, %q", c, d)
	}
	old := commit
	commit = "stamped"
	defer func() { commit = old }()
	if c, _ := buildStamp(info, true); c != "stamped" {
		t.Errorf("-X main.commit is not what wins: %q", c)
	}
}

// TestChangelogNamesTheVersion: CHANGELOG.md's newest release is this
// version, dated, with an [Unreleased] section above it and a link for
// each.
func TestChangelogNamesTheVersion(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	heads := regexp.MustCompile(`(?m)^## \[([^\]]+)\](.*)$`).FindAllStringSubmatch(string(b), -1)
	if len(heads) < 2 || heads[0][1] != "Unreleased" {
		t.Fatalf("CHANGELOG.md: want ## [Unreleased] first, then the releases; got %v", heads)
	}
	if heads[1][1] != version || !regexp.MustCompile(`^ - \d{4}-\d{2}-\d{2}$`).MatchString(heads[1][2]) {
		t.Errorf("CHANGELOG.md's newest release is %q%s: want [%s] - YYYY-MM-DD (main.version)", heads[1][1], heads[1][2], version)
	}
	for _, h := range heads[:2] {
		if !strings.Contains(string(b), "\n["+h[1]+"]: ") {
			t.Errorf("CHANGELOG.md has no link [%s]: …", h[1])
		}
	}
}
