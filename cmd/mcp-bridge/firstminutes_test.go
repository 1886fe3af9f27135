package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
)

// runAs is runCLI with the rest of env set by the caller (argv0, console).
func runAs(t *testing.T, e *env, vars map[string]string) (string, string, int) {
	t.Helper()
	var out, errb syncBuffer
	e.getenv = func(k string) string { return vars[k] }
	if e.stdin == nil {
		e.stdin = strings.NewReader("")
	}
	e.stdout, e.stderr = &out, &errb
	code := exitCode(run(context.Background(), e), &errb)
	return out.String(), errb.String(), code
}

// TestInstallWarnsAboutATransientBinary: a binary run from a zip Explorer
// opened, the temporary folder or Downloads is registered with a warning
// that shows the command registering a copy that stays.
func TestInstallWarnsAboutATransientBinary(t *testing.T) {
	home := tempDir(t)
	tmp := filepath.Join(home, "tmp")
	vars := map[string]string{"HOME": home, "USERPROFILE": home, "TMPDIR": tmp, "TEMP": tmp, "TMP": tmp, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"APPDATA": filepath.Join(home, ".config"), "LOCALAPPDATA": filepath.Join(home, "AppData", "Local")}
	place := func(rel string) string {
		p := filepath.Join(home, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte("binary"), 0o700)
		return p
	}
	for _, tt := range []struct{ exe, why string }{
		{place("tmp/Temp1_mcp-bridge_windows_amd64.zip/mcp-bridge.exe"), "a folder Windows Explorer made to run it from inside a zip"},
		{place("tmp/x/mcp-bridge"), "the temporary folder " + tmp},
		{place("Downloads/mcp-bridge"), "the Downloads folder " + filepath.Join(home, "Downloads")},
		{place("bin/mcp-bridge"), ""},
	} {
		_, errs, code := runAs(t, &env{argv0: tt.exe, args: []string{"install", "--client", "cursor", "--dry-run"}}, vars)
		// From a terminal in this folder, not the binary's: on Windows
		// the hint goes there first, and runs the binary by its path.
		hint := "  " + tt.exe + " install --copy --client cursor --dry-run\n"
		if runtime.GOOS == "windows" {
			hint = "  cd \"" + filepath.Dir(tt.exe) + "\"\n  .\\" + filepath.Base(tt.exe) + " install --copy --client cursor --dry-run\n"
		}
		warned := strings.Contains(errs, "warning: "+tt.exe+" is in "+tt.why) && strings.Contains(errs, "once it is gone, the client cannot start the bridge.") &&
			strings.Contains(errs, hint)
		if code != 0 || warned != (tt.why != "") || tt.why == "" && strings.Contains(errs, "warning") {
			t.Errorf("install from %s: exit %d, warned %v\n%s", tt.exe, code, warned, errs)
		}
	}
	// --copy registers the copy: nothing to warn about.
	_, errs, code := runAs(t, &env{argv0: filepath.Join(home, "Downloads", "mcp-bridge"), args: []string{"install", "--client", "cursor", "--copy", "--dry-run"}}, vars)
	if code != 0 || strings.Contains(errs, "warning") {
		t.Errorf("install --copy: exit %d\n%s", code, errs)
	}
}

// TestTransientOnWindows: the Windows layout, whatever OS runs the test.
func TestTransientOnWindows(t *testing.T) {
	vars := map[string]string{"USERPROFILE": `C:\Users\ana`, "TEMP": `C:\Users\ana\AppData\Local\Temp`, "LOCALAPPDATA": `C:\Users\ana\AppData\Local`}
	ce := clientconf.Env{OS: "windows", Getenv: func(k string) string { return vars[k] }}
	for path, want := range map[string]string{
		`C:\Users\ana\AppData\Local\Temp\Temp1_mcp-bridge.zip\mcp-bridge.exe`: "a folder Windows Explorer made",
		`c:\users\ana\appdata\local\temp\x\mcp-bridge.exe`:                    "the temporary folder",
		`C:\Users\ana\Downloads\mcp-bridge_1.0\mcp-bridge.exe`:                "the Downloads folder",
		`C:\Users\ana\AppData\Local\Programs\mcp-bridge\mcp-bridge.exe`:       "",
		`C:\Users\ana\Downloads2\mcp-bridge.exe`:                              "",
	} {
		if got := ce.Transient(path); !strings.HasPrefix(got, want) || want == "" && got != "" {
			t.Errorf("%s: %q, want %q…", path, got, want)
		}
	}
}

// blockingStdin is a console that nobody has typed into yet: Read tells
// the test it was reached, then waits for the line.
type blockingStdin struct {
	reached chan struct{}
	line    chan string
}

func (b *blockingStdin) Read(p []byte) (int, error) {
	select {
	case b.reached <- struct{}{}:
	default:
	}
	l, ok := <-b.line
	if !ok {
		return 0, io.EOF
	}
	return copy(p, l), nil
}

// TestConsoleGuide: started by hand with no arguments, it says what it is
// and what to run. On Windows (a double-clicked mcp-bridge.exe) it waits
// for Enter before it ends, so that its window stays; in a terminal
// elsewhere it ends at once, with no Windows words, and names the program
// as it was run (./mcp-bridge: it is on no PATH yet). A client's pipe, or
// any argument, gets the bridge.
func TestConsoleGuide(t *testing.T) {
	in := &blockingStdin{reached: make(chan struct{}, 1), line: make(chan string, 1)}
	var out, errb syncBuffer
	e := &env{argv0: "./mcp-bridge", args: nil, console: true, getenv: func(string) string { return "" }, stdin: in, stdout: &out, stderr: &errb}
	done := make(chan int)
	go func() { done <- exitCode(run(context.Background(), e), &errb) }()
	var guide string
	if runtime.GOOS == "windows" {
		select {
		case <-in.reached:
		case code := <-done:
			t.Fatalf("it ended (exit %d) without waiting for Enter:\n%s", code, errb.String())
		}
		select {
		case <-done:
			t.Fatal("the guide ended before Enter was pressed")
		default: // it is blocked reading the console: the window stays
		}
		guide = errb.String()
		in.line <- "\n"
		close(in.line) // then EOF, should it read on
		if code := <-done; code != 0 || len(out.String()) != 0 {
			t.Errorf("exit %d, stdout %q", code, out.String())
		}
	} else {
		if code := <-done; code != 0 || len(out.String()) != 0 {
			t.Errorf("exit %d, stdout %q", code, out.String())
		}
		select {
		case <-in.reached:
			t.Error("in a terminal it read stdin: nothing is to be pressed there")
		default:
		}
		guide = errb.String()
		for _, windows := range []string{"Press Enter", "window", "cmd or PowerShell", ".exe"} {
			if strings.Contains(guide, windows) {
				t.Errorf("the guide in a terminal on %s says %q:\n%s", runtime.GOOS, windows, guide)
			}
		}
		if !strings.Contains(guide, "\n  ./mcp-bridge install --copy --client claude-desktop\n") {
			t.Errorf("the guide does not run the program as it was run (./mcp-bridge):\n%s", guide)
		}
	}
	for _, want := range []string{"your assistant starts it.", "install --copy --client claude-desktop\n", "(--client: claude-desktop, claude-code,",
		" doctor\n", " verify --port 8080\n"} {
		if !strings.Contains(guide, want) {
			t.Errorf("the guide lacks %q:\n%s", want, guide)
		}
	}
	// A client's pipe (console false), or arguments: the bridge itself,
	// which ends at EOF with nothing on stdout.
	for _, e := range []*env{{console: false}, {console: true, args: []string{"--port", "1"}}} {
		_, errs, code := runAs(t, e, map[string]string{"CAD_MCP_PORT": "1"})
		if code != 0 || strings.Contains(errs, "Press Enter") || !strings.Contains(errs, "serving on stdio") {
			t.Errorf("console %v args %v: exit %d\n%s", e.console, e.args, code, errs)
		}
	}
}

// TestBridgeInATerminalSaysWhatItWaitsFor: the bridge started by hand in a
// terminal (the README's stdio example typed there) says once, on stderr,
// that it waits for an MCP client on stdin and what to try instead; from
// a client's pipe it says nothing of the kind, and stdout stays clean.
func TestBridgeInATerminalSaysWhatItWaitsFor(t *testing.T) {
	for _, console := range []bool{true, false} {
		out, errs, code := runAs(t, &env{argv0: "mcp-bridge", console: console, args: []string{"--port", "1", "--no-cache"}}, nil)
		n := strings.Count(errs, "waiting for an MCP client's messages on stdin")
		prog := runName(runtime.GOOS, "mcp-bridge") // .\mcp-bridge.exe on Windows
		if code != 0 || out != "" || console && (n != 1 || !strings.Contains(errs, "  "+prog+" demo ") || !strings.Contains(errs, "  "+prog+" verify --port 8080 ")) || !console && n != 0 {
			t.Errorf("stdin a terminal %v: exit %d, stdout %q, said it %d times:\n%s", console, code, out, n, errs)
		}
	}
	for _, l := range strings.Split(stdinNote("linux", "./mcp-bridge"), "\n") {
		if n := utf8.RuneCountInString(l); n > helpWidth {
			t.Errorf("the note has a line of %d characters: %q", n, l)
		}
	}
}

// TestSuggestions: what a new user mistypes gets the nearest right word.
func TestSuggestions(t *testing.T) {
	port := startSim(t)
	vars := map[string]string{"CAD_MCP_PORT": port}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"instal", "--client", "cursor"}, 2, `unknown command "instal" (did you mean install?)`},
		{[]string{"isntall"}, 2, `(did you mean install?)`},
		{[]string{"doctr", "--dry-run"}, 2, `(did you mean doctor?)`},
		{[]string{"--prot", "9000"}, 2, "unknown flag: --prot (did you mean --port?)"},
		{[]string{"install", "--client", "cursor", "--scpe", "user"}, 2, "unknown flag: --scpe (did you mean --scope?)"},
		{[]string{"call", "x", "--arg", "{}"}, 2, "unknown flag: --arg (did you mean --args?)"},
		{[]string{"install", "--client", "cursr"}, 2, `--client "cursr" (did you mean cursor?)`},
		{[]string{"--print-config", "--client", "vscod"}, 2, `--client "vscod" (did you mean vscode?)`},
		{[]string{"call", "draw_circel", "--args", `{"center":{"x":0,"y":0},"radius":1}`}, 1, `the base has no tool "draw_circel" (did you mean draw_circle?)`},
		{[]string{"call", "zzzzzzzz"}, 1, `the base has no tool "zzzzzzzz"; mcp-bridge tools lists them`},
	} {
		_, errs, code := runCLI(t, vars, "", tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d (want %d), stderr %q, want %q", tt.args, code, tt.code, errs, tt.want)
		}
	}
}

// TestHelpAndVersionSubcommands: `help`, `help CMD` and `version` work as
// words; help clients names every client with its id; a command's help
// shows its own flags.
func TestHelpAndVersionSubcommands(t *testing.T) {
	out, _, code := runCLI(t, nil, "", "version")
	if code != 0 || !strings.HasPrefix(out, "mcp-bridge ") {
		t.Errorf("version: exit %d %q", code, out)
	}
	out, _, code = runCLI(t, nil, "", "help")
	if code != 0 || !strings.Contains(out, "Set up and check:") {
		t.Errorf("help: exit %d\n%s", code, out)
	}
	out, _, _ = runCLI(t, nil, "", "help", "clients")
	header := strings.Join(strings.Fields(out), " ")
	for _, c := range clientconf.Clients {
		if !strings.Contains(header, c.Name+" ("+c.ID+")") {
			t.Errorf("help clients does not name %s (%s)", c.Name, c.ID)
		}
	}
	out, _, code = runCLI(t, nil, "", "help", "call")
	out2, _, _ := runCLI(t, nil, "", "call", "--help")
	if code != 0 || out != out2 || !strings.Contains(out, "Usage: mcp-bridge call NAME") {
		t.Errorf("help call: exit %d\n%s\ncall --help:\n%s", code, out, out2)
	}
	flags := regexp.MustCompile(`--[a-z-]+`).FindAllString(out[strings.Index(out, "Flags:"):], -1)
	if strings.Join(flags, " ") != "--host --port --timeout --json --args" {
		t.Errorf("call --help shows the flags %v", flags)
	}
}

// TestLogDurationsCarryTheirUnit: "took_ms=0.4", not "took=0.4".
func TestLogDurationsCarryTheirUnit(t *testing.T) {
	port := startSim(t)
	_, errs, code := runCLI(t, map[string]string{"CAD_MCP_PORT": port, "CAD_MCP_LOG_LEVEL": "debug", "CAD_MCP_NO_CACHE": "true"}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n")
	if code != 0 || !regexp.MustCompile(`forwarded .*took_ms=[0-9.]+`).MatchString(errs) {
		t.Errorf("exit %d; the forwarded line has no took_ms=:\n%s", code, errs)
	}
}

// TestVerifyToolFlags: --args goes with --tool, and must be a JSON object;
// both are checked before anything starts.
func TestVerifyToolFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"verify", "--args", "{}"}, "--args goes with --tool NAME"},
		{[]string{"verify", "--tool", "list_layers", "--args", "{layer:1}"}, "--args is not valid JSON: invalid character 'l' looking for beginning of object key string, at character 2:\n  {layer:1}\n   ^"},
		{[]string{"verify", "--tool", "list_layers", "--args", "[]"}, "--args must be a JSON object"},
	} {
		_, errs, code := runCLI(t, nil, "", tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tt.args, code, errs, tt.want)
		}
	}
}
