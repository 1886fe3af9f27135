package streamable

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"runtime"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/streamable/tlscert"
	"github.com/mcp-bridge/mcp-bridge/configs/loopback"
	"github.com/mcp-bridge/mcp-bridge/configs/setting"
)

// ListenAndServe serves hc.Listen (ConfigFrom) until ctx is done: it
// reads the token (making a --token-file that does not exist), refuses an
// address other machines reach without one unless AllowRemote, listens,
// serves HTTPS when TLS says so, and logs the URL. A setting that cannot
// serve is a setting.Error.
func ListenAndServe(ctx context.Context, cfg bridge.Config, hc Config) error {
	log := cfg.Log
	token, tokenFrom, err := hc.ReadToken(log)
	if err != nil {
		return setting.Error{Err: err}
	}
	remote := !loopback.Addr(hc.Listen)
	if remote && token == "" && !hc.AllowRemote {
		return setting.Error{Err: fmt.Errorf("--listen %s is reachable from other machines: set a token (--token-file or CAD_MCP_TOKEN), or pass --allow-remote to serve it without one", hc.Listen)}
	}
	ln, err := net.Listen("tcp", hc.Listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	tln, scheme, names, err := hc.TLS.listener(ln, hc.Listen, log)
	if err != nil {
		ln.Close()
		return setting.Error{Err: err}
	}
	url := scheme + "://" + tln.Addr().String() + "/mcp"
	log.Info().Str("url", url).Str("base", cfg.BaseAddr).Str("version", hc.Version).Bool("token", token != "").Str("token_from", tokenFrom).Msg("mcp-bridge serving Streamable HTTP")
	if remote && token == "" {
		log.Warn().Msg("serving a non-loopback address without a token (--allow-remote): anyone who can reach it can drive CAD")
	}
	hc.Token, hc.Hosts, hc.Serving = token, names, url
	return Serve(ctx, cfg, hc, tln)
}

// TLS is how the front end serves HTTPS (--tls-cert and --tls-key, or
// --tls-self-signed); its zero value serves plain http://.
type TLS struct {
	Cert, Key  string
	SelfSigned bool
	// Dir keeps the self-signed certificate: the cache folder, even with
	// --no-cache (it is no cache, and clients pin it).
	Dir    string
	origin setting.Origin
}

// On: HTTPS is served.
func (t TLS) On() bool { return t.SelfSigned || t.Cert != "" }

func (t TLS) validate() error {
	switch {
	case (t.Cert == "") != (t.Key == ""):
		return fmt.Errorf("%s and %s go together", t.origin.Name("tls-cert"), t.origin.Name("tls-key"))
	case t.SelfSigned && t.Cert != "":
		return fmt.Errorf("%s makes its own certificate: give it or %s/%s, not both", t.origin.Name("tls-self-signed"), t.origin.Name("tls-cert"), t.origin.Name("tls-key"))
	}
	return nil
}

// listener wraps ln in TLS when asked, logging the certificate's
// fingerprint (what connect --fingerprint pins). Without TLS on an address
// other machines reach, it logs one warning. It returns the URL scheme and
// the names the certificate was made for (the server accepts them as Host).
func (t TLS) listener(ln net.Listener, listen string, log zerolog.Logger) (net.Listener, string, []string, error) {
	if !t.On() {
		if !loopback.Addr(listen) {
			log.Warn().Str("listen", listen).Msg("serving plain http:// to other machines: the token and every drawing travel in clear text; use --tls-self-signed (or --tls-cert/--tls-key) unless a proxy ends TLS in front of this bridge")
		}
		return ln, "http", nil, nil
	}
	var cert tls.Certificate
	var err error
	if t.SelfSigned {
		var created bool
		cert, created, err = tlscert.SelfSigned(t.Dir)
		if err != nil {
			return nil, "", nil, fmt.Errorf("%s: %w", t.origin.Name("tls-self-signed"), err)
		}
		if created {
			log.Info().Str("dir", t.Dir).Msg("made a self-signed TLS certificate for this machine")
		}
	} else if cert, err = tls.LoadX509KeyPair(t.Cert, t.Key); err != nil {
		return nil, "", nil, fmt.Errorf("%s %s, %s %s: %w", t.origin.Name("tls-cert"), t.Cert, t.origin.Name("tls-key"), t.Key, err)
	} else if st, err := os.Stat(t.Key); err == nil && runtime.GOOS != "windows" && st.Mode().Perm()&0o004 != 0 {
		// Readable by a group (Debian's ssl-cert) is common and fine;
		// by every user of the machine, the key is as good as public.
		log.Warn().Str("file", t.Key).Msgf("the TLS private key may be read by every user of this machine: chmod o-r %s", t.Key)
	}
	var names []string
	if leaf, err := tlscert.Leaf(cert); err == nil {
		names = leaf.DNSNames
	}
	log.Info().Str("fingerprint", tlscert.LeafFingerprint(cert)).Msg("serving HTTPS; clients pin this certificate with: mcp-bridge connect URL --fingerprint <fingerprint>")
	return tls.NewListener(ln, tlscert.ServerConfig(cert)), "https", names, nil
}
