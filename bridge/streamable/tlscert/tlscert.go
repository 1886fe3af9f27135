// Package tlscert holds the bridge's TLS material: the self-signed
// certificate --tls-self-signed makes once and keeps, and the SHA-256
// fingerprints by which a client pins it (connect --fingerprint).
package tlscert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// File names of the self-signed certificate and its key, in the folder
// SelfSigned is given (the cache folder).
const (
	CertFile = "tls-cert.pem"
	KeyFile  = "tls-key.pem"
)

// Fingerprint is the SHA-256 of a certificate's DER bytes, written the way
// --fingerprint takes it: "sha256:" and 64 lower-case hex digits.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ParseFingerprint reads a pinned fingerprint: "sha256:" then 64 hex
// digits, upper or lower case, optionally in colon-separated pairs (as
// openssl prints them).
func ParseFingerprint(s string) ([]byte, error) {
	hexPart, ok := strings.CutPrefix(strings.TrimSpace(s), "sha256:")
	if !ok {
		hexPart, ok = strings.CutPrefix(strings.TrimSpace(s), "SHA256:")
	}
	if !ok {
		return nil, fmt.Errorf("fingerprint %q: want sha256: followed by 64 hex digits (the bridge logs it at start, and doctor prints it)", s)
	}
	sum, err := hex.DecodeString(strings.ReplaceAll(hexPart, ":", ""))
	if err != nil || len(sum) != sha256.Size {
		return nil, fmt.Errorf("fingerprint %q: want sha256: followed by 64 hex digits", s)
	}
	return sum, nil
}

// ServerConfig is the TLS configuration the bridge serves with: TLS 1.2
// or later, Go's default cipher suites.
func ServerConfig(cert tls.Certificate) *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
}

// LeafFingerprint is the fingerprint of a loaded certificate's leaf.
func LeafFingerprint(cert tls.Certificate) string {
	if len(cert.Certificate) == 0 {
		return ""
	}
	return Fingerprint(cert.Certificate[0])
}

// SelfSigned returns the certificate kept in dir, making it first when it
// is not there (created reports that). It names this machine: its host
// name, localhost, and every address of its interfaces at creation time.
// The key is written readable by its owner only; a key file that others
// may read is refused (Unix), since whoever holds it can pose as the
// bridge.
func SelfSigned(dir string) (cert tls.Certificate, created bool, err error) {
	if dir == "" {
		return tls.Certificate{}, false, errors.New("no folder to keep the self-signed certificate in (set --cache-dir)")
	}
	certPath, keyPath := filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile)
	if _, err := os.Lstat(certPath); err == nil {
		return loadOwned(certPath, keyPath)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return tls.Certificate{}, false, err
	}
	certPEM, keyPEM, err := generate()
	if err != nil {
		return tls.Certificate{}, false, err
	}
	// The key first: a certificate without its key is never left behind
	// as the one to load.
	if err := writeOwnerOnly(keyPath, keyPEM); err != nil {
		return tls.Certificate{}, false, err
	}
	if err := writeOwnerOnly(certPath, certPEM); err != nil {
		return tls.Certificate{}, false, err
	}
	cert, err = tls.X509KeyPair(certPEM, keyPEM)
	return cert, true, err
}

// Existing returns the fingerprint of the self-signed certificate kept in
// dir, or "" when there is none (doctor prints it).
func Existing(dir string) string {
	raw, err := os.ReadFile(filepath.Join(dir, CertFile))
	if err != nil {
		return ""
	}
	block, _ := pem.Decode(raw)
	if block == nil || block.Type != "CERTIFICATE" {
		return ""
	}
	return Fingerprint(block.Bytes)
}

func loadOwned(certPath, keyPath string) (tls.Certificate, bool, error) {
	for _, p := range []string{certPath, keyPath} {
		st, err := os.Lstat(p)
		if err != nil {
			return tls.Certificate{}, false, fmt.Errorf("self-signed certificate: %w (delete %s and %s to make a new one)", err, certPath, keyPath)
		}
		if !st.Mode().IsRegular() {
			// A link may lead to another user's key: never followed.
			return tls.Certificate{}, false, fmt.Errorf("%s is not a regular file (a link?): delete %s and %s to make a new certificate", p, CertFile, KeyFile)
		}
		if runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
			return tls.Certificate{}, false, fmt.Errorf("%s may be read or changed by other users (mode %v): make it 0600 or delete both %s and %s to make a new certificate", p, st.Mode().Perm(), CertFile, KeyFile)
		}
	}
	cert, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		return tls.Certificate{}, false, fmt.Errorf("self-signed certificate: %w (delete %s and %s to make a new one)", err, certPath, keyPath)
	}
	return cert, false, nil
}

// generate makes an ECDSA P-256 certificate for this machine's names and
// addresses, valid for ten years.
func generate() (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, err
	}
	host, _ := os.Hostname()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "mcp-bridge " + host},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	if host != "" && host != "localhost" {
		tmpl.DNSNames = append(tmpl.DNSNames, host)
	}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() && !ipn.IP.IsLinkLocalUnicast() {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ipn.IP)
			}
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), nil
}

// writeOwnerOnly writes a new file (0600) through a temporary file in the
// same folder and a rename, so that a reader never sees half of it.
func writeOwnerOnly(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tls-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Leaf parses a loaded certificate's leaf.
func Leaf(cert tls.Certificate) (*x509.Certificate, error) {
	if cert.Leaf != nil {
		return cert.Leaf, nil
	}
	if len(cert.Certificate) == 0 {
		return nil, errors.New("no certificate")
	}
	return x509.ParseCertificate(cert.Certificate[0])
}
