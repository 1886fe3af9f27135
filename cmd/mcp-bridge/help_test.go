package main

import (
	"flag"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge"
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
	// --cache-dir's default differs from machine to machine, and so would
	// where the lines around it wrap.
	bridge.CacheDirDefault = func() string { return cacheDirMark }
	defer func() { bridge.CacheDirDefault = bridge.DefaultCacheDir }()
	get := func(file string, args ...string) {
		out, errs, code := runCLI(t, nil, "", args...)
		if code != 0 || errs != "" || out == "" {
			t.Errorf("mcp-bridge %s: exit %d, stderr %q (help goes to stdout)", strings.Join(args, " "), code, errs)
		}
		texts[file] = out
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
	texts["console.txt"] = consoleText("linux", "./mcp-bridge")
	texts["console.windows.txt"] = consoleText("windows", `C:\Users\ana\Downloads\mcp-bridge\mcp-bridge.exe`)
	texts["stdin-note.txt"] = stdinNote("linux", "mcp-bridge")
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
	out, _, code := runCLI(t, nil, "", "help", "policy")
	if code != 0 || !strings.HasPrefix(out, "mcp-bridge help policy: ") || !strings.Contains(out, docsURL+"docs/policy.md\n") || !strings.Contains(out, "  --deny-tools ") {
		t.Errorf("help policy: exit %d\n%s", code, out)
	}
	out, errs, code := runCLI(t, nil, "", "help", "polcy")
	if code != 2 || out != "" || !strings.Contains(errs, `no command or topic "polcy" (did you mean policy?)`) {
		t.Errorf("help polcy: exit %d\n%s", code, errs)
	}
	_, errs, code = runCLI(t, nil, "", "help", "policy", "journal")
	if code != 2 {
		t.Errorf("help with two words: exit %d\n%s", code, errs)
	}
	out, _, _ = runCLI(t, nil, "", "help", "journal")
	if !strings.Contains(out, "mcp-bridge help journal: ") || !strings.Contains(out, "mcp-bridge journal --help") {
		t.Errorf("help journal, a topic and a command:\n%s", out)
	}
	out, _, _ = runCLI(t, nil, "", "--help")
	for _, tp := range topics {
		if !regexp.MustCompile(`\b` + tp.name + `\b`).MatchString(out[strings.Index(out, "Topics"):]) {
			t.Errorf("--help does not list the topic %s", tp.name)
		}
	}
}

// TestEveryBridgeFlagHasATopic: help <topic> lists its group's flags, and
// every flag of the bridge is in the group of a topic (but --version), so
// that help settings, which lists the groups, lists them all.
func TestEveryBridgeFlagHasATopic(t *testing.T) {
	f := newBridgeFlags(io.Discard)
	settings, _, _ := runCLI(t, nil, "", "help", "settings")
	f.fs.VisitAll(func(fl *pflag.Flag) {
		tp := topicOf(fl)
		if fl.Name != "version" && lookupTopic(tp) == nil {
			t.Errorf("--%s is in no topic's group (%q)", fl.Name, tp)
		}
		if !strings.Contains(settings, "  --"+fl.Name+" ") && !strings.Contains(settings, "  --"+fl.Name+"\n") {
			t.Errorf("help settings does not list --%s", fl.Name)
		}
		if tp != "" {
			out, _, _ := runCLI(t, nil, "", "help", tp)
			if !regexp.MustCompile(`(?m)^  --` + regexp.QuoteMeta(fl.Name) + `\b`).MatchString(out) {
				t.Errorf("help %s does not list --%s", tp, fl.Name)
			}
		}
	})
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

// TestHelpGoesToStdout: help the user asked for (--help, -h, help, help
// <command>, help <topic>, <command> --help and -h) is on stdout with
// exit 0 and nothing on stderr, so that | less and | findstr show it; a
// usage mistake is on stderr with exit 2 and nothing on stdout.
func TestHelpGoesToStdout(t *testing.T) {
	asked := [][]string{{"--help"}, {"-h"}, {"help"}}
	for _, c := range commands {
		asked = append(asked, []string{"help", c})
		if c != "help" && c != "version" {
			asked = append(asked, []string{c, "--help"}, []string{c, "-h"})
		}
	}
	for _, tp := range topics {
		asked = append(asked, []string{"help", tp.name})
	}
	for _, args := range asked {
		out, errs, code := runCLI(t, nil, "", args...)
		if code != 0 || out == "" || errs != "" {
			t.Errorf("%s: exit %d, %d bytes on stdout, stderr %q", strings.Join(args, " "), code, len(out), errs)
		}
	}
	for _, args := range [][]string{{"--nope"}, {"help", "nope"}, {"nope"}, {"install", "--nope"}, {"uninstall", "--port", "9000"}, {"call"}, {"doctor", "--port"}, {"help", "a", "b"}} {
		out, errs, code := runCLI(t, nil, "", args...)
		if code != 2 || out != "" || errs == "" {
			t.Errorf("%s (a mistake): exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out, errs)
		}
	}
}

// TestRootHelpFitsOneScreen: mcp-bridge --help is one terminal's screen
// (40 lines of 79 characters at most), names every command and topic, and
// the flags it shows are the bridge's.
func TestRootHelpFitsOneScreen(t *testing.T) {
	out, _, _ := runCLI(t, nil, "", "--help")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > 40 {
		t.Errorf("--help has %d lines, more than a terminal's 40", len(lines))
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > helpWidth {
			t.Errorf("a line of %d characters: %q", n, l)
		}
	}
	for _, c := range commands {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(c) + ` `).MatchString(out) {
			t.Errorf("--help does not list the command %s", c)
		}
	}
	f := newBridgeFlags(io.Discard)
	for _, c := range commonFlags {
		if f.fs.Lookup(c.name) == nil || !strings.Contains(out, "  --"+c.name) {
			t.Errorf("--help shows --%s, which the bridge has not, or does not show it", c.name)
		}
	}
}

// flagsIn are the flags a help text lists, one per line starting "  --".
func flagsIn(help string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^  --([a-z0-9-]+)`).FindAllStringSubmatch(help, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestEachCommandListsTheFlagsItTakes: a command's help lists exactly the
// flags it takes: every flag listed is one it takes, and every flag of the
// bridge's it takes is listed, but for install, which takes every bridge
// setting to write into the entry (its help says so), and connect's
// telemetry flags (under help telemetry, as it says). Whether a command
// takes a flag is asked by the command itself, with a value it refuses
// and --help after, so that nothing runs.
func TestEachCommandListsTheFlagsItTakes(t *testing.T) {
	bridgeFlags := newBridgeFlags(io.Discard).fs
	takes := func(c, flag string) bool {
		_, errs, _ := runCLI(t, nil, "", c, "--"+flag+"=\x00not-a-value", "--help")
		return !strings.Contains(errs, "unknown flag: --"+flag)
	}
	for _, c := range commands {
		if c == "help" || c == "version" {
			continue
		}
		help, _, _ := runCLI(t, nil, "", c, "--help")
		listed := flagsIn(help[strings.LastIndex(help, "Flags"):])
		for _, fl := range listed {
			if !takes(c, fl) {
				t.Errorf("%s --help lists --%s, which %[1]s does not take", c, fl)
			}
		}
		bridgeFlags.VisitAll(func(fl *pflag.Flag) {
			if fl.Hidden || slices.Contains(listed, fl.Name) || c == "install" || c == "connect" && topicOf(fl) == "telemetry" {
				return
			}
			if takes(c, fl.Name) {
				t.Errorf("%s takes --%s, which its --help does not list", c, fl.Name)
			}
		})
	}
	install, _, _ := runCLI(t, nil, "", "install", "--help")
	if !strings.Contains(install, "any bridge\nsetting you give") || !strings.Contains(install, "mcp-bridge help settings") {
		t.Errorf("install --help does not say it takes the bridge's settings:\n%s", install)
	}
}
