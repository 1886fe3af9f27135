package streamable

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/configs/setting"
)

// The front end's defaults: a Config's zero values take them
// (setDefaults), and its flags (AddFlags) show them.
const (
	DefaultSessionIdle = 30 * time.Minute
	DefaultMaxStreams  = 100
	DefaultMaxSessions = 1000
)

// httpFlags are the front end's settings, in --help's order.
var httpFlags = []string{"listen", "allow-origin", "token-file", "allow-remote", "session-idle", "max-streams", "max-sessions", "tls-cert", "tls-key", "tls-self-signed", "trust-proxy"}

// AddFlags registers the Streamable HTTP settings on fs (each also read
// from CAD_MCP_<NAME>; the token itself from CAD_MCP_TOKEN).
func AddFlags(fs *pflag.FlagSet) {
	fs.String("listen", "", "serve MCP Streamable HTTP at http://ADDR/mcp instead of stdio, e.g. 127.0.0.1:8931 (env CAD_MCP_LISTEN)")
	fs.StringSlice("allow-origin", nil, "with --listen: browser Origins allowed besides loopback ones, comma-separated (env CAD_MCP_ALLOW_ORIGIN)")
	fs.String("token-file", "", "with --listen: require this file's bearer token; wins over CAD_MCP_TOKEN, which wins over CAD_MCP_TOKEN_FILE")
	fs.Bool("allow-remote", false, "with --listen or --metrics-listen: allow a non-loopback address without a token (env CAD_MCP_ALLOW_REMOTE)")
	fs.Duration("session-idle", DefaultSessionIdle, "with --listen: end a legacy session after this long without traffic (env CAD_MCP_SESSION_IDLE)")
	fs.Int("max-streams", DefaultMaxStreams, "with --listen: open SSE streams at most, half of them from one address (env CAD_MCP_MAX_STREAMS)")
	fs.Int("max-sessions", DefaultMaxSessions, "with --listen: open legacy sessions at most, half of them from one address (env CAD_MCP_MAX_SESSIONS)")
	fs.String("tls-cert", "", "with --listen: serve HTTPS with this PEM certificate (chain) file; needs --tls-key (env CAD_MCP_TLS_CERT)")
	fs.String("tls-key", "", "with --listen: the PEM private key of --tls-cert (env CAD_MCP_TLS_KEY)")
	fs.Bool("tls-self-signed", false, "with --listen: serve HTTPS with a certificate for this machine, made once and kept beside the cache; its fingerprint is logged (env CAD_MCP_TLS_SELF_SIGNED)")
	fs.StringSlice("trust-proxy", nil, "with --listen: reverse proxies (addresses or CIDRs, comma-separated) whose X-Forwarded-For names the client; otherwise the header is ignored (env CAD_MCP_TRUST_PROXY)")
	setting.Together(fs, "tls-cert", "tls-key", "tls-self-signed")
}

// ConfigFrom reads the flags AddFlags registered on fs, after fs.Parse
// (each from the command line, else its CAD_MCP_<NAME> variable through
// getenv, else its default), and checks them. certDir is where
// --tls-self-signed keeps its certificate (the cache folder).
func ConfigFrom(fs *pflag.FlagSet, getenv func(string) string, certDir string) (Config, error) {
	if err := setting.Read(fs, getenv, httpFlags...); err != nil {
		return Config{}, err
	}
	var c Config
	var proxies []string
	c.Listen, _ = fs.GetString("listen")
	c.AllowOrigins, _ = fs.GetStringSlice("allow-origin")
	c.TokenFrom = setting.TokenFrom(fs, getenv)
	c.AllowRemote, _ = fs.GetBool("allow-remote")
	c.SessionIdle, _ = fs.GetDuration("session-idle")
	c.MaxStreams, _ = fs.GetInt("max-streams")
	c.MaxSessions, _ = fs.GetInt("max-sessions")
	c.TLS.Cert, _ = fs.GetString("tls-cert")
	c.TLS.Key, _ = fs.GetString("tls-key")
	c.TLS.SelfSigned, _ = fs.GetBool("tls-self-signed")
	c.TLS.Dir = certDir
	c.origin = setting.OriginOf(fs)
	c.TLS.origin = c.origin
	proxies, _ = fs.GetStringSlice("trust-proxy")
	var err error
	if c.TrustProxy, err = parseCIDRs(proxies); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// Validate checks the settings ListenAndServe reads.
func (c Config) Validate() error {
	if c.Listen == "" {
		if c.TLS.On() {
			return fmt.Errorf("--tls-cert and --tls-self-signed serve HTTPS: they need --listen")
		}
		return nil
	}
	if err := c.TLS.validate(); err != nil {
		return err
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		return fmt.Errorf("%s %q: want HOST:PORT, e.g. 127.0.0.1:8931", c.origin.Name("listen"), c.Listen)
	}
	if c.SessionIdle <= 0 || c.MaxStreams < 1 || c.MaxSessions < 1 {
		return fmt.Errorf("--session-idle must be positive, and --max-streams and --max-sessions at least 1")
	}
	return nil
}

// parseCIDRs reads --trust-proxy: CIDRs, or single addresses.
func parseCIDRs(list []string) ([]*net.IPNet, error) {
	var nets []*net.IPNet
	for _, s := range list {
		s = strings.TrimSpace(s)
		if ip := net.ParseIP(s); ip != nil {
			bits := 8 * len(ip.To16())
			if ip.To4() != nil {
				ip, bits = ip.To4(), 32
			}
			nets = append(nets, &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)})
			continue
		}
		_, n, err := net.ParseCIDR(s)
		if err != nil {
			return nil, fmt.Errorf("--trust-proxy %q: want an address or a CIDR such as 10.0.0.0/8", s)
		}
		nets = append(nets, n)
	}
	return nets, nil
}

// ReadToken is the bearer token a serving bridge requires ("" for none)
// and where it came from (setting.Token). A --token-file that does not
// exist yet is made first, with a new random token, in a file only this
// user may read, said once in the log with the file's name and never the
// token (clients read the file, or CAD_MCP_TOKEN set from it). A token
// from CAD_MCP_TOKEN makes no file; a file that exists is read as it is.
func (c Config) ReadToken(log zerolog.Logger) (token, from string, err error) {
	if err := makeTokenFile(c.TokenFrom, log); err != nil {
		return "", "", err
	}
	return c.TokenFrom.Read()
}

func makeTokenFile(t setting.Token, log zerolog.Logger) error {
	if t.File == "" || t.FromVar() {
		return nil
	}
	if _, err := os.Lstat(t.File); !errors.Is(err, os.ErrNotExist) {
		return nil // there (or not to be told apart): read as it is, errors and all
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return err
	}
	name := t.Name()
	file, err := os.OpenFile(t.File, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil // another bridge made it first
	}
	if err != nil {
		return fmt.Errorf("%s %s does not exist and cannot be made: %w", name, t.File, err)
	}
	_, err = file.WriteString(hex.EncodeToString(raw) + "\n")
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(t.File)
		return fmt.Errorf("%s %s: %w", name, t.File, err)
	}
	log.Warn().Str("token_file", t.File).Msg("made a new token in this file, which only you may read: clients send it (install --url … --token-file FILE, or CAD_MCP_TOKEN set from it)")
	return nil
}
