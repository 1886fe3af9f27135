package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop"
)

// doctorHome is an empty home for install and doctor, with the variables
// that place every client's files in it, and the file helper.
func doctorHome(t *testing.T) (string, map[string]string, func(rel, content string)) {
	home := tempDir(t)
	env := map[string]string{"HOME": home, "USERPROFILE": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "APPDATA": filepath.Join(home, ".config")}
	write := func(rel, content string) {
		p := filepath.Join(home, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home, env, write
}

// TestDoctorChecksTheBaseOfEachRegistration: a registration is checked
// against the base it names, not the one doctor was given or the default.
func TestDoctorChecksTheBaseOfEachRegistration(t *testing.T) {
	up, down := startSim(t), closedPort(t)
	_, env, _ := doctorHome(t)
	if _, errs, code := runCLI(t, env, "", "install", "--client", "cursor", "--port", down); code != 0 {
		t.Fatalf("install: %d %s", code, errs)
	}
	// doctor --port names a base that answers; Cursor's does not.
	out, _, code := runCLI(t, env, "", "doctor", "--port", up)
	want := "FAIL  CAD base at 127.0.0.1:" + down + " refused the connection: is the CAD program running with its MCP base enabled?\n      Cursor is set to use it."
	if code != 1 || !strings.Contains(out, "ok    Cursor registers \"cad-autocad\"") || !strings.Contains(out, "its CAD base at 127.0.0.1:"+down+" (CAD_MCP_PORT in its env) is not running (above)") ||
		!strings.Contains(out, want) || !strings.Contains(out, "ok    CAD base at 127.0.0.1:"+up) {
		t.Errorf("doctor --port %s with Cursor at %s: exit %d\n%s", up, down, code, out)
	}

	// Registered at a base that answers, doctor without --port: no
	// problems, and nothing about the default port nobody uses.
	if _, errs, code := runCLI(t, env, "", "install", "--client", "cursor", "--port", up); code != 0 {
		t.Fatalf("install: %d %s", code, errs)
	}
	out, _, code = runCLI(t, env, "", "doctor")
	if code != 0 || !strings.Contains(out, "CAD base at 127.0.0.1:"+up+" (CAD_MCP_PORT in its env) answers: 40 tools") || strings.Contains(out, ":8080") || !strings.HasSuffix(out, "no problems\n") {
		t.Errorf("doctor after install --port %s: exit %d\n%s", up, code, out)
	}
}

// TestDoctorThreeRegistrations: three registrations at three ports, one in
// a file CodeBuddy does not read: each is reported with its own base, and
// the shadowed one is a problem that names the file to use. The one
// CodeBuddy reads says which CodeBuddy program make test-clients checks
// install's entries with; Cursor's, checked with none, says nothing.
func TestDoctorThreeRegistrations(t *testing.T) {
	a, b, c := startSim(t), startSim(t), closedPort(t)
	home, env, write := doctorHome(t)
	exe, _ := os.Executable()
	cmd, _ := json.Marshal(exe)
	entry := func(port string) string {
		return `{"command":` + string(cmd) + `,"env":{"CAD_MCP_PORT":"` + port + `"}}`
	}
	write(".cursor/mcp.json", `{"mcpServers":{"cad":`+entry(a)+`}}`)
	write(".codebuddy/.mcp.json", `{"mcpServers":{"cad":`+entry(b)+`}}`)
	write(".codebuddy.json", `{"mcpServers":{"cad-old":`+entry(c)+`}}`)
	out, errs, code := runCLI(t, env, "", "doctor")
	for _, want := range []string{
		"info  CAD base: each registration below is checked against the base it reaches",
		`ok    Cursor registers "cad" in ` + filepath.Join(home, ".cursor", "mcp.json") + ": " + exe + ": command exists; CAD base at 127.0.0.1:" + a + " (CAD_MCP_PORT in its env) answers: 40 tools, ",
		`ok    CodeBuddy registers "cad" in ` + filepath.Join(home, ".codebuddy", ".mcp.json") + ": " + exe + ": command exists; CAD base at 127.0.0.1:" + b + " (CAD_MCP_PORT in its env) answers: 40 tools, ",
		`FAIL  CodeBuddy registers "cad-old" in ` + filepath.Join(home, ".codebuddy.json") + ": " + exe + ": CodeBuddy never reads this entry: it reads " + filepath.Join(home, ".codebuddy", ".mcp.json") +
			" instead (the first of its files that exists). Move the entry there (mcp-bridge install --client codebuddy writes it there), or remove " + filepath.Join(home, ".codebuddy", ".mcp.json") + " if nothing in it is needed",
		"1 problem\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	if code != 1 || strings.Contains(out, ":"+c) {
		t.Errorf("exit %d (the shadowed entry's base %s must not be checked)\n%s%s", code, c, out, errs)
	}
	checked := 0
	for _, line := range strings.Split(out, "\n") {
		has := strings.Contains(line, "; checked with ")
		if has {
			checked++
		}
		if strings.HasPrefix(line, `ok    CodeBuddy registers "cad" `) != has || has && !strings.HasSuffix(line, "; checked with CodeBuddy Code "+codeBuddyCode+" itself (npm @tencent-ai/agent-sdk "+codeBuddySDK+"): install's stdio and URL entries connect and list the base's tools, without those a policy denies") {
			t.Errorf("%q: only the entry CodeBuddy reads says what CodeBuddy's own program showed", line)
		}
	}
	if checked != 1 {
		t.Errorf("%d lines say what a client's own program showed, want 1:\n%s", checked, out)
	}
}

// The CodeBuddy make test-clients runs: its program's version (what
// `codebuddy --version` says, which the run checks against doctor's words)
// and the npm package it comes in (TestCheckedWithThePinnedClients: the
// one verify/realclients pins).
const codeBuddyCode, codeBuddySDK = "2.117.0", "0.3.201"

// TestInstallRefusesListen: an entry the client starts must serve stdio.
// install --listen refuses, writes nothing and shows the commands that
// work; an entry with --listen written by hand is a doctor problem.
func TestInstallRefusesListen(t *testing.T) {
	home, env, write := doctorHome(t)
	out, errs, code := runCLI(t, env, "", "install", "--client", "cursor", "--port", "9000", "--listen", "127.0.0.1:8931")
	for _, want := range []string{
		"install does not take --listen",
		"  mcp-bridge install --client cursor --port 9000\n",
		"  mcp-bridge --listen 127.0.0.1:8931\n",
		"  mcp-bridge --print-config --client cursor --listen 127.0.0.1:8931",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("install --listen: stderr lacks %q:\n%s", want, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".cursor", "mcp.json")); code != 2 || out != "" || err == nil {
		t.Errorf("install --listen: exit %d, stdout %q, file written: %v", code, out, err == nil)
	}
	_, errs, code = runCLI(t, map[string]string{"HOME": home, "CAD_MCP_LISTEN": "127.0.0.1:8931"}, "", "install", "--client", "claude-code")
	if code != 2 || !strings.Contains(errs, "CAD_MCP_LISTEN in your environment") || !strings.Contains(errs, "claude mcp add --transport http cad-autocad http://127.0.0.1:8931/mcp") {
		t.Errorf("CAD_MCP_LISTEN set: exit %d\n%s", code, errs)
	}

	exe, _ := os.Executable()
	cmd, _ := json.Marshal(exe)
	write(".cursor/mcp.json", `{"mcpServers":{"cad":{"type":"stdio","command":`+string(cmd)+`,"args":["--listen","127.0.0.1:8931"],"env":{"CAD_MCP_PORT":"`+startSim(t)+`"}}}}`)
	out, _, code = runCLI(t, env, "", "doctor")
	if code != 1 || !strings.Contains(out, `FAIL  Cursor registers "cad"`) || !strings.Contains(out, "it starts the bridge with --listen 127.0.0.1:8931: the bridge then serves HTTP, not the stdio Cursor talks to") {
		t.Errorf("doctor with a --listen entry: exit %d\n%s", code, out)
	}
}

// TestDoctorAmazonQLegacyFileOff: an entry in Amazon Q's mcp.json, which
// it no longer reads once its default.json turns "useLegacyMcpJson" off,
// is a problem that says so.
func TestDoctorAmazonQLegacyFileOff(t *testing.T) {
	up := startSim(t)
	home, env, write := doctorHome(t)
	if _, errs, code := runCLI(t, env, "", "install", "--client", "amazonq", "--port", up); code != 0 {
		t.Fatalf("install: %d %s", code, errs)
	}
	write(".aws/amazonq/default.json", `{"useLegacyMcpJson": false, "mcpServers": {}}`)
	out, _, code := runCLI(t, env, "", "doctor")
	want := `FAIL  Amazon Q Developer (IDE) registers "cad-autocad" in ` + filepath.Join(home, ".aws", "amazonq", "mcp.json")
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(out, `Amazon Q Developer (IDE) never reads this entry: "useLegacyMcpJson" is false in `+filepath.Join(home, ".aws", "amazonq", "default.json")) {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// namedDesktop is a desktop that exists for doctor: it only names its
// dialog program (doctor shows no question).
type namedDesktop string

func (d namedDesktop) Name() string { return string(d) }
func (namedDesktop) Ask(context.Context, desktop.Question) (desktop.Answer, error) {
	return desktop.DontRun, errors.New("doctor asks nothing")
}

// TestDoctorSaysWhoAsks: for each registration whose policy has a confirm
// rule, doctor says who will ask: the client when it can, else a dialog on
// this desktop, else nobody (and why).
func TestDoctorSaysWhoAsks(t *testing.T) {
	port := startSim(t)
	dir := tempDir(t)
	pol := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(pol, []byte(`{"confirm": ["delete_*"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	was := findDesktop
	t.Cleanup(func() { findDesktop = was })
	for _, c := range []struct {
		name    string
		client  string
		args    []string
		desktop bool
		want    string
	}{
		{"client asks", "claude-code", []string{"--policy", pol}, true, "confirmation: Claude Code asks you itself"},
		{"desktop asks", "claude-desktop", []string{"--policy", pol}, true, "confirmation: Claude Desktop cannot ask, so a dialog on this desktop asks you (zenity)"},
		{"nobody: no desktop", "claude-desktop", []string{"--policy", pol}, false, "confirmation: nobody can ask you, so the calls that need your confirmation are refused (no dialog can be shown here: no display (test))"},
		{"nobody: client only", "gemini", []string{"--policy", pol, "--confirm-with", "client"}, true, "confirmation: nobody can ask you, so the calls that need your confirmation are refused (--confirm-with client leaves the desktop out)"},
		{"desktop first", "claude-code", []string{"--policy", pol, "--confirm-with", "desktop,client"}, true, "confirmation: a dialog on this desktop asks you (zenity)"},
		{"not known", "codebuddy", []string{"--policy", pol}, true, "confirmation: CodeBuddy asks you if it declares elicitation (not known for it); if not, a dialog on this desktop asks you (zenity)"},
		{"no confirm rule", "claude-desktop", nil, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			findDesktop = func(func(string) string) (desktop.Asker, string) {
				if c.desktop {
					return namedDesktop("zenity"), ""
				}
				return nil, "no display (test)"
			}
			_, env, _ := doctorHome(t)
			if _, errs, code := runCLI(t, env, "", append([]string{"install", "--client", c.client, "--port", port}, c.args...)...); code != 0 {
				t.Fatalf("install: %d %s", code, errs)
			}
			out, errs, _ := runCLI(t, env, "", "doctor", "--port", port)
			switch {
			case c.want == "" && strings.Contains(out, "confirmation:"):
				t.Errorf("doctor speaks of confirmation with no confirm rule:\n%s", out)
			case c.want != "" && !strings.Contains(out, c.want):
				t.Errorf("want %q in:\n%s%s", c.want, out, errs)
			}
		})
	}
}

// TestDoctorSaysOneCauseOnce: right after install, with CAD closed, every
// registration reaches the same base, which is down: doctor says so once,
// with what to do, and counts one problem; each registration is then
// reported for itself (its command, its version), and is fine. With the
// base up, no problems. --json says "not checked" of a base it did not
// check, never false.
func TestDoctorSaysOneCauseOnce(t *testing.T) {
	_, env, _ := doctorHome(t)
	down := closedPort(t)
	for _, c := range []string{"claude-desktop", "cursor", "claude-code"} {
		if _, errs, code := runCLI(t, env, "", "install", "--client", c, "--port", down); code != 0 {
			t.Fatalf("install --client %s: %s", c, errs)
		}
	}
	out, errs, code := runCLI(t, env, "", "doctor")
	cause := "FAIL  CAD base at 127.0.0.1:" + down + " refused the connection: is the CAD program running with its MCP base enabled?"
	if code != 1 || strings.Count(out, "FAIL") != 1 || strings.Count(out, "refused the connection") != 1 || !strings.Contains(out, cause) ||
		!strings.Contains(out, "1 problem\n") || !strings.Contains(errs, "doctor found 1 problem") {
		t.Errorf("CAD closed: exit %d, want one FAIL for the one cause:\n%s%s", code, out, errs)
	}
	for _, want := range []string{"mcp-bridge sim --port " + down, "Claude Desktop, Claude Code and Cursor are set to use it", "mcp-bridge help base"} {
		if !strings.Contains(out, want) {
			t.Errorf("CAD closed: the cause does not say %q:\n%s", want, out)
		}
	}
	for _, c := range []string{"Claude Desktop", "Cursor", "Claude Code"} {
		if !regexp.MustCompile(`(?m)^ok    ` + c + ` registers "cad-autocad" in .*: (command exists|mcp-bridge ` + regexp.QuoteMeta(version) + `); its CAD base at 127\.0\.0\.1:` + down + ` \(CAD_MCP_PORT in its env\) is not running \(above\)`).MatchString(out) {
			t.Errorf("CAD closed: %s's registration is not reported as fine, its base down:\n%s", c, out)
		}
	}
	var rep map[string]any
	out, _, _ = runCLI(t, env, "", "doctor", "--json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep["reachable"] != "not checked" || rep["problems"] != 1.0 {
		t.Errorf("--json: reachable %v, problems %v (want \"not checked\", 1):\n%s", rep["reachable"], rep["problems"], out)
	}

	// The base up: all ok.
	up := startSim(t)
	for _, c := range []string{"claude-desktop", "cursor", "claude-code"} {
		if _, errs, code := runCLI(t, env, "", "install", "--client", c, "--port", up); code != 0 {
			t.Fatalf("install --client %s: %s", c, errs)
		}
	}
	out, errs, code = runCLI(t, env, "", "doctor")
	if code != 0 || strings.Contains(out, "FAIL") || !strings.Contains(out, "no problems") {
		t.Errorf("CAD running: exit %d\n%s%s", code, out, errs)
	}
}

// TestDoctorSaysTheWaitToolsName: a base that lists its own wait_for_cad
// keeps that name; doctor says the bridge's tool for long calls takes
// another. A base with a look-alike (Wait_for_cad) or none: not a word.
func TestDoctorSaysTheWaitToolsName(t *testing.T) {
	const said = "the base has a tool named wait_for_cad: it keeps that name, and the bridge's tool for collecting long calls takes another"
	for _, c := range []struct {
		tool string
		says bool
	}{{"wait_for_cad", true}, {"Wait_for_cad", false}, {"wait_for_cad_job", false}} {
		port := fakeBase(t, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"`+c.tool+`","inputSchema":{"type":"object"}}]}}`+"\n")
		_, env, _ := doctorHome(t)
		if _, errs, code := runCLI(t, env, "", "install", "--client", "cursor", "--port", port); code != 0 {
			t.Fatalf("install: %d %s", code, errs)
		}
		out, _, _ := runCLI(t, env, "", "doctor")
		if strings.Contains(out, said) != c.says {
			t.Errorf("a base listing %s: doctor says the wait tool's name %v, want %v:\n%s", c.tool, !c.says, c.says, out)
		}
	}
}
