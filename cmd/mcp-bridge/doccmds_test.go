package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// docCommand is a command line a page shows in a code block.
type docCommand struct {
	file string
	line int
	text string // the command, continuation lines joined, comment cut
}

// commandStart is where a shown command runs mcp-bridge: its name, or a
// path ending in it, after variable assignments.
var commandStart = regexp.MustCompile(`^(?:[A-Z_]+=\S+\s+)*(?:\S*/)?mcp-bridge(?:\.exe)?\s`)

// docCommands are the mcp-bridge command lines of the pages a user reads:
// the README, docs/ and configs/README.md, in fenced and indented code
// blocks.
func docCommands(t *testing.T) []docCommand {
	t.Helper()
	files := append(docFiles(t), filepath.Join(repoRoot, "configs", "README.md"))
	var out []docCommand
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		fenced := false
		for i := 0; i < len(lines); i++ {
			l := lines[i]
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				fenced = !fenced
				continue
			}
			code := fenced || strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t")
			text := strings.TrimSpace(l)
			if !code || !commandStart.MatchString(text+" ") {
				continue
			}
			// A command, not a line of output that starts with the name:
			// the next word is one of its commands or a flag.
			if next := strings.Fields(commandStart.ReplaceAllString(text+" ", "")); len(next) > 0 && !slices.Contains(commands, next[0]) && !strings.HasPrefix(next[0], "-") {
				continue
			}
			start := i
			for strings.HasSuffix(text, `\`) && i+1 < len(lines) {
				i++
				text = strings.TrimSuffix(text, `\`) + " " + strings.TrimSpace(lines[i])
			}
			out = append(out, docCommand{file: file, line: start + 1, text: cutComment(text)})
		}
	}
	return out
}

// cutComment is a command line without its trailing # comment (a # inside
// quotes stays).
func cutComment(s string) string {
	quote := rune(0)
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || s[i-1] == ' '):
			return strings.TrimSpace(s[:i])
		}
	}
	return strings.TrimSpace(s)
}

// notRun are the shown commands the test leaves alone, each with why:
// they need a CAD program, another system or machine, or a file of the
// reader's own; anything else a page shows runs in TestDocCommandsRun.
var notRun = []struct {
	re  *regexp.Regexp
	why string
}{
	{regexp.MustCompile(`…|sha256:…|\bCLIENT\b`), "a placeholder for the reader to fill in"},
	{regexp.MustCompile(`cad-pc|cad\.example\.com`), "another machine"},
	{regexp.MustCompile(`C:\\|\.exe\b|%[A-Z]+%`), "Windows"},
	{regexp.MustCompile(`--cad freecad|freecad\b|FCMacro|--cad autocad`), "a CAD program (FreeCAD, AutoCAD) installed"},
	{regexp.MustCompile(`/etc/`), "a system folder of the reader's"},
	{regexp.MustCompile(`my-annotations\.jsonc`), "a file of the reader's own"},
}

// TestDocCommandsRun: every mcp-bridge command the README, docs/ and
// configs/README.md show runs as shown, but those notRun names: in a
// fresh home whose client folders are empty, with the archive unpacked in
// ~/mcp-bridge (what the README has the reader do), the simulated base
// standing in for the CAD program on the port a command names (8080 made
// the free one the base listens on), and each page's commands run in
// their order, sharing that home: a server one starts (--listen, sim)
// serves the commands after it. Each must exit 0, or for a server come up.
func TestDocCommandsRun(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the pages' commands are shown for a Unix shell; their Windows forms are for Windows users to run")
	}
	// verify starts this binary as the bridge: as mcp-bridge (TestMain).
	t.Setenv("MCP_BRIDGE_TEST_AS_MAIN", "1")
	cmds := docCommands(t)
	if len(cmds) < 30 {
		t.Fatalf("found %d commands in the docs", len(cmds))
	}
	byFile := map[string][]docCommand{}
	var files []string
	for _, c := range cmds {
		if byFile[c.file] == nil {
			files = append(files, c.file)
		}
		byFile[c.file] = append(byFile[c.file], c)
	}
	ran := 0
	for _, file := range files {
		rel, _ := filepath.Rel(repoRoot, file)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			s := newDocSession(t)
			for _, c := range byFile[file] {
				if why := skipReason(c.text); why != "" {
					continue
				}
				ran++
				s.run(c)
			}
		})
	}
	if ran < 20 {
		t.Errorf("only %d of the %d commands ran", ran, len(cmds))
	}
}

func skipReason(cmd string) string {
	for _, n := range notRun {
		if n.re.MatchString(cmd) {
			return n.why
		}
	}
	return ""
}

// docSession is one page's commands' world: a home, a working folder, the
// simulated base, and the ports the page's addresses stand for.
type docSession struct {
	t         *testing.T
	home, dir string
	vars      map[string]string
	ports     map[string]string // a port a page names → the one it runs on
}

func newDocSession(t *testing.T) *docSession {
	root := tempDir(t)
	home := filepath.Join(root, "home")
	dir := filepath.Join(root, "work")
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{}) // the drawing tools, as a CAD program's base
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	_, simPort, _ := net.SplitHostPort(sim.Addr())
	s := &docSession{t: t, home: home, dir: dir, ports: map[string]string{"8080": simPort}}
	s.vars = map[string]string{"HOME": home, "USERPROFILE": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_CACHE_HOME": filepath.Join(home, ".cache"),
		"APPDATA": filepath.Join(home, ".config"), "LOCALAPPDATA": filepath.Join(home, ".cache"), "PATH": os.Getenv("PATH"),
		"CAD_MCP_PORT": s.ports["8080"], "CAD_MCP_JOURNAL": filepath.Join(home, "cad-journal.jsonl"), "GOMAXPROCS": "2", "GOMEMLIMIT": "off"}
	// The archive unpacked in ~/mcp-bridge, as the README has it; the
	// working folder holds configs/ as a checkout does.
	policy, err := os.ReadFile(filepath.Join(repoRoot, "configs", "policy.example.jsonc"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(home, "mcp-bridge", "configs"), filepath.Join(dir, "configs"), filepath.Join(home, ".config", "Claude")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(home, "mcp-bridge", "configs", "policy.example.jsonc"), policy, 0o644)
	os.WriteFile(filepath.Join(dir, "configs", "policy.example.jsonc"), policy, 0o644)
	t.Chdir(dir)
	// A journal with a call in it, for the journal commands.
	if _, errs, code := runCLI(t, s.vars, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_entities","arguments":{"handles":["1"]}}}`+"\n", "--journal", s.vars["CAD_MCP_JOURNAL"], "--no-cache"); code != 0 {
		t.Fatalf("writing a journal: %s", errs)
	}
	return s
}

// run runs one command as the page shows it, its ports made this
// session's and its placeholders filled in.
func (s *docSession) run(c docCommand) {
	t := s.t
	t.Helper()
	vars, args, err := shellWords(c.text, s.home)
	if err != nil {
		t.Errorf("%s:%d: %s: %v", filepath.Base(c.file), c.line, c.text, err)
		return
	}
	env := map[string]string{}
	for k, v := range s.vars {
		env[k] = v
	}
	for k, v := range vars {
		env[k] = v
	}
	listen := slices.Contains(args, "--listen") && !slices.Contains(args, "--print-config") // a server
	for i, a := range args {
		if a == "FILE" {
			args[i] = s.vars["CAD_MCP_JOURNAL"]
		}
		if (listen || args[0] == "sim") && regexp.MustCompile(`^([0-9.]+:)?\d{4}$`).MatchString(a) {
			// A server: on a free port, which the page's later commands use.
			page := a[strings.LastIndex(a, ":")+1:]
			s.ports[page] = freePort(t)
		}
		for page, real := range s.ports {
			args[i] = regexp.MustCompile(`\b`+page+`\b`).ReplaceAllString(args[i], real)
		}
	}
	where := fmt.Sprintf("%s:%d: %s", filepath.Base(c.file), c.line, c.text)
	switch {
	case listen:
		if _, logs, err := startInProcessLogs(t, env, args...); err != nil {
			t.Errorf("%s: does not serve: %v\n%s", where, err, logs)
		}
	case args[0] == "sim":
		s.serveSim(where, env, args)
	default:
		out, errs, code := runCLI(t, env, "", args...)
		if code != 0 {
			t.Errorf("%s: exit %d\n%s%s", where, code, out, errs)
		}
	}
}

// serveSim runs a sim command until it listens, then stops it.
func (s *docSession) serveSim(where string, vars map[string]string, args []string) {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{args: args, getenv: func(k string) string { return vars[k] }, stdin: strings.NewReader(""), stdout: pw, stderr: io.Discard}
	done := make(chan error, 1)
	go func() { done <- run(ctx, e); pw.Close() }()
	sc := bufio.NewScanner(pr)
	listening := false
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "listening on ") {
			listening = true
			break
		}
	}
	go io.Copy(io.Discard, pr)
	cancel()
	if err := <-done; !listening || err != nil {
		s.t.Errorf("%s: did not listen (%v)", where, err)
	}
}

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, p, _ := net.SplitHostPort(ln.Addr().String())
	return p
}

// shellWords splits a command line as a POSIX shell would for the forms
// the pages use: leading VAR=value assignments, single and double quotes,
// ~/ at a word's start; and drops the program's name. Anything else a
// shell would interpret ($(…), pipes, redirections) is refused.
func shellWords(line, home string) (vars map[string]string, args []string, err error) {
	vars = map[string]string{}
	var words []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == '"' && (r == '$' || r == '`'):
			return nil, nil, fmt.Errorf("a shell construct (%c) the test does not run", r)
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case strings.ContainsRune("|;&<>$`", r):
			return nil, nil, fmt.Errorf("a shell construct (%c) the test does not run", r)
		default:
			if !inWord && r == '~' {
				cur.WriteString(home)
				inWord = true
				continue
			}
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, nil, fmt.Errorf("an unclosed quote")
	}
	if inWord {
		words = append(words, cur.String())
	}
	for len(words) > 0 && regexp.MustCompile(`^[A-Z_]+=`).MatchString(words[0]) {
		k, v, _ := strings.Cut(words[0], "=")
		vars[k] = v
		words = words[1:]
	}
	if len(words) < 2 {
		return nil, nil, fmt.Errorf("no command after the program's name")
	}
	return vars, words[1:], nil
}

// TestShellWords: the splitting the docs test relies on.
func TestShellWords(t *testing.T) {
	vars, args, err := shellWords(`CAD_MCP_PORT=9000 ./mcp-bridge call draw_circle --args '{"center":{"x":0}}' --name "a b" ~/x`, "/h")
	if err != nil || vars["CAD_MCP_PORT"] != "9000" || strings.Join(args, "|") != `call|draw_circle|--args|{"center":{"x":0}}|--name|a b|/h/x` {
		t.Errorf("%v %q %v", vars, args, err)
	}
	if _, _, err := shellWords(`mcp-bridge verify --url "$(cat x)"`, "/h"); err == nil {
		t.Error("$(…) was not refused")
	}
}
