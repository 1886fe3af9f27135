package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge/connect"
	"github.com/mcp-bridge/mcp-bridge/bridge/streamable/tlscert"
	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// TestConnectUsage: connect's mistakes are usage errors (exit 2) that say
// what to give, before anything is sent.
func TestConnectUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"connect"}, "connect takes one URL"},
		{[]string{"connect", "cad-pc:8931"}, "is not an http:// or https:// URL"},
		{[]string{"connect", "https://user:pw@cad-pc:8931/mcp"}, "give the token with --token-file"},
		{[]string{"connect", "https://cad-pc:8931/mcp", "--fingerprint", "ab:cd"}, "want sha256: followed by 64 hex digits"},
		{[]string{"connect", "https://cad-pc:8931/mcp", "--ca", "/nonexistent/ca.pem"}, "--ca"},
		{[]string{"connect", "https://cad-pc:8931/mcp", "--token-file", "/nonexistent/token"}, "--token-file"},
		{[]string{"conect", "https://cad-pc:8931/mcp"}, "did you mean connect?"},
		// A pin or a CA with plain http:// would be ignored: no certificate.
		{[]string{"connect", "http://cad-pc:8931/mcp", "--fingerprint", "sha256:" + strings.Repeat("ab", 32)}, "need an https:// URL"},
	} {
		_, errs, code := runCLI(t, nil, "", tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errs, tt.want)
		}
	}
}

// TestConnectCAOverHTTP: --ca with a plain http:// URL (any case) is
// refused: no certificate would be checked.
func TestConnectCAOverHTTP(t *testing.T) {
	dir := testdir.New(t)
	if _, _, err := tlscert.SelfSigned(dir); err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(dir, tlscert.CertFile)
	if _, errs, code := runCLI(t, nil, "", "connect", "HTTP://cad-pc:8931/mcp", "--ca", ca); code != 2 || !strings.Contains(errs, "need an https:// URL") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestConnectVersion: doctor runs a registration with --version to check
// its settings: connect checks them first.
func TestConnectVersion(t *testing.T) {
	fp := "sha256:" + strings.Repeat("ab", 32)
	// What doctor runs to check the settings: connect --version checks
	// them first.
	if out, errs, code := runCLI(t, nil, "", "connect", "https://cad-pc:8931/mcp", "--fingerprint", fp, "--version"); code != 0 || !strings.HasPrefix(out, "mcp-bridge "+version+"\n") {
		t.Errorf("connect --version: exit %d, %q %q", code, out, errs)
	}
	if _, errs, code := runCLI(t, nil, "", "connect", "https://cad-pc:8931/mcp", "--fingerprint", "sha256:00", "--version"); code != 2 || !strings.Contains(errs, "--fingerprint") {
		t.Errorf("connect --version with a bad fingerprint: exit %d, %q", code, errs)
	}
}

// TestInstallURLRefusals: install --url takes connect's settings only,
// and never the token itself.
func TestInstallURLRefusals(t *testing.T) {
	_, env, _ := doctorHome(t)
	withToken := map[string]string{"CAD_MCP_TOKEN": "t"}
	for k, v := range env {
		withToken[k] = v
	}
	missing := filepath.Join(tempDir(t), "no-such-token")
	for _, tt := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{env, []string{"install", "--client", "cursor", "--url", "cad-pc:8931"}, "--url"},
		{env, []string{"install", "--client", "cursor", "--url", "https://cad-pc:8931/mcp", "--port", "9000"}, "--port belong on the remote bridge"},
		{env, []string{"install", "--client", "cursor", "--fingerprint", "sha256:" + strings.Repeat("ab", 32)}, "go with --url"},
		{env, []string{"install", "--client", "cursor", "--url", "https://cad-pc:8931/mcp", "--fingerprint", "md5:1"}, "--fingerprint"},
		{withToken, []string{"install", "--client", "cursor", "--url", "https://cad-pc:8931/mcp"}, "does not write the token"},
		{env, []string{"install", "--client", "cursor", "--url", "https://cad-pc:8931/mcp", "--token-file", missing}, missing},
	} {
		_, errs, code := runCLI(t, tt.env, "", tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errs, tt.want)
		}
	}
}

// TestConnectTokenFileAsEditorsWriteIt: a token file saved by a Windows
// editor (a UTF-8 BOM, CRLF) sends the token itself; one that cannot be a
// token (UTF-16, or endless like /dev/zero) is refused at start, saying
// why, rather than sent or read without end.
func TestConnectTokenFileAsEditorsWriteIt(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer srv.Close()
	dir := testdir.New(t)
	bom := filepath.Join(dir, "bom")
	if err := os.WriteFile(bom, []byte("\xef\xbb\xbfs3cret\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}` + "\n"
	out, errs, code := runCLI(t, nil, ping, "connect", srv.URL+"/mcp", "--token-file", bom)
	mu.Lock()
	defer mu.Unlock()
	if code != 0 || !strings.Contains(out, `"result"`) || len(got) == 0 || got[0] != "Bearer s3cret" {
		t.Errorf("exit %d, stdout %q, Authorization %q; want the token without BOM and CR\n%s", code, out, got, errs)
	}

	utf16 := filepath.Join(dir, "utf16")
	if err := os.WriteFile(utf16, []byte("\xff\xfes\x003\x00c\x00\r\x00\n\x00"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{utf16, "/dev/zero"} {
		if _, err := os.Stat(file); err != nil {
			continue // no /dev/zero (Windows)
		}
		if _, errs, code := runCLI(t, nil, "", "connect", "https://cad-pc:8931/mcp", "--token-file", file); code != 2 || !strings.Contains(errs, "--token-file") {
			t.Errorf("%s: exit %d, stderr %q", file, code, errs)
		}
	}
}

// TestConnectCAFileBounded: --ca, which connect reads at every start of
// the client that registered it, is read up to a bound: a file that does
// not end soon (a device such as /dev/zero, a huge file put there by
// mistake) is refused at start, saying why, instead of read into memory
// without end.
func TestConnectCAFileBounded(t *testing.T) {
	dir := testdir.New(t)
	if _, _, err := tlscert.SelfSigned(dir); err != nil {
		t.Fatal(err)
	}
	pem, err := os.ReadFile(filepath.Join(dir, tlscert.CertFile))
	if err != nil {
		t.Fatal(err)
	}
	// A real certificate first: read whole, it would be accepted.
	big := filepath.Join(dir, "big.pem")
	if err := os.WriteFile(big, append(pem, bytes.Repeat([]byte("\n"), connect.MaxCAFile)...), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, file := range map[string]string{"big": big, "devzero": "/dev/zero"} {
		t.Run(name, func(t *testing.T) {
			if _, err := os.Stat(file); err != nil {
				t.Skip("no /dev/zero (Windows)")
			}
			if _, errs, code := runCLI(t, nil, "", "connect", "https://cad-pc:8931/mcp", "--ca", file); code != 2 || !strings.Contains(errs, "--ca") || !strings.Contains(errs, "over") {
				t.Errorf("exit %d, stderr %q; want 2 and a refusal of the size", code, errs)
			}
		})
	}
	// The certificate alone is taken (connect runs, and ends with stdin).
	ca := filepath.Join(dir, tlscert.CertFile)
	if _, errs, code := runCLI(t, nil, "", "connect", "https://cad-pc:8931/mcp", "--ca", ca); code != 0 {
		t.Errorf("a CA file of one certificate: exit %d, stderr %q", code, errs)
	}
}
