package tlscert

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// TestSelfSignedOnce: the certificate is made once, for this machine's
// names, owner-only, and the same one is served after a restart.
func TestSelfSignedOnce(t *testing.T) {
	dir := filepath.Join(testdir.New(t), "cache")
	first, created, err := SelfSigned(dir)
	if err != nil || !created {
		t.Fatalf("first: created %v, %v", created, err)
	}
	again, created, err := SelfSigned(dir)
	if err != nil || created {
		t.Fatalf("second: created %v, %v", created, err)
	}
	if LeafFingerprint(first) != LeafFingerprint(again) || Existing(dir) != LeafFingerprint(first) {
		t.Errorf("fingerprints differ: %s, %s, %s", LeafFingerprint(first), LeafFingerprint(again), Existing(dir))
	}
	leaf, err := Leaf(first)
	if err != nil {
		t.Fatal(err)
	}
	if err := leaf.VerifyHostname("localhost"); err != nil {
		t.Error(err)
	}
	if err := leaf.VerifyHostname("127.0.0.1"); err != nil {
		t.Error(err)
	}
	if host, _ := os.Hostname(); host != "" {
		if err := leaf.VerifyHostname(host); err != nil {
			t.Error(err)
		}
	}
	if runtime.GOOS == "windows" {
		return
	}
	for _, f := range []string{CertFile, KeyFile} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want 0600", f, st.Mode(), err)
		}
	}
	// A key others may read is refused, not served.
	if err := os.Chmod(filepath.Join(dir, KeyFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := SelfSigned(dir); err == nil || !strings.Contains(err.Error(), "other users") {
		t.Errorf("a key readable by others: %v", err)
	}
}

func TestParseFingerprint(t *testing.T) {
	hex := strings.Repeat("ab", 32)
	colons := strings.TrimSuffix(strings.Repeat("AB:", 32), ":")
	for _, ok := range []string{"sha256:" + hex, "SHA256:" + colons, " sha256:" + strings.ToUpper(hex) + " "} {
		if _, err := ParseFingerprint(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{hex, "sha256:" + hex[:62], "sha1:" + hex, "sha256:" + hex + "00", "sha256:zz" + hex[2:]} {
		if _, err := ParseFingerprint(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
