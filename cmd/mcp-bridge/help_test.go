package main

import (
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// update rewrites the golden help files: go test ./cmd/mcp-bridge -update
var update = flag.Bool("update", false, "rewrite testdata/help/*.txt from the program's help texts")

const helpDir = "testdata/help"

// cacheDirMark stands for --cache-dir's default in the golden files: the
// user's cache folder, which differs from machine to machine (and is
// %LocalAppData%\mcp-bridge on Windows).
const cacheDirMark = "<user cache dir>/mcp-bridge"

// helpTexts are every text the program prints as help, by golden file
// name: --help, each command's --help, each topic, and the console guide
// as a person on Linux and on Windows reads it.
func helpTexts(t *testing.T) map[string]string {
	t.Helper()
	texts := map[string]string{}
	get := func(file string, args ...string) {
		out, errs, code := runCLI(t, nil, "", args...)
		if code != 0 || out != "" {
			t.Errorf("mcp-bridge %s: exit %d, stdout %q (help goes to stderr)", strings.Join(args, " "), code, out)
		}
		if d := defaultCacheDir(); d != "" {
			errs = strings.ReplaceAll(errs, d, cacheDirMark)
		}
		texts[file] = errs
	}
	get("mcp-bridge.txt", "--help")
	for _, c := range commands {
		if c != "help" && c != "version" {
			get(c+".txt", c, "--help")
		}
	}
	for _, tp := range topics {
		get("topic-"+tp.name+".txt", "help", tp.name)
	}
	texts["console.txt"] = consoleText("linux")
	texts["console.windows.txt"] = consoleText("windows")
	return texts
}

// TestHelpGolden: every help text is the one in testdata/help, so that a
// change in help is a reviewed diff; `go test ./cmd/mcp-bridge -update`
// rewrites them (and removes those of commands and topics that are gone).
func TestHelpGolden(t *testing.T) {
	texts := helpTexts(t)
	if *update {
		if err := os.MkdirAll(helpDir, 0o755); err != nil {
			t.Fatal(err)
		}
		old, _ := filepath.Glob(filepath.Join(helpDir, "*.txt"))
		for _, f := range old {
			if _, ok := texts[filepath.Base(f)]; !ok {
				os.Remove(f)
			}
		}
		for name, text := range texts {
			if err := os.WriteFile(filepath.Join(helpDir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	files, _ := filepath.Glob(filepath.Join(helpDir, "*.txt"))
	for _, f := range files {
		if _, ok := texts[filepath.Base(f)]; !ok {
			t.Errorf("%s is the help of no command or topic (go test ./cmd/mcp-bridge -update removes it)", f)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(texts)) {
		b, err := os.ReadFile(filepath.Join(helpDir, name))
		if err != nil {
			t.Errorf("%v (go test ./cmd/mcp-bridge -update writes it)", err)
			continue
		}
		// A checkout with CRLF line ends (git's autocrlf on Windows).
		want := strings.ReplaceAll(string(b), "\r\n", "\n")
		if diff := cmp.Diff(want, texts[name]); diff != "" {
			t.Errorf("%s differs from the help printed (-golden +now); if the change is meant, go test ./cmd/mcp-bridge -update:\n%s", name, diff)
		}
	}
}

// TestHelpTopics: help <topic> prints the topic; a word that is neither a
// command nor a topic is a usage error naming the nearest one; a topic
// that is also a command points to the command's flags.
func TestHelpTopics(t *testing.T) {
	_, errs, code := runCLI(t, nil, "", "help", "policy")
	if code != 0 || !strings.HasPrefix(errs, "mcp-bridge help policy: ") || !strings.Contains(errs, docsURL+"docs/policy.md\n") {
		t.Errorf("help policy: exit %d\n%s", code, errs)
	}
	_, errs, code = runCLI(t, nil, "", "help", "polcy")
	if code != 2 || !strings.Contains(errs, `no command or topic "polcy" (did you mean policy?)`) {
		t.Errorf("help polcy: exit %d\n%s", code, errs)
	}
	_, errs, code = runCLI(t, nil, "", "help", "policy", "journal")
	if code != 2 {
		t.Errorf("help with two words: exit %d\n%s", code, errs)
	}
	_, errs, _ = runCLI(t, nil, "", "help", "journal")
	if !strings.Contains(errs, "mcp-bridge help journal: ") || !strings.Contains(errs, "mcp-bridge journal --help") {
		t.Errorf("help journal, a topic and a command:\n%s", errs)
	}
	_, errs, _ = runCLI(t, nil, "", "--help")
	for _, tp := range topics {
		if !strings.Contains(errs, "\n  "+tp.name+" ") {
			t.Errorf("--help does not list the topic %s", tp.name)
		}
	}
}

// TestHelpTopicPagesExist: each topic's docs page is in the repository,
// with the heading the topic names.
func TestHelpTopicPagesExist(t *testing.T) {
	for _, tp := range topics {
		b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(tp.page)))
		if err != nil {
			t.Errorf("topic %s: %v", tp.name, err)
			continue
		}
		if tp.section != "" && !slices.Contains(headings(string(b)), anchor(tp.section)) {
			t.Errorf("topic %s: %s has no heading %q", tp.name, tp.page, tp.section)
		}
	}
}
