package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge/streamable/tlscert"
)

// startInProcess starts the bridge in-process with args and vars and
// waits until it either logs that it serves HTTP (that line is returned:
// url, token_from, …; the bridge stops when the test ends) or exits (its
// error is returned).
func startInProcess(t *testing.T, vars map[string]string, args ...string) (map[string]any, error) {
	t.Helper()
	line, _, err := startInProcessLogs(t, vars, args...)
	return line, err
}

// startInProcessLogs is startInProcess that also returns what the bridge
// wrote to stderr before it served.
func startInProcessLogs(t *testing.T, vars map[string]string, args ...string) (map[string]any, string, error) {
	t.Helper()
	// In-process: the bridge must not set this test process's GOMAXPROCS
	// and memory limit.
	all := map[string]string{"GOMAXPROCS": "2", "GOMEMLIMIT": "off"}
	for k, v := range vars {
		all[k] = v
	}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{args: append(args, "--log-format", "json"), getenv: func(k string) string { return all[k] }, stdin: strings.NewReader(""), stdout: io.Discard, stderr: pw}
	done := make(chan struct{})
	var err error
	go func() {
		err = run(ctx, e)
		pw.Close()
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	var seen strings.Builder
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil && line["message"] == "mcp-bridge serving Streamable HTTP" {
			go io.Copy(io.Discard, pr)
			return line, seen.String(), nil
		}
	}
	<-done
	if err == nil {
		err = fmt.Errorf("the bridge ended without serving:\n%s", seen.String())
	}
	return nil, seen.String(), err
}

// serveInProcess is startInProcess for a bridge that must serve.
func serveInProcess(t *testing.T, vars map[string]string, args ...string) map[string]any {
	t.Helper()
	line, err := startInProcess(t, vars, args...)
	if err != nil {
		t.Fatalf("the bridge did not serve: %v", err)
	}
	return line
}

// refusedInProcess: the bridge refuses to start, with a message holding
// want.
func refusedInProcess(t *testing.T, want string, vars map[string]string, args ...string) {
	t.Helper()
	line, err := startInProcess(t, vars, args...)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%v %v: served %v, error %v; want refused with %q", vars, args, line, err, want)
	}
}

// post sends an initialize to url with the Authorization header auth (""
// for none) and returns the status.
func post(t *testing.T, url, auth string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestServeTokenCommandLineWins: the token the serving bridge requires is
// --token-file's when the command line gives it, whatever CAD_MCP_TOKEN
// or CAD_MCP_TOKEN_FILE say; else CAD_MCP_TOKEN's, else
// CAD_MCP_TOKEN_FILE's; else none. It was CAD_MCP_TOKEN's, silently.
func TestServeTokenCommandLineWins(t *testing.T) {
	dir := tempDir(t)
	right := writeFile(t, dir, "right", "right-token\n")
	other := writeFile(t, dir, "other", "other-token\n")
	port := startSim(t)
	for _, tt := range []struct {
		name       string
		vars       map[string]string
		args       []string
		accepted   string // the Authorization header let in ("": none needed)
		refused    string
		wantSource string
	}{
		{"flag over CAD_MCP_TOKEN", map[string]string{"CAD_MCP_TOKEN": "other-token"}, []string{"--token-file", right}, "Bearer right-token", "Bearer other-token", "--token-file " + right},
		{"flag over CAD_MCP_TOKEN_FILE", map[string]string{"CAD_MCP_TOKEN_FILE": other}, []string{"--token-file", right}, "Bearer right-token", "Bearer other-token", "--token-file " + right},
		{"CAD_MCP_TOKEN alone", map[string]string{"CAD_MCP_TOKEN": "right-token"}, nil, "Bearer right-token", "Bearer other-token", "CAD_MCP_TOKEN"},
		{"CAD_MCP_TOKEN_FILE alone", map[string]string{"CAD_MCP_TOKEN_FILE": right}, nil, "Bearer right-token", "Bearer other-token", "CAD_MCP_TOKEN_FILE " + right},
		{"CAD_MCP_TOKEN over CAD_MCP_TOKEN_FILE", map[string]string{"CAD_MCP_TOKEN": "right-token", "CAD_MCP_TOKEN_FILE": other}, nil, "Bearer right-token", "Bearer other-token", "CAD_MCP_TOKEN"},
		{"an empty --token-file: no token, whatever the environment", map[string]string{"CAD_MCP_TOKEN": "other-token"}, []string{"--token-file", ""}, "", "", ""},
		{"default: no token", nil, nil, "", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			line := serveInProcess(t, tt.vars, append([]string{"--listen", "127.0.0.1:0", "--port", port, "--no-cache"}, tt.args...)...)
			url, _ := line["url"].(string)
			if got := post(t, url, tt.accepted); got != 200 {
				t.Errorf("%q: status %d, want 200", tt.accepted, got)
			}
			if tt.refused != "" {
				if got := post(t, url, tt.refused); got != 401 {
					t.Errorf("%q: status %d, want 401", tt.refused, got)
				}
			} else if got := post(t, url, "Bearer other-token"); got != 200 {
				t.Errorf("served without a token, a request with one: status %d", got)
			}
			if got, _ := line["token_from"].(string); got != tt.wantSource {
				t.Errorf("the log says the token is from %q, want %q", got, tt.wantSource)
			}
			if raw, _ := json.Marshal(line); strings.Contains(string(raw), "right-token") || strings.Contains(string(raw), "other-token") {
				t.Errorf("the log line carries the token: %s", raw)
			}
		})
	}
}

// TestConnectTokenCommandLineWins: connect sends --token-file's token when
// the command line gives it (it sent CAD_MCP_TOKEN's, so an entry for a
// second machine sent the first machine's token there), and a refused
// token's message names where the token came from.
func TestConnectTokenCommandLineWins(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer right-token" {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer srv.Close()
	dir := tempDir(t)
	right := writeFile(t, dir, "right", "right-token\n")
	other := writeFile(t, dir, "other", "other-token\n")
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}` + "\n"
	for _, tt := range []struct {
		name     string
		vars     map[string]string
		args     []string
		sent     string   // the Authorization the remote got
		message  []string // in the refusal ("": the ping is answered)
		notInMsg string
	}{
		{"flag over CAD_MCP_TOKEN", map[string]string{"CAD_MCP_TOKEN": "other-token"}, []string{"--token-file", right}, "Bearer right-token", nil, ""},
		{"flag over CAD_MCP_TOKEN_FILE", map[string]string{"CAD_MCP_TOKEN_FILE": other}, []string{"--token-file", right}, "Bearer right-token", nil, ""},
		{"CAD_MCP_TOKEN alone", map[string]string{"CAD_MCP_TOKEN": "right-token"}, nil, "Bearer right-token", nil, ""},
		{"CAD_MCP_TOKEN_FILE alone", map[string]string{"CAD_MCP_TOKEN_FILE": right}, nil, "Bearer right-token", nil, ""},
		{"CAD_MCP_TOKEN over CAD_MCP_TOKEN_FILE", map[string]string{"CAD_MCP_TOKEN": "right-token", "CAD_MCP_TOKEN_FILE": other}, nil, "Bearer right-token", nil, ""},
		{"wrong CAD_MCP_TOKEN is named", map[string]string{"CAD_MCP_TOKEN": "other-token"}, nil, "Bearer other-token", []string{"refused the token", "check CAD_MCP_TOKEN against"}, "--token-file"},
		{"wrong --token-file is named", map[string]string{"CAD_MCP_TOKEN": "right-token"}, []string{"--token-file", other}, "Bearer other-token", []string{"refused the token", "check --token-file " + other + " against"}, "CAD_MCP_TOKEN"},
		{"wrong CAD_MCP_TOKEN_FILE is named", map[string]string{"CAD_MCP_TOKEN_FILE": other}, nil, "Bearer other-token", []string{"refused the token", "check CAD_MCP_TOKEN_FILE " + other + " against"}, "--token-file"},
		{"an empty --token-file sends none", map[string]string{"CAD_MCP_TOKEN": "right-token"}, []string{"--token-file", ""}, "", []string{"none was sent", "--token-file FILE"}, "refused the token"},
		{"default: none", nil, nil, "", []string{"none was sent"}, "refused the token"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			got = nil
			mu.Unlock()
			out, errs, code := runCLI(t, tt.vars, ping, append([]string{"connect", srv.URL + "/mcp"}, tt.args...)...)
			mu.Lock()
			defer mu.Unlock()
			if code != 0 || len(got) == 0 || got[0] != tt.sent {
				t.Fatalf("exit %d, Authorization %q, want %q\n%s", code, got, tt.sent, errs)
			}
			var ans struct {
				Result json.RawMessage
				Error  struct{ Message string }
			}
			if err := json.Unmarshal([]byte(out), &ans); err != nil {
				t.Fatalf("stdout %q: %v", out, err)
			}
			if tt.message == nil {
				if ans.Result == nil {
					t.Errorf("the ping was refused: %s", out)
				}
				return
			}
			for _, w := range tt.message {
				if !strings.Contains(ans.Error.Message, w) {
					t.Errorf("message %q lacks %q", ans.Error.Message, w)
				}
			}
			if strings.Contains(ans.Error.Message, tt.notInMsg) || strings.Contains(ans.Error.Message, "right-token") || strings.Contains(ans.Error.Message, "other-token") {
				t.Errorf("message %q names %q, which was not used", ans.Error.Message, tt.notInMsg)
			}
		})
	}
}

// TestConnectPinCommandLineWins: --fingerprint and --ca are one choice,
// how connect trusts the remote's certificate: either on the command line
// decides it there, and neither's variable is read. Before, connect --ca
// with an old CAD_MCP_FINGERPRINT in the environment checked that pin,
// which nobody gave, and refused the server the CA trusts. Each source
// alone still counts.
func TestConnectPinCommandLineWins(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer srv.Close()
	dir := tempDir(t)
	der := srv.Certificate().Raw
	ca := writeFile(t, dir, "ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	other, _, err := tlscert.SelfSigned(dir)
	if err != nil {
		t.Fatal(err)
	}
	otherLeaf, _ := tlscert.Leaf(other)
	otherCA := writeFile(t, dir, "other-ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: otherLeaf.Raw})))
	pin, wrongPin := tlscert.Fingerprint(der), tlscert.LeafFingerprint(other)
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}` + "\n"
	for _, tt := range []struct {
		name string
		vars map[string]string
		args []string
		ok   bool
	}{
		{"--ca over CAD_MCP_FINGERPRINT", map[string]string{"CAD_MCP_FINGERPRINT": wrongPin}, []string{"--ca", ca}, true},
		{"--fingerprint over CAD_MCP_CA", map[string]string{"CAD_MCP_CA": otherCA}, []string{"--fingerprint", pin}, true},
		{"CAD_MCP_CA alone", map[string]string{"CAD_MCP_CA": ca}, nil, true},
		{"CAD_MCP_FINGERPRINT alone", map[string]string{"CAD_MCP_FINGERPRINT": pin}, nil, true},
		{"a wrong CAD_MCP_FINGERPRINT alone", map[string]string{"CAD_MCP_FINGERPRINT": wrongPin}, nil, false},
		{"--ca that does not trust it, CAD_MCP_FINGERPRINT that would", map[string]string{"CAD_MCP_FINGERPRINT": pin}, []string{"--ca", otherCA}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := runCLI(t, tt.vars, ping, append([]string{"connect", srv.URL + "/mcp"}, tt.args...)...)
			answered := code == 0 && strings.Contains(out, `"result":{}`)
			if answered != tt.ok {
				t.Errorf("exit %d, answered %v, want %v\n%s%s", code, answered, tt.ok, out, errs)
			}
		})
	}
}

// TestServeTLSCommandLineWins: the command line's choice of certificate
// decides it whole: --tls-self-signed there is served even with
// CAD_MCP_TLS_CERT/KEY in the environment, and --tls-cert/--tls-key even
// with CAD_MCP_TLS_SELF_SIGNED (both were refused as "not both"); a
// --tls-cert is never paired with CAD_MCP_TLS_KEY, another certificate's
// key perhaps.
func TestServeTLSCommandLineWins(t *testing.T) {
	certDir, cacheDir := tempDir(t), tempDir(t)
	if _, _, err := tlscert.SelfSigned(certDir); err != nil {
		t.Fatal(err)
	}
	cert, key := filepath.Join(certDir, tlscert.CertFile), filepath.Join(certDir, tlscert.KeyFile)
	port := startSim(t)
	base := []string{"--listen", "127.0.0.1:0", "--port", port, "--cache-dir", cacheDir}
	envPair := map[string]string{"CAD_MCP_TLS_CERT": cert, "CAD_MCP_TLS_KEY": key}
	for _, tt := range []struct {
		name string
		vars map[string]string
		args []string
		want string // "self-signed", "cert" or "http"
	}{
		{"--tls-self-signed over CAD_MCP_TLS_CERT/KEY", envPair, []string{"--tls-self-signed"}, "self-signed"},
		{"--tls-cert/--tls-key over CAD_MCP_TLS_SELF_SIGNED", map[string]string{"CAD_MCP_TLS_SELF_SIGNED": "true"}, []string{"--tls-cert", cert, "--tls-key", key}, "cert"},
		{"CAD_MCP_TLS_CERT/KEY alone", envPair, nil, "cert"},
		{"CAD_MCP_TLS_SELF_SIGNED alone", map[string]string{"CAD_MCP_TLS_SELF_SIGNED": "true"}, nil, "self-signed"},
		{"default: plain http", nil, nil, "http"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			line := serveInProcess(t, tt.vars, append(base, tt.args...)...)
			url, _ := line["url"].(string)
			if tt.want == "http" {
				if !strings.HasPrefix(url, "http://") || post(t, url, "") != 200 {
					t.Errorf("url %q, want plain http:// answering", url)
				}
				return
			}
			if !strings.HasPrefix(url, "https://") {
				t.Fatalf("url %q, want https://", url)
			}
			conn, err := tls.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "https://"), "/mcp"), &tls.Config{InsecureSkipVerify: true})
			if err != nil {
				t.Fatal(err)
			}
			got := tlscert.Fingerprint(conn.ConnectionState().PeerCertificates[0].Raw)
			conn.Close()
			want := map[string]string{"self-signed": tlscert.Existing(cacheDir), "cert": tlscert.Existing(certDir)}[tt.want]
			if got != want || want == "" {
				t.Errorf("served %s, want the %s certificate %s", got, tt.want, want)
			}
		})
	}
	// The key is not taken from the environment for the command line's
	// certificate.
	refusedInProcess(t, "--tls-cert and --tls-key go together", map[string]string{"CAD_MCP_TLS_KEY": key}, append(base, "--tls-cert", cert)...)
	refusedInProcess(t, "CAD_MCP_TLS_CERT and --tls-key go together", map[string]string{"CAD_MCP_TLS_CERT": cert}, base...)
}

// toolsThroughBridge runs the stdio bridge with vars and args and returns
// the tool names its tools/list answer holds.
func toolsThroughBridge(t *testing.T, vars map[string]string, args ...string) []string {
	t.Helper()
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"
	all := map[string]string{"GOMAXPROCS": "2", "GOMEMLIMIT": "off"}
	for k, v := range vars {
		all[k] = v
	}
	out, errs, code := runCLI(t, all, in, append([]string{"--no-cache", "--log-level", "error"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, line := range strings.Split(out, "\n") {
		var ans struct {
			ID     int
			Result struct{ Tools []struct{ Name string } }
		}
		if json.Unmarshal([]byte(line), &ans) == nil && ans.ID == 2 {
			var names []string
			for _, tool := range ans.Result.Tools {
				names = append(names, tool.Name)
			}
			return names
		}
	}
	t.Fatalf("no tools/list answer: %s\n%s", out, errs)
	return nil
}

// TestPolicyCommandLineWins: --policy is the policy in force, not
// CAD_MCP_POLICY's; that one alone is; a policy file that cannot be read
// is named by the setting that gave it.
func TestPolicyCommandLineWins(t *testing.T) {
	dir := tempDir(t)
	denyLine := writeFile(t, dir, "deny-line.json", `{"deny": ["draw_line"]}`)
	denyCircle := writeFile(t, dir, "deny-circle.json", `{"deny": ["draw_circle"]}`)
	port := startSim(t)
	for _, tt := range []struct {
		name       string
		vars       map[string]string
		args       []string
		gone, kept string
	}{
		{"flag over CAD_MCP_POLICY", map[string]string{"CAD_MCP_POLICY": denyCircle}, []string{"--policy", denyLine}, "draw_line", "draw_circle"},
		{"CAD_MCP_POLICY alone", map[string]string{"CAD_MCP_POLICY": denyCircle}, nil, "draw_circle", "draw_line"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			names := toolsThroughBridge(t, tt.vars, append([]string{"--port", port}, tt.args...)...)
			if slices.Contains(names, tt.gone) || !slices.Contains(names, tt.kept) {
				t.Errorf("tools %v: want %s denied and %s listed", names, tt.gone, tt.kept)
			}
		})
	}
	if names := toolsThroughBridge(t, nil, "--port", port); !slices.Contains(names, "draw_line") || !slices.Contains(names, "draw_circle") {
		t.Errorf("default, no policy: tools %v", names)
	}
	missing := filepath.Join(dir, "missing.json")
	for _, tt := range []struct {
		vars map[string]string
		args []string
		want string
	}{
		{map[string]string{"CAD_MCP_POLICY": missing}, nil, "CAD_MCP_POLICY: open " + missing},
		{map[string]string{"CAD_MCP_POLICY": denyLine}, []string{"--policy", missing}, "--policy: open " + missing},
	} {
		if _, errs, code := runCLI(t, tt.vars, "", tt.args...); code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v %v: exit %d, %s; want %q", tt.vars, tt.args, code, errs, tt.want)
		}
	}
}

// TestPortCommandLineWins: --port is the base reached, not CAD_MCP_PORT's;
// that one alone is; a bad port or --listen is named by the setting that
// gave it.
func TestPortCommandLineWins(t *testing.T) {
	up, down := startSim(t), closedPort(t)
	if names := toolsThroughBridge(t, map[string]string{"CAD_MCP_PORT": down}, "--port", up); len(names) != 40 {
		t.Errorf("--port %s over CAD_MCP_PORT=%s: %d tools, want the 40 of the base at --port", up, down, len(names))
	}
	if names := toolsThroughBridge(t, map[string]string{"CAD_MCP_PORT": up}); len(names) != 40 {
		t.Errorf("CAD_MCP_PORT=%s alone: %d tools", up, len(names))
	}
	for _, tt := range []struct {
		vars map[string]string
		args []string
		want string
	}{
		{map[string]string{"CAD_MCP_PORT": "0"}, nil, "CAD_MCP_PORT 0: must be 1-65535"},
		{map[string]string{"CAD_MCP_PORT": "0"}, []string{"--port", "65536"}, "--port 65536: must be 1-65535"},
		{map[string]string{"CAD_MCP_PORT": up, "CAD_MCP_LISTEN": "8931"}, nil, `CAD_MCP_LISTEN "8931": want HOST:PORT`},
		{map[string]string{"CAD_MCP_PORT": up, "CAD_MCP_LISTEN": "127.0.0.1:0"}, []string{"--listen", "8931"}, `--listen "8931": want HOST:PORT`},
	} {
		refusedInProcess(t, tt.want, tt.vars, tt.args...)
	}
	// --listen on the command line over CAD_MCP_LISTEN's address.
	line := serveInProcess(t, map[string]string{"CAD_MCP_PORT": up, "CAD_MCP_LISTEN": "127.0.0.1:1"}, "--listen", "127.0.0.1:0", "--no-cache")
	if url, _ := line["url"].(string); strings.Contains(url, "127.0.0.1:1/") || post(t, url, "") != 200 {
		t.Errorf("served at %q, want --listen's address", url)
	}
}

// TestDoctorSaysWhereSettingsCameFrom: doctor reports, for its own
// settings, the command line's or the environment's, never guessing.
func TestDoctorSaysWhereSettingsCameFrom(t *testing.T) {
	up, down := startSim(t), closedPort(t)
	_, env, _ := doctorHome(t)
	dir := tempDir(t)
	pol := writeFile(t, dir, "p.json", `{"deny": ["draw_line"]}`)
	env["CAD_MCP_PORT"], env["CAD_MCP_POLICY"], env["CAD_MCP_DENY_TOOLS"] = down, writeFile(t, dir, "q.json", `{}`), "save_*"
	out, errs, code := runCLI(t, env, "", "doctor", "--port", up, "--policy", pol, "--json")
	var rep struct {
		Settings []struct{ Name, Value, From string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json: exit %d, %v\n%s\n%s", code, err, out, errs)
	}
	want := map[string][2]string{"host": {"127.0.0.1", "default"}, "port": {up, "--port"}, "policy": {pol, "--policy"}, "deny-tools": {"save_*", "CAD_MCP_DENY_TOOLS"}, "read-only": {"false", "default"}}
	for _, s := range rep.Settings {
		if w, ok := want[s.Name]; ok && (w[0] != s.Value || w[1] != s.From) {
			t.Errorf("%s: %s from %s, want %s from %s", s.Name, s.Value, s.From, w[0], w[1])
		}
		delete(want, s.Name)
	}
	if len(want) > 0 {
		t.Errorf("doctor --json lacks %v: %s", want, out)
	}
	out, _, _ = runCLI(t, env, "", "doctor", "--port", up, "--policy", pol)
	if !strings.Contains(out, "info  settings: port "+up+" from --port, policy "+pol+" from --policy, deny-tools save_* from CAD_MCP_DENY_TOOLS; the others are defaults\n") {
		t.Errorf("doctor's text does not say where its settings came from:\n%s", out)
	}
	delete(env, "CAD_MCP_PORT")
	delete(env, "CAD_MCP_POLICY")
	delete(env, "CAD_MCP_DENY_TOOLS")
	env["CAD_MCP_HOST"] = "127.0.0.1"
	out, _, _ = runCLI(t, env, "", "doctor", "--port", up)
	if !strings.Contains(out, "info  settings: host 127.0.0.1 from CAD_MCP_HOST, port "+up+" from --port; the others are defaults\n") {
		t.Errorf("doctor with CAD_MCP_HOST:\n%s", out)
	}
}

// TestDoctorShowsClientLimits: doctor shows --answer-within and
// --max-result-bytes, from the command line, the environment, or not set
// (each client's own limit), and refuses a value the bridge would.
func TestDoctorShowsClientLimits(t *testing.T) {
	up := startSim(t)
	_, env, _ := doctorHome(t)
	env["CAD_MCP_MAX_RESULT_BYTES"] = "200000"
	out, errs, code := runCLI(t, env, "", "doctor", "--port", up, "--answer-within", "90s", "--json")
	var rep struct {
		Settings []struct{ Name, Value, From string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json: exit %d, %v\n%s\n%s", code, err, out, errs)
	}
	want := map[string][2]string{"answer-within": {"1m30s", "--answer-within"}, "max-result-bytes": {"200000", "CAD_MCP_MAX_RESULT_BYTES"}}
	for _, s := range rep.Settings {
		if w, ok := want[s.Name]; ok {
			if w[0] != s.Value || w[1] != s.From {
				t.Errorf("%s: %s from %s, want %s from %s", s.Name, s.Value, s.From, w[0], w[1])
			}
			delete(want, s.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("doctor --json lacks %v: %s", want, out)
	}
	delete(env, "CAD_MCP_MAX_RESULT_BYTES")
	out, _, _ = runCLI(t, env, "", "doctor", "--port", up, "--json")
	if !strings.Contains(out, `"name": "max-result-bytes",
      "value": "each client's own",
      "from": "default"`) {
		t.Errorf("doctor does not say --max-result-bytes is each client's own:\n%s", out)
	}
	env["CAD_MCP_MAX_RESULT_BYTES"] = "1023"
	if _, errs, code := runCLI(t, env, "", "doctor", "--port", up); code != 2 || !strings.Contains(errs, "--max-result-bytes 1023: want 0 (no limit) or at least 1024") {
		t.Errorf("doctor with CAD_MCP_MAX_RESULT_BYTES=1023: exit %d, %s", code, errs)
	}
}

// TestListenMakesAMissingTokenFile: --listen with a --token-file that does
// not exist (the README's first HTTP example) makes it, with a new random
// token only this user may read, and says so once, never the token; the
// bridge then requires that token. Started again, it reads the same file,
// and says nothing of it. A token from CAD_MCP_TOKEN makes no file.
func TestListenMakesAMissingTokenFile(t *testing.T) {
	port := startSim(t)
	dir := tempDir(t)
	file := filepath.Join(dir, "cad-token")
	line, logs, err := startInProcessLogs(t, nil, "--listen", "127.0.0.1:0", "--port", port, "--no-cache", "--token-file", file)
	if err != nil {
		t.Fatal(err)
	}
	b, rerr := os.ReadFile(file)
	tok := strings.TrimSpace(string(b))
	if rerr != nil || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(tok) {
		t.Fatalf("the token file: %q, %v", b, rerr)
	}
	if st, _ := os.Stat(file); runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("the token file's mode is %v, want 0600", st.Mode().Perm())
	}
	inLog, _ := json.Marshal(file) // as the JSON log writes it (a Windows path's backslashes doubled)
	if n := strings.Count(logs, "made a new token"); n != 1 || !strings.Contains(logs, string(inLog)) || strings.Contains(logs, tok) {
		t.Errorf("said %d times (want once, naming the file, never the token):\n%s", n, logs)
	}
	url := line["url"].(string)
	if post(t, url, "") != http.StatusUnauthorized || post(t, url, "Bearer "+tok) != http.StatusOK {
		t.Errorf("the made token is not required")
	}
	_, logs, err = startInProcessLogs(t, nil, "--listen", "127.0.0.1:0", "--port", port, "--no-cache", "--token-file", file)
	if b2, _ := os.ReadFile(file); err != nil || string(b2) != string(b) || strings.Contains(logs, "made a new token") {
		t.Errorf("again: %v, file %q, logs:\n%s", err, b2, logs)
	}
	other := filepath.Join(dir, "unused")
	if _, _, err := startInProcessLogs(t, map[string]string{"CAD_MCP_TOKEN": "from-env", "CAD_MCP_TOKEN_FILE": other}, "--listen", "127.0.0.1:0", "--port", port, "--no-cache"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(other); err == nil {
		t.Errorf("a token file was made while CAD_MCP_TOKEN gives the token")
	}
}

// TestVerifyURLWithoutTheToken: verify --url against a bridge that wants a
// token, given none (or a wrong one), says so in one line on stderr and
// stops, exit 1, instead of a table of failed checks; nothing answering at
// the URL is one line too. With the token (--token-file, or
// CAD_MCP_TOKEN) the checks run.
func TestVerifyURLWithoutTheToken(t *testing.T) {
	port := startSim(t)
	dir := tempDir(t)
	tok := writeFile(t, dir, "token", "right-token\n")
	line := serveInProcess(t, nil, "--listen", "127.0.0.1:0", "--port", port, "--no-cache", "--token-file", tok)
	url := line["url"].(string)
	for _, tt := range []struct {
		vars map[string]string
		args []string
		want string
	}{
		{nil, nil, "the bridge at " + url + " wants a token (HTTP 401), and none was given: give the file the bridge reads it from, --token-file FILE, or set CAD_MCP_TOKEN to it"},
		{map[string]string{"CAD_MCP_TOKEN": "wrong"}, nil, "the bridge at " + url + " refused the token from CAD_MCP_TOKEN (HTTP 401): it is not the one in the bridge's --token-file"},
		{nil, []string{"--token-file", writeFile(t, dir, "wrong", "wrong\n")}, "refused the token from --token-file " + filepath.Join(dir, "wrong")},
	} {
		out, errs, code := runCLI(t, tt.vars, "", append([]string{"verify", "--url", url}, tt.args...)...)
		if code != 1 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v %v: exit %d, stdout %q, stderr %q; want one line %q", tt.vars, tt.args, code, out, errs, tt.want)
		}
	}
	closed := "http://127.0.0.1:" + closedPort(t) + "/mcp"
	if out, errs, code := runCLI(t, nil, "", "verify", "--url", closed); code != 1 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "nothing answers at "+closed) {
		t.Errorf("nothing there: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, run := range []struct {
		vars map[string]string
		args []string
	}{{nil, []string{"--token-file", tok}}, {map[string]string{"CAD_MCP_TOKEN": "right-token"}, nil}} {
		out, errs, code := runCLI(t, run.vars, "", append([]string{"verify", "--url", url, "--only", "ping"}, run.args...)...)
		if code != 0 || !strings.Contains(out, "pass") {
			t.Errorf("with the token %v %v: exit %d\n%s%s", run.vars, run.args, code, out, errs)
		}
	}
}
