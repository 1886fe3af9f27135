package verify

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// startTLSBridge runs the bridge binary serving HTTPS with a self-signed
// certificate and a token, and returns its URL, the fingerprint it logged
// and its log.
func startTLSBridge(t *testing.T) (url, fingerprint string, stderr *LockedBuffer) {
	t.Helper()
	dir := testdir.New(t)
	tok := filepath.Join(dir, "token")
	if err := os.WriteFile(tok, []byte("s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url, stderr = startHTTPBridge(t, goSDKSimPort(t), "--tls-self-signed", "--cache-dir", dir, "--token-file", tok)
	if !strings.HasPrefix(url, "https://") {
		t.Fatalf("url %q: want https://", url)
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		var l struct{ Fingerprint string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Fingerprint != "" {
			fingerprint = l.Fingerprint
		}
	}
	if !strings.HasPrefix(fingerprint, "sha256:") || len(fingerprint) != len("sha256:")+64 {
		t.Fatalf("no fingerprint logged:\n%s", stderr.String())
	}
	return url, fingerprint, stderr
}

// TestConnectGoSDK: the Go SDK client over stdio → mcp-bridge connect →
// HTTPS bridge (self-signed, pinned, token) → simulated base, in both
// eras. When the legacy client closes, connect ends its remote session
// with DELETE.
func TestConnectGoSDK(t *testing.T) {
	url, fp, remoteLog := startTLSBridge(t)
	forGoSDKEras(t, func(t *testing.T, ctx context.Context, version, name string) {
		client := newGoSDKClient("gosdk-connect")
		cmd := exec.Command(bridgeBin, "connect", url, "--fingerprint", fp, "--log-level", "debug", "--log-format", "json")
		cmd.Env = append(os.Environ(), "CAD_MCP_TOKEN=s3cret-token")
		var stderr LockedBuffer
		cmd.Stderr = &stderr
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, stderr.String())
		}
		wantVersion := version
		if wantVersion == "" {
			wantVersion = "2026-07-28"
		}
		if init := cs.InitializeResult(); init == nil || init.ProtocolVersion != wantVersion {
			t.Fatalf("negotiated %+v, want %q", init, wantVersion)
		}
		checkGoSDKTools(ctx, t, cs)
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v\n%s", err, stderr.String())
		}
		if version != "" && !logShows(remoteLog, `"why":"DELETE"`) {
			t.Errorf("connect exited without ending its remote session; remote log:\n%s\nconnect's log:\n%s", remoteLog.String(), stderr.String())
		}
	})
	if !listenOpened(remoteLog.String()) {
		t.Errorf("the modern client's subscriptions/listen did not reach the remote; remote log:\n%s", remoteLog.String())
	}
}

// logShows waits for s in the log of a child process. The child wrote it
// before it answered what the test waited for, but the pipe's bytes reach
// the buffer on a goroutine of os/exec's, maybe a moment after: checking
// at once failed now and then.
func logShows(log *LockedBuffer, s string) bool {
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(log.String(), s) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// TestConnectRefusals: what a client sees when connect cannot talk to the
// remote: each mistake named, with what to do.
func TestConnectRefusals(t *testing.T) {
	url, fp, _ := startTLSBridge(t)
	wrongFP := "sha256:" + strings.Repeat("ab", 32)
	cases := []struct {
		name string
		args []string
		env  string
		want []string
	}{
		{"wrong token", []string{url, "--fingerprint", fp}, "CAD_MCP_TOKEN=wrong", []string{"refused the token", "401", "check CAD_MCP_TOKEN against"}},
		{"wrong fingerprint", []string{url, "--fingerprint", wrongFP}, "CAD_MCP_TOKEN=s3cret-token", []string{fp, wrongFP, "refusing to connect"}},
		// Without a pin: with one, a plain http:// URL is refused at start
		// (cmd's TestConnectUsage).
		{"plain http against TLS", []string{"http://" + strings.TrimPrefix(url, "https://")}, "CAD_MCP_TOKEN=s3cret-token", []string{"speaks HTTPS", "https://"}},
		{"self-signed, not pinned", []string{url}, "CAD_MCP_TOKEN=s3cret-token", []string{"--fingerprint", "--ca"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, line, err := startConnect(t, c.args, Options{Env: []string{c.env}})
			if err != nil {
				t.Fatalf("no answer: %v\n%s", err, b.Stderr())
			}
			if code := Get(line, "error.code"); code != float64(-32603) {
				t.Fatalf("answer %s: want -32603", line)
			}
			msg, _ := Get(line, "error.message").(string)
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			// connect keeps serving: a ping is still answered.
			if err := b.Send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); err != nil {
				t.Fatal(err)
			}
			if line, err := b.Recv(30 * time.Second); err != nil || Get(line, "id") != float64(2) {
				t.Errorf("ping after the refusal: %q, %v", line, err)
			}
		})
	}
}

// runInHome runs the bridge binary with home as its home and working
// folder (the clients' files go there), PATH and the extra variables
// only; its output and exit code.
func runInHome(home string, extra []string, args ...string) (string, int) {
	cmd := exec.Command(bridgeBin, args...)
	cmd.Env = append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "APPDATA=" + filepath.Join(home, ".config"), "USERPROFILE=" + home, "PATH=" + os.Getenv("PATH")}, extra...)
	cmd.Dir = home
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return string(out), code
}

// TestInstallURL: install --url registers `mcp-bridge connect URL` with
// the token file and the fingerprint (never the token itself), and doctor
// checks that registration end to end: the tools through the remote, or
// the remote's refusal.
func TestInstallURL(t *testing.T) {
	url, fp, _ := startTLSBridge(t)
	home := testdir.New(t)
	tok := filepath.Join(home, "token")
	if err := os.WriteFile(tok, []byte("s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, int) { return runInHome(home, nil, args...) }
	if out, code := run("install", "--client", "cursor", "--url", url, "--fingerprint", fp, "--token-file", tok); code != 0 {
		t.Fatalf("install --url: %d\n%s", code, out)
	}
	raw, err := os.ReadFile(filepath.Join(home, ".cursor", "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	quotedTok, _ := json.Marshal(tok) // a Windows path's backslashes doubled, as the file holds it
	for _, want := range []string{`"connect"`, url, fp, string(quotedTok)} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the entry lacks %s:\n%s", want, raw)
		}
	}
	if strings.Contains(string(raw), "s3cret-token") {
		t.Errorf("the token itself is in the client's file:\n%s", raw)
	}
	out, code := run("doctor", "--timeout", "20s")
	if code != 0 || !strings.Contains(out, "the remote bridge at "+url+" answers through connect: 26 tools") || !strings.Contains(out, "; token: --token-file "+tok+" in its args") {
		t.Errorf("doctor with the connect registration: exit %d\n%s", code, out)
	}
	// Another machine's token in CAD_MCP_TOKEN, where the client starts
	// (README: URL-form clients read it): the entry's --token-file wins.
	out, code = runInHome(home, []string{"CAD_MCP_TOKEN=another-machines-token"}, "doctor", "--timeout", "20s")
	if code != 0 || !strings.Contains(out, "answers through connect: 26 tools") || !strings.Contains(out, "; token: --token-file "+tok+" in its args") {
		t.Errorf("doctor with the connect registration and CAD_MCP_TOKEN set: exit %d\n%s", code, out)
	}
	if err := os.WriteFile(tok, []byte("wrong\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code = run("doctor", "--timeout", "20s")
	if code != 1 || !strings.Contains(out, `FAIL  Cursor registers "cad-autocad"`) || !strings.Contains(out, "refused the token (401 Unauthorized): check --token-file "+tok+" against") {
		t.Errorf("doctor with a wrong token: exit %d\n%s", code, out)
	}
}

// TestInstallURLForm: install --url writes the client's own URL entry,
// which sends the token from CAD_MCP_TOKEN (a header naming it, or for
// Codex the variable's name); doctor recognises each form as ours and
// checks that the URL answers with the token it reads there, and says
// which variable is missing when it cannot.
func TestInstallURLForm(t *testing.T) {
	for _, tt := range []struct{ client, name, file, want string }{
		{"claude-code", "Claude Code", ".claude.json", `"Authorization": "Bearer ${CAD_MCP_TOKEN}"`},
		{"windsurf", "Windsurf", ".codeium/windsurf/mcp_config.json", `"Authorization": "Bearer ${env:CAD_MCP_TOKEN}"`},
		{"codex", "Codex CLI", ".codex/config.toml", `bearer_token_env_var = "CAD_MCP_TOKEN"`},
		{"copilot-cli", "GitHub Copilot CLI", ".copilot/mcp-config.json", `"Authorization": "Bearer ${CAD_MCP_TOKEN}"`},
		{"opencode", "OpenCode", ".config/opencode/opencode.json", `"Authorization": "Bearer {env:CAD_MCP_TOKEN}"`},
	} {
		t.Run(tt.client, func(t *testing.T) {
			home := testdir.New(t)
			tok := filepath.Join(home, "token")
			if err := os.WriteFile(tok, []byte("s3cret-token\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			url, _ := startHTTPBridge(t, goSDKSimPort(t), "--token-file", tok)
			run := func(extra []string, args ...string) (string, int) { return runInHome(home, extra, args...) }
			if out, code := run(nil, "install", "--client", tt.client, "--url", url, "--token-file", tok); code != 0 {
				t.Fatalf("install --url: %d\n%s", code, out)
			}
			raw, err := os.ReadFile(filepath.Join(home, filepath.FromSlash(tt.file)))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(raw), url) || !strings.Contains(string(raw), tt.want) || strings.Contains(string(raw), "s3cret-token") || strings.Contains(string(raw), "connect") {
				t.Errorf("not %s's URL entry with the token's variable:\n%s", tt.name, raw)
			}
			out, code := run([]string{"CAD_MCP_TOKEN=s3cret-token"}, "doctor", "--timeout", "20s")
			if code != 0 || !strings.Contains(out, "ok    "+tt.name+` registers "cad-autocad" in `) || !strings.Contains(out, "URL entry; the bridge at "+url+" answers: 26 tools") {
				t.Errorf("doctor with the token: exit %d\n%s", code, out)
			}
			// CAD_MCP_TOKEN_FILE is connect's setting, not the client's:
			// without CAD_MCP_TOKEN the client sends no token.
			out, code = run([]string{"CAD_MCP_TOKEN_FILE=" + tok}, "doctor", "--timeout", "20s")
			if code != 1 || !strings.Contains(out, "FAIL  "+tt.name+` registers "cad-autocad"`) || !strings.Contains(out, "CAD_MCP_TOKEN, which is not set here") {
				t.Errorf("doctor without the token: exit %d\n%s", code, out)
			}
			out, code = run([]string{"CAD_MCP_TOKEN=wrong"}, "doctor", "--timeout", "20s")
			if code != 1 || !strings.Contains(out, "FAIL  "+tt.name+` registers "cad-autocad"`) || !strings.Contains(out, "refused the token") {
				t.Errorf("doctor with a wrong token: exit %d\n%s", code, out)
			}
			if out, code := run(nil, "uninstall", "--client", tt.client); code != 0 || !strings.Contains(out, "removed") {
				t.Fatalf("uninstall: %d\n%s", code, out)
			}
			if out, _ := run([]string{"CAD_MCP_TOKEN=s3cret-token"}, "doctor", "--timeout", "20s"); strings.Contains(out, `registers "cad-autocad"`) {
				t.Errorf("doctor still finds the entry after uninstall:\n%s", out)
			}
		})
	}
}

// startConnect starts `mcp-bridge connect ARGS…`, closed when the test
// ends, and returns it with its answer to a 2025-06-18 initialize (id 0) ("" and
// the error when none came).
func startConnect(t *testing.T, args []string, opt Options) (*Bridge, string, error) {
	t.Helper()
	b, err := Start(bridgeBin, append([]string{"connect"}, args...), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if err := b.Send(Initialize("0", "2025-06-18")); err != nil {
		t.Fatal(err)
	}
	line, err := b.Recv(30 * time.Second)
	return b, line, err
}
