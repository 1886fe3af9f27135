package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// trackedFiles are the repository's tracked files (git ls-files), paths
// from the repository's root; the test is skipped where git cannot be run
// (a test binary under Wine).
func trackedFiles(t *testing.T) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout, or no git here)", err)
	}
	var files []string
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

// maxTracked is the largest file the repository keeps: a clone is the
// sources, not their builds (the 15 MB debug binary once committed at the
// root was 80% of a clone).
const maxTracked = 2 << 20

// builtHeaders are the first bytes of programs and libraries as the
// linkers write them: ELF, PE (MZ), Mach-O (both byte orders, 32 and 64
// bits, and fat binaries).
var builtHeaders = [][]byte{
	{0x7f, 'E', 'L', 'F'},
	{'M', 'Z'},
	{0xfe, 0xed, 0xfa, 0xce}, {0xce, 0xfa, 0xed, 0xfe},
	{0xfe, 0xed, 0xfa, 0xcf}, {0xcf, 0xfa, 0xed, 0xfe},
	{0xca, 0xfe, 0xba, 0xbe},
}

// builtFile says why the file at path is a build rather than a source
// ("" when it is a source): its size, or its header.
func builtFile(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "" // deleted in the working tree: git status shows it
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	if st.Size() > maxTracked {
		return "over 2 MiB"
	}
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	for _, h := range builtHeaders {
		if n >= len(h) && bytes.Equal(head[:len(h)], h) {
			return "a built program (its header is " + strings.ToUpper(hexBytes(h)) + ")"
		}
	}
	return ""
}

func hexBytes(b []byte) string {
	const digits = "0123456789abcdef"
	var s strings.Builder
	for _, c := range b {
		s.WriteByte(digits[c>>4])
		s.WriteByte(digits[c&15])
	}
	return s.String()
}

// TestNoBuiltFileIsTracked: no tracked file is a built program (ELF, PE,
// Mach-O) or larger than 2 MiB. Builds go to bin/ and dist/, which git
// ignores, as it ignores a build named mcp-bridge at the root.
func TestNoBuiltFileIsTracked(t *testing.T) {
	for _, f := range trackedFiles(t) {
		if why := builtFile(filepath.Join(repoRoot, filepath.FromSlash(f))); why != "" {
			t.Errorf("%s is tracked and is %s: remove it (git rm --cached %s) and build it instead", f, why, f)
		}
	}
}

// TestBuiltFileRule: the rule above at its edges: a file of exactly 2 MiB
// is a source, one byte more is not; each header is a build, and a text
// file that starts like one ("MZ…" is rare, "\x7fELF" never) is caught
// only when its bytes are the header's.
func TestBuiltFileRule(t *testing.T) {
	dir := tempDir(t)
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct {
		name  string
		data  []byte
		built bool
	}{
		{"exactly-2MiB", bytes.Repeat([]byte("a"), maxTracked), false},
		{"2MiB-and-1", bytes.Repeat([]byte("a"), maxTracked+1), true},
		{"elf", []byte("\x7fELF\x02\x01\x01"), true},
		{"elf-cut", []byte("\x7fEL"), false},
		{"pe", []byte("MZ\x90\x00"), true},
		{"macho64", []byte{0xcf, 0xfa, 0xed, 0xfe, 7}, true},
		{"fat", []byte{0xca, 0xfe, 0xba, 0xbe, 0}, true},
		{"text", []byte("# mcp-bridge\n"), false},
		{"empty", nil, false},
	} {
		if got := builtFile(write(tt.name, tt.data)) != ""; got != tt.built {
			t.Errorf("%s: built %v, want %v", tt.name, got, tt.built)
		}
	}
}

// TestMakeHelpListsEveryTarget: make help names every target of the
// Makefile, and marks as installing system packages ([apt]) each target
// whose recipe or script runs apt-get.
func TestMakeHelpListsEveryTarget(t *testing.T) {
	mf, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "-s", "help")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("make help: %v (no make here)", err)
	}
	help := string(out)
	for _, m := range regexp.MustCompile(`(?m)^([a-z][a-z-]*):`).FindAllStringSubmatch(string(mf), -1) {
		if name := m[1]; name != "help" && !regexp.MustCompile(`\b`+regexp.QuoteMeta(name)+`\b`).MatchString(help) {
			t.Errorf("make help does not name the target %s", name)
		}
	}
	for _, target := range []string{"test-windows", "test-freecad", "test-proxy", "test-telemetry", "test-desktop"} {
		line := regexp.MustCompile(`(?m)^  ` + target + `\b.*$`).FindString(help)
		if !strings.Contains(line, "[apt:") {
			t.Errorf("make help does not say that %s installs system packages: %q", target, line)
		}
	}
}
