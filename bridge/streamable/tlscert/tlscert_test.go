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
	// A key or certificate any other user (its group included) may read or
	// change is refused, not served: each of the six bits alone, and the
	// owner's own bits are fine.
	for _, f := range []string{KeyFile, CertFile} {
		for _, c := range []struct {
			mode os.FileMode
			ok   bool
		}{
			{0o600, true}, {0o400, true}, {0o700, true},
			{0o640, false}, {0o620, false}, {0o610, false},
			{0o604, false}, {0o602, false}, {0o601, false},
		} {
			if err := os.Chmod(filepath.Join(dir, f), c.mode); err != nil {
				t.Fatal(err)
			}
			_, _, err := SelfSigned(dir)
			if c.ok && err != nil {
				t.Errorf("%s mode %v: %v", f, c.mode, err)
			}
			if !c.ok && (err == nil || !strings.Contains(err.Error(), "other users")) {
				t.Errorf("%s mode %v (another user may read or change it) was served: %v", f, c.mode, err)
			}
		}
		if err := os.Chmod(filepath.Join(dir, f), 0o600); err != nil {
			t.Fatal(err)
		}
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

// TestSelfSignedPlanted: what someone else could leave where the
// certificate is kept is refused, saying what to delete: a link in place
// of the certificate or of the key (even to the user's own files), and a
// certificate without its key.
func TestSelfSignedPlanted(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links need privileges on Windows")
	}
	elsewhere := filepath.Join(testdir.New(t), "elsewhere")
	if _, _, err := SelfSigned(elsewhere); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		make func(dir string) error
		want string
	}{
		{"linked certificate", func(dir string) error {
			return os.Symlink(filepath.Join(elsewhere, CertFile), filepath.Join(dir, CertFile))
		}, "not a regular file"},
		{"linked key", func(dir string) error {
			return os.Symlink(filepath.Join(elsewhere, KeyFile), filepath.Join(dir, KeyFile))
		}, "not a regular file"},
		{"no key", func(dir string) error { return os.Remove(filepath.Join(dir, KeyFile)) }, "delete"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(testdir.New(t), "cache")
			if _, _, err := SelfSigned(dir); err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(tt.name, "linked") {
				f := CertFile
				if tt.name == "linked key" {
					f = KeyFile
				}
				if err := os.Remove(filepath.Join(dir, f)); err != nil {
					t.Fatal(err)
				}
			}
			if err := tt.make(dir); err != nil {
				t.Fatal(err)
			}
			if _, _, err := SelfSigned(dir); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}
