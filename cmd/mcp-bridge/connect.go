package main

import (
	"context"
	"crypto/x509"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge/connect"
	"github.com/mcp-bridge/mcp-bridge/bridge/tlscert"
)

const connectUsage = `Usage: mcp-bridge connect URL [flags]

A stdio MCP server that relays to a remote Streamable HTTP MCP server: an
mcp-bridge serving --listen on the CAD machine, or any other. Register it
with a client that starts only local programs. stdout carries only protocol
messages; logs go to stderr.

Examples:
  mcp-bridge connect https://cad-pc:8931/mcp --fingerprint sha256:3f…a1 --token-file ~/.cad-token
  CAD_MCP_TOKEN=… mcp-bridge connect https://cad.example.com/mcp

Flags (marked "env": also read from CAD_MCP_<NAME> when not given):
`

// runConnect is `mcp-bridge connect URL`.
func runConnect(ctx context.Context, e *env, args []string) error {
	fs := pflag.NewFlagSet("connect", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	tokenFile := fs.String("token-file", "", "send this file's bearer token (or set CAD_MCP_TOKEN) (env CAD_MCP_TOKEN_FILE)")
	fingerprint := fs.String("fingerprint", "", "pin the server's certificate: sha256:<64 hex digits>, as the remote bridge logs it (env CAD_MCP_FINGERPRINT)")
	caFile := fs.String("ca", "", "trust the certificate authorities in this PEM file instead of the system's (env CAD_MCP_CA)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error (env CAD_MCP_LOG_LEVEL)")
	logFormat := fs.String("log-format", "console", "console or json (env CAD_MCP_LOG_FORMAT)")
	logFile := fs.String("log-file", "", "append logs to this file instead of stderr (env CAD_MCP_LOG_FILE)")
	showVersion := fs.Bool("version", false, "print the version and exit, once the other settings are checked (doctor runs registrations so)")
	fs.Usage = func() { fmt.Fprintf(e.stderr, "%s%s", connectUsage, fs.FlagUsages()) }
	if done, err := parseFlags(fs, args); done {
		return err
	}
	for _, fl := range []string{"token-file", "fingerprint", "ca", "log-level", "log-format", "log-file"} {
		if v := e.getenv(envName(fl)); v != "" && !fs.Changed(fl) {
			_ = fs.Set(fl, v)
		}
	}
	if fs.NArg() != 1 {
		return usageError{fmt.Errorf("connect takes one URL, the remote's MCP endpoint (e.g. https://cad-pc:8931/mcp); got %d arguments", fs.NArg())}
	}
	cfg := connect.Config{URL: fs.Arg(0)}
	if err := connect.CheckURL(cfg.URL); err != nil {
		return usageError{fmt.Errorf("connect: %w", err)}
	}
	token, err := (&bridgeFlags{tokenFile: *tokenFile}).token(e.getenv)
	if err != nil {
		return usageError{err}
	}
	cfg.Token = token
	if *fingerprint != "" {
		if cfg.Fingerprint, err = tlscert.ParseFingerprint(*fingerprint); err != nil {
			return usageError{fmt.Errorf("--fingerprint: %w", err)}
		}
	}
	if *caFile != "" {
		pem, err := os.ReadFile(*caFile)
		if err != nil {
			return usageError{fmt.Errorf("--ca: %w", err)}
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return usageError{fmt.Errorf("--ca %s holds no PEM certificate", *caFile)}
		}
	}
	if err := notStdout(*logFile, e.stdout); err != nil {
		return usageError{err}
	}
	log, closeLog, err := newLogger(*logLevel, *logFormat, *logFile, e.stderr)
	if err != nil {
		return usageError{err}
	}
	defer closeLog()
	if *showVersion {
		fmt.Fprintf(e.stdout, "mcp-bridge %s\n", version)
		return nil
	}
	cfg.Log = log
	if token != "" && strings.HasPrefix(cfg.URL, "http://") {
		log.Warn().Msg("sending the token over plain http://: anyone on the path can read it; serve the remote with --tls-self-signed and use https://")
	}
	go func() {
		<-ctx.Done()
		if e.stopSignals != nil {
			e.stopSignals()
		}
	}()
	log.Info().Str("url", cfg.URL).Str("version", version).Bool("token", token != "").Bool("pinned", cfg.Fingerprint != nil).Msg("mcp-bridge connect serving on stdio")
	err = connect.Run(ctx, cfg, interruptible(e.stdin), e.stdout)
	log.Info().Msg("mcp-bridge connect stopped")
	return err
}
