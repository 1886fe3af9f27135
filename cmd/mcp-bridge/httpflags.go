package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/streamable"
	"github.com/mcp-bridge/mcp-bridge/bridge/tlscert"
	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
	"github.com/mcp-bridge/mcp-bridge/configs/loopback"
	"github.com/mcp-bridge/mcp-bridge/configs/register"
)

// addHTTPFlags adds the Streamable HTTP settings (each also read from
// CAD_MCP_<NAME>; the token itself from CAD_MCP_TOKEN).
func (f *bridgeFlags) addHTTPFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.listen, "listen", "", "serve MCP Streamable HTTP at http://ADDR/mcp instead of stdio, e.g. 127.0.0.1:8931 (env CAD_MCP_LISTEN)")
	fs.StringSliceVar(&f.allowOrigins, "allow-origin", nil, "with --listen: browser Origins allowed besides loopback ones, comma-separated (env CAD_MCP_ALLOW_ORIGIN)")
	fs.StringVar(&f.tokenFile, "token-file", "", "with --listen: require this file's bearer token; wins over CAD_MCP_TOKEN, which wins over CAD_MCP_TOKEN_FILE")
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "with --listen or --metrics-listen: allow a non-loopback address without a token (env CAD_MCP_ALLOW_REMOTE)")
	fs.DurationVar(&f.sessionIdle, "session-idle", 30*time.Minute, "with --listen: end a legacy session after this long without traffic (env CAD_MCP_SESSION_IDLE)")
	fs.IntVar(&f.maxStreams, "max-streams", 100, "with --listen: open SSE streams at most, half of them from one address (env CAD_MCP_MAX_STREAMS)")
	fs.IntVar(&f.maxSessions, "max-sessions", 1000, "with --listen: open legacy sessions at most, half of them from one address (env CAD_MCP_MAX_SESSIONS)")
	f.tls.add(fs)
	fs.StringSliceVar(&f.trustProxy, "trust-proxy", nil, "with --listen: reverse proxies (addresses or CIDRs, comma-separated) whose X-Forwarded-For names the client; otherwise the header is ignored (env CAD_MCP_TRUST_PROXY)")
}

// checkHTTP validates the HTTP settings after parsing.
func (f *bridgeFlags) checkHTTP() error {
	if f.listen == "" {
		if f.tls.on() {
			return fmt.Errorf("--tls-cert and --tls-self-signed serve HTTPS: they need --listen")
		}
		return nil
	}
	if err := f.tls.check(f.set); err != nil {
		return err
	}
	if _, err := parseCIDRs(f.trustProxy); err != nil {
		return err
	}
	if _, _, err := net.SplitHostPort(f.listen); err != nil {
		return fmt.Errorf("%s %q: want HOST:PORT, e.g. 127.0.0.1:8931", f.set.name("listen"), f.listen)
	}
	if f.sessionIdle <= 0 || f.maxStreams < 1 || f.maxSessions < 1 {
		return fmt.Errorf("--session-idle must be positive, and --max-streams and --max-sessions at least 1")
	}
	return nil
}

// token returns the bearer token ("" for none) and where it came from
// (settings.token: --token-file on the command line wins over
// CAD_MCP_TOKEN, which wins over CAD_MCP_TOKEN_FILE).
func (f *bridgeFlags) token() (string, string, error) { return f.set.token(f.tokenFile) }

// readSmallFile reads the file a flag names, at most max bytes: a file
// that does not end soon (a device such as /dev/zero, a pipe fed without
// end) is not read to its end, but refused as not the kind of file the
// flag takes.
func readSmallFile(flag, path string, max int, kind string) ([]byte, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	defer file.Close()
	raw, err := io.ReadAll(io.LimitReader(file, int64(max)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	if len(raw) > max {
		return nil, fmt.Errorf("%s %s is over %d KiB: not %s", flag, path, max>>10, kind)
	}
	return raw, nil
}

// maxTokenFile bounds what --token-file reads.
const maxTokenFile = 64 << 10

// maxCAFile bounds what connect --ca reads: the system's whole CA bundle
// is a few hundred KiB.
const maxCAFile = 4 << 20

// checkToken refuses a token that cannot travel in an HTTP header: control
// characters (a file saved as UTF-16 is full of NUL bytes). Without this,
// every request failed with an error about the header, at run time.
func checkToken(t string) error {
	for _, c := range []byte(t) {
		if c < 0x20 || c == 0x7f {
			return fmt.Errorf("holds control characters, which no HTTP header carries (a file saved as UTF-16? save it as UTF-8 or plain ASCII)")
		}
	}
	return nil
}

// makeTokenFile makes the --token-file of a bridge that serves (HTTP or
// /metrics) when it does not exist yet: a new random token in a file only
// this user may read, said once in the log, with the file's name and
// never the token (clients read the file, or CAD_MCP_TOKEN set from it).
// A token from CAD_MCP_TOKEN makes no file; a file that exists is read as
// it is.
func (f *bridgeFlags) makeTokenFile(log zerolog.Logger) error {
	if f.tokenFile == "" || f.set.tokenFrom(f.tokenFile) == tokenVar {
		return nil
	}
	if _, err := os.Lstat(f.tokenFile); !errors.Is(err, os.ErrNotExist) {
		return nil // there (or not to be told apart): read as it is, errors and all
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return err
	}
	file, err := os.OpenFile(f.tokenFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil // another bridge made it first
	}
	if err != nil {
		return fmt.Errorf("%s %s does not exist and cannot be made: %w", f.set.name("token-file"), f.tokenFile, err)
	}
	_, err = file.WriteString(hex.EncodeToString(raw) + "\n")
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.tokenFile)
		return fmt.Errorf("%s %s: %w", f.set.name("token-file"), f.tokenFile, err)
	}
	log.Warn().Str("token_file", f.tokenFile).Msg("made a new token in this file, which only you may read: clients send it (install --url … --token-file FILE, or CAD_MCP_TOKEN set from it)")
	return nil
}

// serveHTTP runs the bridge as a Streamable HTTP server until ctx is done.
func serveHTTP(ctx context.Context, e *env, f *bridgeFlags, cfg bridge.Config) error {
	if err := f.makeTokenFile(cfg.Log); err != nil {
		return usageError{err}
	}
	token, tokenFrom, err := f.token()
	if err != nil {
		return usageError{err}
	}
	if !loopback.Addr(f.listen) && token == "" && !f.allowRemote {
		return usageError{fmt.Errorf("--listen %s is reachable from other machines: set a token (--token-file or CAD_MCP_TOKEN), or pass --allow-remote to serve it without one", f.listen)}
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	log := cfg.Log
	// The self-signed certificate is kept in the cache folder even with
	// --no-cache: it is not a cache, and clients pin it.
	tln, scheme, names, err := f.tls.listener(ln, f.listen, f.cacheDir, f.set, log)
	if err != nil {
		ln.Close()
		return usageError{err}
	}
	ln = tln
	proxies, _ := parseCIDRs(f.trustProxy) // checked by checkHTTP
	log.Info().Str("url", scheme+"://"+ln.Addr().String()+"/mcp").Str("base", cfg.BaseAddr).Str("version", version).Bool("token", token != "").Str("token_from", tokenFrom).Msg("mcp-bridge serving Streamable HTTP")
	if !loopback.Addr(f.listen) && token == "" {
		log.Warn().Msg("serving a non-loopback address without a token (--allow-remote): anyone who can reach it can drive CAD")
	}
	return streamable.Serve(ctx, cfg, streamable.Config{
		AllowOrigins: f.allowOrigins,
		Token:        token,
		SessionIdle:  f.sessionIdle,
		MaxStreams:   f.maxStreams,
		MaxSessions:  f.maxSessions,
		Hosts:        names,
		TrustProxy:   proxies,
		Version:      version,
		Started:      time.Now(),
		Serving:      scheme + "://" + ln.Addr().String() + "/mcp",
		Metrics:      metricsOnListen(f, cfg),
	}, ln)
}

// printURLConfig prints the client configuration for a bridge serving
// HTTP at --listen: "type": "http" and the URL, with the Authorization
// header when a token is set. The header names CAD_MCP_TOKEN in the
// client's own syntax, never the token: what is printed gets pasted into
// files, chats and tickets (install writes the same).
func printURLConfig(e *env, f *bridgeFlags) error {
	host, port, _ := net.SplitHostPort(f.listen)
	wildcard := host == "" || host == "0.0.0.0" || host == "::"
	if wildcard {
		host = "127.0.0.1"
	}
	scheme := "http"
	if f.tls.on() {
		scheme = "https" // the bridge serves nothing else then
	}
	url := scheme + "://" + net.JoinHostPort(host, port) + "/mcp"
	server := map[string]any{"type": "http", "url": url}
	tokenFrom := f.set.tokenFrom(f.tokenFile)
	ref := "${" + clientconf.TokenVar + "}"
	if c := clientconf.Lookup(f.client); c != nil && c.URLForm != nil && c.URLForm.VarRef != "" {
		ref = c.TokenRef()
	}
	if tokenFrom != "" {
		server["headers"] = map[string]string{"Authorization": "Bearer " + ref}
	}
	switch {
	case f.client == "claude-desktop":
		return usageError{fmt.Errorf("Claude Desktop's configuration file takes stdio servers only: print the stdio form (without --listen), or add the URL under Settings > Connectors")}
	case !urlClients[f.client]:
		return usageError{fmt.Errorf("--client %q%s: want generic, claude-desktop, claude-code, codebuddy, cursor, vscode or inspector", f.client, didYouMean(f.client, []string{"generic", "claude-desktop", "claude-code", "codebuddy", "cursor", "vscode", "inspector"}))}
	}
	key := "mcpServers"
	if f.client == "vscode" {
		key = "servers"
	}
	out, _ := json.MarshalIndent(map[string]any{key: map[string]any{f.name: server}}, "", "  ")
	fmt.Fprintln(e.stdout, string(out))
	if tokenFrom != "" {
		// On stderr: stdout is the JSON, pasted or piped as it is.
		fmt.Fprintf(e.stderr, "the token: the entry sends it from the %s variable (%s), not written in it; set %[1]s to the token where the client starts", clientconf.TokenVar, ref)
		if f.tokenFile != "" {
			fmt.Fprintf(e.stderr, ", e.g.\n  %s\n", register.SetTokenVar(runtime.GOOS, f.tokenFile))
		} else {
			fmt.Fprintf(e.stderr, "\n")
		}
		if f.client == "generic" || f.client == "inspector" {
			fmt.Fprintf(e.stderr, "(a client that does not fill %s in needs the token in its place: keep such a file to yourself)\n", ref)
		}
	}
	if f.tls.selfSigned {
		// On stderr: stdout is the JSON, pasted or piped as it is.
		fmt.Fprint(e.stderr, pinNote(f, e.getenv, url, wildcard))
	}
	return nil
}

// pinNote tells how a client reaches a bridge serving a self-signed
// certificate: through connect, which pins it by its fingerprint (no
// client accepts the certificate by itself, nor pins one). The
// fingerprint is the one kept in the cache folder; before the bridge has
// made it, the note says where to read it.
func pinNote(f *bridgeFlags, getenv func(string) string, url string, wildcard bool) string {
	fp := tlscert.Existing(f.cacheDir)
	known := fp != ""
	if !known {
		fp = "sha256:…"
	}
	cmd := "mcp-bridge connect " + url + " --fingerprint " + fp
	if clientconf.Lookup(f.client) != nil {
		cmd = "mcp-bridge install --client " + f.client + " --url " + url + " --fingerprint " + fp
	}
	if f.tokenFile != "" {
		cmd += " --token-file " + register.ShellQuoteIfNeeded(f.tokenFile)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the certificate is self-signed: a client given this URL refuses it. Register the bridge through connect, which pins the certificate by its fingerprint:\n  %s\n", cmd)
	if wildcard {
		fmt.Fprintf(&b, "(on another machine, with this machine's name or address in the URL)\n")
	}
	if known {
		fmt.Fprintf(&b, "(the fingerprint of the certificate kept in %s)\n", f.cacheDir)
	} else {
		fmt.Fprintf(&b, "the fingerprint is not known yet: the bridge makes the certificate in %s when it first starts with --tls-self-signed, and logs it; then this command prints it", f.cacheDir)
		if f.cacheDir == tlsDir(getenv) {
			fmt.Fprintf(&b, ", and mcp-bridge doctor shows it")
		}
		b.WriteString("\n")
	}
	return b.String()
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
