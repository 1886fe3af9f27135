package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"runtime"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge/tlscert"
	"github.com/mcp-bridge/mcp-bridge/configs/loopback"
)

// tlsFlags are the serving end's TLS settings (with --listen).
type tlsFlags struct {
	cert, key  string
	selfSigned bool
}

func (t *tlsFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&t.cert, "tls-cert", "", "with --listen: serve HTTPS with this PEM certificate (chain) file; needs --tls-key (env CAD_MCP_TLS_CERT)")
	fs.StringVar(&t.key, "tls-key", "", "with --listen: the PEM private key of --tls-cert (env CAD_MCP_TLS_KEY)")
	fs.BoolVar(&t.selfSigned, "tls-self-signed", false, "with --listen: serve HTTPS with a certificate for this machine, made once and kept beside the cache; its fingerprint is logged (env CAD_MCP_TLS_SELF_SIGNED)")
}

func (t *tlsFlags) on() bool { return t.selfSigned || t.cert != "" }

func (t *tlsFlags) check(set *settings) error {
	switch {
	case (t.cert == "") != (t.key == ""):
		return fmt.Errorf("%s and %s go together", set.name("tls-cert"), set.name("tls-key"))
	case t.selfSigned && t.cert != "":
		return fmt.Errorf("%s makes its own certificate: give it or %s/%s, not both", set.name("tls-self-signed"), set.name("tls-cert"), set.name("tls-key"))
	}
	return nil
}

// listener wraps ln in TLS when asked, logging the certificate's
// fingerprint (what connect --fingerprint pins). Without TLS on an address
// other machines reach, it logs one warning. It returns the URL scheme and
// the names the certificate was made for (the server accepts them as Host).
func (t *tlsFlags) listener(ln net.Listener, listen, cacheDir string, set *settings, log zerolog.Logger) (net.Listener, string, []string, error) {
	if !t.on() {
		if !loopback.Addr(listen) {
			log.Warn().Str("listen", listen).Msg("serving plain http:// to other machines: the token and every drawing travel in clear text; use --tls-self-signed (or --tls-cert/--tls-key) unless a proxy ends TLS in front of this bridge")
		}
		return ln, "http", nil, nil
	}
	var cert tls.Certificate
	var err error
	if t.selfSigned {
		var created bool
		cert, created, err = tlscert.SelfSigned(cacheDir)
		if err != nil {
			return nil, "", nil, fmt.Errorf("%s: %w", set.name("tls-self-signed"), err)
		}
		if created {
			log.Info().Str("dir", cacheDir).Msg("made a self-signed TLS certificate for this machine")
		}
	} else if cert, err = tls.LoadX509KeyPair(t.cert, t.key); err != nil {
		return nil, "", nil, fmt.Errorf("%s %s, %s %s: %w", set.name("tls-cert"), t.cert, set.name("tls-key"), t.key, err)
	} else if st, err := os.Stat(t.key); err == nil && runtime.GOOS != "windows" && st.Mode().Perm()&0o004 != 0 {
		// Readable by a group (Debian's ssl-cert) is common and fine;
		// by every user of the machine, the key is as good as public.
		log.Warn().Str("file", t.key).Msgf("the TLS private key may be read by every user of this machine: chmod o-r %s", t.key)
	}
	var names []string
	if leaf, err := tlscert.Leaf(cert); err == nil {
		names = leaf.DNSNames
	}
	log.Info().Str("fingerprint", tlscert.LeafFingerprint(cert)).Msg("serving HTTPS; clients pin this certificate with: mcp-bridge connect URL --fingerprint <fingerprint>")
	return tls.NewListener(ln, tlscert.ServerConfig(cert)), "https", names, nil
}

// tlsDir is where --tls-self-signed keeps its certificate, for doctor:
// CAD_MCP_CACHE_DIR, else the default cache folder.
func tlsDir(getenv func(string) string) string {
	if d := getenv("CAD_MCP_CACHE_DIR"); d != "" {
		return d
	}
	return defaultCacheDir()
}
