package verify

import (
	"crypto/tls"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge/streamable/tlscert"
	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// TestTLSSelfSigned: --tls-self-signed makes its certificate once, beside
// the cache (owner-only), logs its fingerprint, serves it again after a
// restart, refuses TLS below 1.2, and doctor prints the fingerprint.
func TestTLSSelfSigned(t *testing.T) {
	dir := testdir.New(t)
	port := goSDKSimPort(t)
	first, log1 := startHTTPBridge(t, port, "--tls-self-signed", "--cache-dir", dir)
	fp := tlscert.Existing(dir)
	if fp == "" || !strings.Contains(log1.String(), fp) {
		t.Fatalf("fingerprint %q not logged:\n%s", fp, log1.String())
	}
	if strings.Contains(log1.String(), "tls-self-signed") {
		t.Errorf("a TLS bridge warned about TLS:\n%s", log1.String())
	}
	if runtime.GOOS != "windows" {
		if st, err := os.Stat(filepath.Join(dir, tlscert.KeyFile)); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("key file: %v %v, want 0600", st.Mode(), err)
		}
	}
	_, log2 := startHTTPBridge(t, port, "--tls-self-signed", "--cache-dir", dir)
	if !strings.Contains(log2.String(), fp) || tlscert.Existing(dir) != fp {
		t.Errorf("the restarted bridge serves another certificate:\n%s", log2.String())
	}

	host := mustHost(t, first)
	for _, c := range []struct {
		version uint16
		ok      bool
	}{{tls.VersionTLS11, false}, {tls.VersionTLS12, true}, {tls.VersionTLS13, true}} {
		conn, err := tls.Dial("tcp", host, &tls.Config{InsecureSkipVerify: true, MinVersion: c.version, MaxVersion: c.version})
		if (err == nil) != c.ok {
			t.Errorf("TLS version %x: err %v, want ok=%v", c.version, err, c.ok)
		}
		if err == nil {
			conn.Close()
		}
	}

	cmd := exec.Command(bridgeBin, "doctor", "--timeout", "2s")
	home := testdir.New(t)
	cmd.Env = []string{"CAD_MCP_CACHE_DIR=" + dir, "HOME=" + home, "XDG_CONFIG_HOME=" + home, "APPDATA=" + home, "PATH=" + os.Getenv("PATH")}
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "self-signed TLS certificate (--tls-self-signed): "+fp) {
		t.Errorf("doctor does not print the fingerprint:\n%s", out)
	}
}

// TestTLSCertFiles: --tls-cert/--tls-key serve the given certificate;
// connect trusts it through --ca.
func TestTLSCertFiles(t *testing.T) {
	dir := testdir.New(t)
	if _, _, err := tlscert.SelfSigned(dir); err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, tlscert.CertFile), filepath.Join(dir, tlscert.KeyFile)
	u, _ := startHTTPBridge(t, goSDKSimPort(t), "--tls-cert", certFile, "--tls-key", keyFile, "--cache-dir", testdir.New(t))
	b, line, err := startConnect(t, []string{u, "--ca", certFile}, Options{})
	if err != nil || Get(line, "result.protocolVersion") != "2025-06-18" {
		t.Fatalf("initialize through --ca: %q %v\n%s", line, err, b.Stderr())
	}
}

// TestTLSKeyReadableByAll: a --tls-key file every user may read still
// serves (a key readable by a group, such as Debian's ssl-cert, is the
// norm), with a warning naming the file and the fix.
func TestTLSKeyReadableByAll(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes are not access control on Windows")
	}
	dir := testdir.New(t)
	if _, _, err := tlscert.SelfSigned(dir); err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, tlscert.CertFile), filepath.Join(dir, tlscert.KeyFile)
	for _, c := range []struct {
		mode os.FileMode
		warn bool
	}{{0o644, true}, {0o640, false}} {
		if err := os.Chmod(keyFile, c.mode); err != nil {
			t.Fatal(err)
		}
		_, log := startHTTPBridge(t, goSDKSimPort(t), "--tls-cert", certFile, "--tls-key", keyFile, "--cache-dir", testdir.New(t))
		if got := strings.Contains(log.String(), "chmod o-r "+keyFile); got != c.warn {
			t.Errorf("key mode %v: warning %v, want %v:\n%s", c.mode, got, c.warn, log.String())
		}
	}
}

// TestPlainRemoteWarns: a non-loopback --listen without TLS works and logs
// one warning naming --tls-self-signed.
func TestPlainRemoteWarns(t *testing.T) {
	_, log := startHTTPBridge(t, goSDKSimPort(t), "--listen", "0.0.0.0:0", "--allow-remote")
	if n := strings.Count(log.String(), "--tls-self-signed"); n != 1 {
		t.Errorf("%d warnings naming --tls-self-signed, want 1:\n%s", n, log.String())
	}
}

func mustHost(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// TestTLSByHostName: a bridge on every interface with --tls-self-signed
// is reached by this machine's name, which its certificate names (a
// plain-HTTP bridge refuses names in Host, against DNS rebinding).
func TestTLSByHostName(t *testing.T) {
	host, err := os.Hostname()
	if err != nil || host == "" {
		t.Skip("no host name")
	}
	if _, err := net.LookupHost(host); err != nil {
		t.Skipf("host name %s does not resolve: %v", host, err)
	}
	dir := testdir.New(t)
	u, _ := startHTTPBridge(t, goSDKSimPort(t), "--listen", "0.0.0.0:0", "--tls-self-signed", "--cache-dir", dir, "--allow-remote")
	_, port, _ := net.SplitHostPort(mustHost(t, u))
	b, line, err := startConnect(t, []string{"https://" + net.JoinHostPort(host, port) + "/mcp", "--fingerprint", tlscert.Existing(dir)}, Options{})
	if err != nil || Get(line, "result.protocolVersion") != "2025-06-18" {
		t.Fatalf("initialize by host name: %q %v\n%s", line, err, b.Stderr())
	}
}
