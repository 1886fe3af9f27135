package connect

import (
	"crypto/x509"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/streamable/tlscert"
	"github.com/mcp-bridge/mcp-bridge/configs/setting"
	"strings"
)

// MaxCAFile bounds what --ca reads: the system's whole CA bundle is a few
// hundred KiB.
const MaxCAFile = 4 << 20

// Flags are connect's own settings, read from CAD_MCP_<NAME> too.
var Flags = []string{"token-file", "fingerprint", "ca", "confirm-with", "confirm-timeout"}

// AddFlags registers connect's own settings on fs: the token it sends,
// how it trusts the remote's certificate, and who asks the user.
func AddFlags(fs *pflag.FlagSet) {
	fs.String("token-file", "", "send this file's bearer token; wins over CAD_MCP_TOKEN, which wins over CAD_MCP_TOKEN_FILE")
	fs.String("fingerprint", "", "pin the server's certificate: sha256:<64 hex digits>, as the remote bridge logs it (env CAD_MCP_FINGERPRINT)")
	fs.String("ca", "", "trust the certificate authorities in this PEM file instead of the system's (env CAD_MCP_CA)")
	fs.String("confirm-with", "client,desktop", "who asks you when the remote wants a call confirmed, in order: client, desktop or client,desktop (the client when it can ask, else a dialog on this machine's desktop, where you sit) (env CAD_MCP_CONFIRM_WITH)")
	fs.Duration("confirm-timeout", guard.DefaultConfirmTimeout, "how long a question on this desktop waits for your answer (env CAD_MCP_CONFIRM_TIMEOUT)")
	setting.Together(fs, "fingerprint", "ca")
}

// ConfigFrom reads the flags AddFlags registered on fs, after fs.Parse
// (each from the command line, else its CAD_MCP_<NAME> variable through
// getenv, else its default), for the remote at url, reads the token and
// the CA file they name, and checks them all.
func ConfigFrom(fs *pflag.FlagSet, getenv func(string) string, url string) (Config, error) {
	if err := setting.Read(fs, getenv, Flags...); err != nil {
		return Config{}, err
	}
	o := setting.OriginOf(fs)
	c := Config{URL: url}
	if err := CheckURL(url); err != nil {
		return c, fmt.Errorf("connect: %w", err)
	}
	var err error
	if c.Token, c.TokenFrom, err = setting.TokenFrom(fs, getenv).Read(); err != nil {
		return c, err
	}
	if fp, _ := fs.GetString("fingerprint"); fp != "" {
		if c.Fingerprint, err = tlscert.ParseFingerprint(fp); err != nil {
			return c, fmt.Errorf("%s: %w", o.Name("fingerprint"), err)
		}
	}
	if ca, _ := fs.GetString("ca"); ca != "" {
		pem, err := setting.ReadSmall(o.Name("ca"), ca, MaxCAFile, "a file of CA certificates")
		if err != nil {
			return c, err
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return c, fmt.Errorf("%s %s holds no PEM certificate", o.Name("ca"), ca)
		}
	}
	with, _ := fs.GetString("confirm-with")
	c.ConfirmWith = setting.List(with)
	if err := policy.CheckConfirmWith(c.ConfirmWith); err != nil {
		return c, fmt.Errorf("%s %s: %v", o.Name("confirm-with"), with, err)
	}
	if c.ConfirmTimeout, _ = fs.GetDuration("confirm-timeout"); c.ConfirmTimeout <= 0 {
		return c, fmt.Errorf("%s %s: must be positive", o.Name("confirm-timeout"), c.ConfirmTimeout)
	}
	if err := c.Check(); err != nil {
		return c, fmt.Errorf("connect: %w", err)
	}
	return c, nil
}

// Entry is how a client starts connect for the remote at URL: install
// --url's registration.
type Entry struct {
	URL, TokenFile, Fingerprint, CA string
	LogLevel                        string // "" or "info": the default
}

// Check refuses an entry connect would refuse when the client starts it,
// and a URL a client would change: clients fill variables in where they
// read the URL (${VAR}, ${env:VAR}, OpenCode's {env:VAR} and
// {file:PATH}), in a URL entry and in a connect entry's args, so that the
// URL would carry another secret to its host, and not be the one checked
// here.
func (e Entry) Check() error {
	if err := CheckURL(e.URL); err != nil {
		return fmt.Errorf("--url: %w", err)
	}
	if err := CheckPinned(e.URL, e.Fingerprint != "" || e.CA != ""); err != nil {
		return fmt.Errorf("--url: %w", err)
	}
	if strings.ContainsAny(e.URL, "{}") {
		return fmt.Errorf("--url %q has { or }, which clients read as a variable to fill in (${VAR}, {env:VAR}, {file:PATH}): write them as %%7B and %%7D", e.URL)
	}
	if e.Fingerprint != "" {
		if _, err := tlscert.ParseFingerprint(e.Fingerprint); err != nil {
			return fmt.Errorf("--fingerprint: %w", err)
		}
	}
	return nil
}

// Args are the entry's arguments, after the program's path.
func (e Entry) Args() []string {
	args := []string{"connect", e.URL}
	for _, a := range [][2]string{{"--token-file", e.TokenFile}, {"--fingerprint", e.Fingerprint}, {"--ca", e.CA}} {
		if a[1] != "" {
			args = append(args, a[0], a[1])
		}
	}
	if e.LogLevel != "" && e.LogLevel != "info" {
		args = append(args, "--log-level", e.LogLevel)
	}
	return args
}
