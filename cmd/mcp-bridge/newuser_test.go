package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/streamable/tlscert"
)

// TestDryRunSaysWhatItWouldDo: --dry-run reports, in the conditional,
// what install and uninstall would do ("would add", "would update",
// "would remove", "would copy"), and leaves every file as it was; the run
// without it reports what it did.
func TestDryRunSaysWhatItWouldDo(t *testing.T) {
	root := tempDir(t)
	t.Chdir(root)
	home := filepath.Join(root, "home")
	local := filepath.Join(home, "Local")
	vars := map[string]string{"HOME": home, "USERPROFILE": home, "APPDATA": filepath.Join(home, "AppData"), "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "LOCALAPPDATA": local}
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(cursor), 0o755)
	os.WriteFile(cursor, []byte("{}\n"), 0o600)
	exe, _ := os.Executable()
	copyTo := filepath.Join(home, ".local", "bin", "mcp-bridge")
	if runtime.GOOS == "windows" {
		copyTo = filepath.Join(local, "Programs", "mcp-bridge", "mcp-bridge.exe")
	}
	steps := []struct {
		args []string
		want string // a whole line of stdout
	}{
		{[]string{"install", "--client", "cursor", "--dry-run"}, `Cursor: would add "cad-autocad" to ` + cursor},
		{[]string{"install", "--client", "all", "--dry-run"}, `would add ("cad-autocad")`},
		{[]string{"install", "--client", "cursor", "--copy", "--dry-run"}, "would copy " + exe + " to " + copyTo},
		{[]string{"install", "--client", "cursor"}, `Cursor: added "cad-autocad" to ` + cursor},
		{[]string{"install", "--client", "cursor", "--port", "9000", "--dry-run"}, `Cursor: would update "cad-autocad" in ` + cursor},
		{[]string{"uninstall", "--client", "cursor", "--dry-run"}, `Cursor: would remove "cad-autocad" from ` + cursor},
		{[]string{"uninstall", "--client", "all", "--dry-run"}, `would remove ("cad-autocad")`},
		{[]string{"uninstall", "--client", "cursor"}, `Cursor: removed "cad-autocad" from ` + cursor},
	}
	for _, s := range steps {
		before, _ := os.ReadFile(cursor)
		out, errs, code := runCLI(t, vars, "", s.args...)
		line := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(s.want) + `$`)
		if strings.HasSuffix(s.want, ")") { // a cell of --client all's table
			line = regexp.MustCompile(`(?m)^Cursor +` + regexp.QuoteMeta(cursor) + ` +` + regexp.QuoteMeta(s.want) + `(; .*)?$`)
		}
		if code != 0 || !line.MatchString(out) || strings.Contains(out, "would be") {
			t.Errorf("%s: exit %d, want the line %q\n%s%s", strings.Join(s.args, " "), code, s.want, out, errs)
		}
		after, _ := os.ReadFile(cursor)
		if dry := strings.Contains(strings.Join(s.args, " "), "--dry-run"); dry && string(before) != string(after) {
			t.Errorf("%s changed %s:\n%s", strings.Join(s.args, " "), cursor, after)
		}
	}
	if _, err := os.Stat(copyTo); err == nil {
		t.Errorf("install --copy --dry-run copied the binary to %s", copyTo)
	}
}

// TestHelpShowsTheCacheFolderAsTyped: --help shows --cache-dir's default
// as the user would type it: a Windows path with single backslashes (as a
// pflag "string", %q doubled each one: "C:\\Users\\…").
func TestHelpShowsTheCacheFolderAsTyped(t *testing.T) {
	help, _, code := runCLI(t, nil, "", "help", "base")
	if want := "(default " + bridge.DefaultCacheDir() + ")"; code != 0 || bridge.DefaultCacheDir() == "" || !strings.Contains(strings.Join(strings.Fields(help), " "), want) {
		t.Errorf("help base: exit %d, lacks %q:\n%s", code, want, help)
	}
	// The Windows form, whatever OS runs the test.
	f := newBridgeFlags(io.Discard)
	f.fs.Lookup("cache-dir").DefValue = `C:\Users\ana\AppData\Local\mcp-bridge`
	usage := usages(f.fs, inTopic("base"), nil)
	if !strings.Contains(usage, `(default C:\Users\ana\AppData\Local\mcp-bridge)`) || strings.Contains(usage, `\\`) {
		t.Errorf("--cache-dir with a Windows default:\n%s", usage)
	}
	// Still a path: given, it is the folder (and --print-config passes it on).
	out, errs, code := runCLI(t, nil, "", "--print-config", "--cache-dir", filepath.Join(tempDir(t), "c"))
	if code != 0 || !strings.Contains(out, `"--cache-dir"`) {
		t.Errorf("--print-config --cache-dir: exit %d\n%s%s", code, out, errs)
	}
}

// TestConsoleGuideFitsAConsole: the guide a double-clicked mcp-bridge.exe
// shows keeps to 80 columns, which a console window breaks mid-word
// beyond; the client list is wrapped between names, every name whole.
func TestConsoleGuideFitsAConsole(t *testing.T) {
	var errb strings.Builder
	e := &env{console: true, getenv: func(string) string { return "" }, stdin: strings.NewReader("\n"), stdout: io.Discard, stderr: &errb}
	if err := run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	// Either system's text, whichever system runs the test.
	for _, text := range []string{consoleText("windows", `C:\Users\ana\Downloads\mcp-bridge\mcp-bridge.exe`), consoleText("linux", "./mcp-bridge")} {
		for _, line := range strings.Split(text, "\n") {
			if n := utf8.RuneCountInString(line); n > 80 {
				t.Errorf("a line of %d characters:\n%s", n, line)
			}
		}
	}
	var list []string
	in := false
	for _, line := range strings.Split(errb.String(), "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("a line of %d characters:\n%s", n, line)
		}
		if strings.Contains(line, "(--client:") {
			in = true
		}
		if in {
			if !strings.HasPrefix(line, "      ") {
				t.Errorf("a line of the client list not indented under its command: %q", line)
			}
			list = append(list, strings.Fields(line)...)
			in = !strings.HasSuffix(line, ")")
		}
	}
	got := strings.TrimSuffix(strings.Join(list, " "), ")")
	if want := "register it with your assistant (--client: " + clientIDs(); got != want {
		t.Errorf("the client list, unwrapped:\n got %s\nwant %s", got, want)
	}
}

// TestPrintConfigOverTLS: --print-config --listen with TLS prints the
// https:// URL the bridge serves (http:// got no answer a client could
// use). With a self-signed certificate, stderr says how to pin it, with
// its fingerprint once the bridge has made it, and where to read it
// before; stdout stays the JSON alone.
func TestPrintConfigOverTLS(t *testing.T) {
	dir := tempDir(t)
	vars := map[string]string{"CAD_MCP_CACHE_DIR": dir}
	printed := func(args ...string) (string, string) {
		t.Helper()
		out, errs, code := runCLI(t, vars, "", append([]string{"--print-config", "--listen", "0.0.0.0:8931"}, args...)...)
		var doc struct {
			MCPServers map[string]struct{ URL string } `json:"mcpServers"`
		}
		if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil {
			t.Fatalf("%s: exit %d, stdout not the JSON alone (%v):\n%s%s", strings.Join(args, " "), code, err, out, errs)
		}
		return doc.MCPServers["cad-autocad"].URL, errs
	}
	const url = "https://127.0.0.1:8931/mcp"
	if got, errs := printed("--client", "cursor"); got != "http://127.0.0.1:8931/mcp" || strings.Contains(errs, "fingerprint") {
		t.Errorf("without TLS: %s\n%s", got, errs)
	}
	if got, errs := printed("--client", "cursor", "--tls-cert", "c.pem", "--tls-key", "k.pem"); got != url || strings.Contains(errs, "self-signed") {
		t.Errorf("--tls-cert: %s\n%s", got, errs)
	}
	// Before the bridge has made its certificate.
	got, errs := printed("--client", "cursor", "--tls-self-signed")
	for _, want := range []string{
		"the certificate is self-signed",
		"  mcp-bridge install --client cursor --url " + url + " --fingerprint sha256:…\n",
		"with this machine's name or address in the URL",
		"the bridge makes the certificate in " + dir + " when it first starts with --tls-self-signed, and logs it; then this command prints it, and mcp-bridge doctor shows it\n",
	} {
		if got != url || !strings.Contains(errs, want) {
			t.Errorf("--tls-self-signed, no certificate yet: %s, stderr lacks %q:\n%s", got, want, errs)
		}
	}
	// Once made (as the bridge makes it), its fingerprint.
	cert, _, err := tlscert.SelfSigned(dir)
	if err != nil {
		t.Fatal(err)
	}
	fp := tlscert.LeafFingerprint(cert)
	for client, want := range map[string]string{
		"cursor":  "  mcp-bridge install --client cursor --url " + url + " --fingerprint " + fp + "\n",
		"generic": "  mcp-bridge connect " + url + " --fingerprint " + fp + "\n",
	} {
		got, errs := printed("--client", client, "--tls-self-signed")
		if _, err := tlscert.ParseFingerprint(fp); got != url || err != nil || !strings.Contains(errs, want) || strings.Contains(errs, "not known yet") {
			t.Errorf("--client %s --tls-self-signed: %s, stderr lacks %q:\n%s", client, got, want, errs)
		}
	}
}
