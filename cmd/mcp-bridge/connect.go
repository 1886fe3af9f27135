package main

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge/connect"
	"github.com/mcp-bridge/mcp-bridge/bridge/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/bridge/tlscert"
	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
	"github.com/mcp-bridge/mcp-bridge/configs/loopback"
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

// connectFlags are connect's flags (doctor reads registrations with them).
type connectFlags struct {
	fs                                                           *pflag.FlagSet
	tokenFile, fingerprint, caFile, logLevel, logFormat, logFile string
	confirmWith                                                  string
	confirmTimeout                                               time.Duration
	showVersion                                                  bool
}

func newConnectFlags(out io.Writer) *connectFlags {
	c := &connectFlags{fs: pflag.NewFlagSet("connect", pflag.ContinueOnError)}
	fs := c.fs
	fs.SetOutput(out)
	fs.SortFlags = false
	fs.StringVar(&c.tokenFile, "token-file", "", "send this file's bearer token; wins over CAD_MCP_TOKEN, which wins over CAD_MCP_TOKEN_FILE")
	fs.StringVar(&c.fingerprint, "fingerprint", "", "pin the server's certificate: sha256:<64 hex digits>, as the remote bridge logs it (env CAD_MCP_FINGERPRINT)")
	fs.StringVar(&c.caFile, "ca", "", "trust the certificate authorities in this PEM file instead of the system's (env CAD_MCP_CA)")
	fs.StringVar(&c.confirmWith, "confirm-with", "client,desktop", "who asks you when the remote wants a call confirmed, in order: client, desktop or client,desktop (the client when it can ask, else a dialog on this machine's desktop, where you sit) (env CAD_MCP_CONFIRM_WITH)")
	fs.DurationVar(&c.confirmTimeout, "confirm-timeout", 2*time.Minute, "how long a question on this desktop waits for your answer (env CAD_MCP_CONFIRM_TIMEOUT)")
	fs.StringVar(&c.logLevel, "log-level", "info", "debug, info, warn or error (env CAD_MCP_LOG_LEVEL)")
	fs.StringVar(&c.logFormat, "log-format", "console", "console or json (env CAD_MCP_LOG_FORMAT)")
	fs.StringVar(&c.logFile, "log-file", "", "append logs to this file instead of stderr (env CAD_MCP_LOG_FILE)")
	fs.BoolVar(&c.showVersion, "version", false, "print the version and exit, once the other settings are checked (doctor runs registrations so)")
	addGroup(fs, "telemetry", telemetry.AddFlags)
	return c
}

// connectSettingNames are connect's settings, also read from CAD_MCP_<NAME>.
var connectSettingNames = []string{"token-file", "fingerprint", "ca", "confirm-with", "confirm-timeout", "log-level", "log-format", "log-file"}

// runConnect is `mcp-bridge connect URL`.
func runConnect(ctx context.Context, e *env, args []string) error {
	c := newConnectFlags(e.stderr)
	fs := c.fs
	fs.Usage = func() {
		fmt.Fprintf(e.stdout, "%s%s\nand the telemetry flags, as the bridge's: mcp-bridge help telemetry\n", connectUsage, usages(fs, inTopic(""), nil))
	}
	if done, err := parseFlags(fs, args); done {
		return err
	}
	set, err := readSettings(fs, e.getenv, connectSettingNames)
	if err != nil {
		return usageError{err}
	}
	tcfg, err := checkTelemetry(fs, e.getenv, "")
	if err != nil {
		return usageError{fmt.Errorf("connect: %w", err)}
	}
	if tcfg.PropagateToBase {
		return usageError{fmt.Errorf("connect: --otel-propagate-to-base is for the bridge that calls CAD; connect always passes its trace context on to the remote")}
	}
	if fs.NArg() != 1 {
		return usageError{fmt.Errorf("connect takes one URL, the remote's MCP endpoint (e.g. https://cad-pc:8931/mcp); got %d arguments", fs.NArg())}
	}
	cfg := connect.Config{URL: fs.Arg(0)}
	if err := connect.CheckURL(cfg.URL); err != nil {
		return usageError{fmt.Errorf("connect: %w", err)}
	}
	token, tokenFrom, err := set.token(c.tokenFile)
	if err != nil {
		return usageError{err}
	}
	cfg.Token, cfg.TokenFrom = token, tokenFrom
	if c.fingerprint != "" {
		if cfg.Fingerprint, err = tlscert.ParseFingerprint(c.fingerprint); err != nil {
			return usageError{fmt.Errorf("%s: %w", set.name("fingerprint"), err)}
		}
	}
	if c.caFile != "" {
		pem, err := readSmallFile(set.name("ca"), c.caFile, maxCAFile, "a file of CA certificates")
		if err != nil {
			return usageError{err}
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return usageError{fmt.Errorf("%s %s holds no PEM certificate", set.name("ca"), c.caFile)}
		}
	}
	cfg.ConfirmWith = splitList(c.confirmWith)
	if err := policy.CheckConfirmWith(cfg.ConfirmWith); err != nil {
		return usageError{fmt.Errorf("%s %s: %v", set.name("confirm-with"), c.confirmWith, err)}
	}
	if c.confirmTimeout <= 0 {
		return usageError{fmt.Errorf("%s %s: must be positive", set.name("confirm-timeout"), c.confirmTimeout)}
	}
	cfg.ConfirmTimeout = c.confirmTimeout
	if err := cfg.Check(); err != nil {
		return usageError{fmt.Errorf("connect: %w", err)}
	}
	if err := notStdout(c.logFile, e.stdout); err != nil {
		return usageError{err}
	}
	log, closeLog, err := newLogger(c.logLevel, c.logFormat, c.logFile, e.stderr)
	if err != nil {
		return usageError{err}
	}
	defer closeLog()
	if c.showVersion {
		printVersion(e.stdout)
		return nil
	}
	cfg.Log = log
	// connect serves no token of its own: its --metrics-listen stays on
	// loopback.
	if tcfg.MetricsListen != "" && !loopback.Addr(tcfg.MetricsListen) {
		return usageError{metricsRemoteErr(tcfg.MetricsListen, true)}
	}
	tel, stopTel, err := startTelemetry(tcfg, nil, "", "", false, log)
	if err != nil {
		if _, ok := err.(usageError); ok {
			return err
		}
		return usageError{err}
	}
	defer stopTel()
	cfg.Telemetry = tel
	desktopWhy := ""
	if slices.Contains(cfg.ConfirmWith, policy.AskDesktop) {
		cfg.Desktop, desktopWhy = findDesktop(e.getenv)
		if cfg.Desktop != nil {
			log.Info().Str("dialog", cfg.Desktop.Name()).Msg("confirmation questions that the client cannot ask are shown on this desktop")
		} else {
			log.Info().Str("why", desktopWhy).Msg("no desktop dialog: the remote refuses a call that needs confirmation when the client cannot ask")
		}
	}
	if token != "" && strings.HasPrefix(strings.ToLower(cfg.URL), "http://") {
		log.Warn().Msg("sending the token over plain http://: anyone on the path can read it; serve the remote with --tls-self-signed and use https://")
	}
	go func() {
		<-ctx.Done()
		if e.stopSignals != nil {
			e.stopSignals()
		}
	}()
	log.Info().Str("url", cfg.URL).Str("version", version).Bool("token", token != "").Str("token_from", tokenFrom).Bool("pinned", cfg.Fingerprint != nil).Msg("mcp-bridge connect serving on stdio")
	err = connect.Run(ctx, cfg, interruptible(e.stdin), e.stdout)
	log.Info().Msg("mcp-bridge connect stopped")
	return err
}

// connectEntry is install --url: the client starts `mcp-bridge connect
// URL` over stdio, or, where it has one, gets its own URL entry (urlForm).
// Every client takes a stdio entry, and only connect can pin a
// self-signed certificate; the token stays in its file (the entry names
// the file, or the variable the client reads it from, never the token).
type connectEntry struct {
	url, fingerprint, ca string
}

func (c *connectEntry) add(fs *pflag.FlagSet) {
	fs.StringVar(&c.url, "url", "", "register the remote bridge at `URL` (one serving --listen) instead of a local one: the client's own URL entry (Claude Code, CodeBuddy, Gemini CLI, Cursor, VS Code, Windsurf, Codex, Copilot CLI, OpenCode; the token from CAD_MCP_TOKEN) or \"mcp-bridge connect URL\"; with --token-file, --fingerprint, --ca")
	fs.StringVar(&c.fingerprint, "fingerprint", "", "with --url: the remote's certificate fingerprint (sha256:…)")
	fs.StringVar(&c.ca, "ca", "", "with --url: a PEM file of the CAs to trust")
}

// connectSettings are the flags install --url passes on; any other bridge
// setting given with --url is a mistake (connect has no base to reach).
var connectSettings = map[string]bool{"url": true, "fingerprint": true, "ca": true, "token-file": true, "log-level": true, "log-format": true, "log-file": true,
	"client": true, "scope": true, "name": true, "dry-run": true, "force": true, "copy": true}

func (c *connectEntry) check(f *bridgeFlags, getenv func(string) string) error {
	if c.url == "" {
		if c.fingerprint != "" || c.ca != "" {
			return fmt.Errorf("--fingerprint and --ca go with --url")
		}
		return nil
	}
	if err := connect.CheckURL(c.url); err != nil {
		return fmt.Errorf("--url: %w", err)
	}
	if err := connect.CheckPinned(c.url, c.fingerprint != "" || c.ca != ""); err != nil {
		return fmt.Errorf("--url: %w", err)
	}
	// Clients fill variables in where they read the URL (${VAR},
	// ${env:VAR}, OpenCode's {env:VAR} and {file:PATH}), in a URL entry
	// and in a connect entry's args: the URL would carry another secret
	// to its host, and not be the one checked here.
	if strings.ContainsAny(c.url, "{}") {
		return fmt.Errorf("--url %q has { or }, which clients read as a variable to fill in (${VAR}, {env:VAR}, {file:PATH}): write them as %%7B and %%7D", c.url)
	}
	if c.fingerprint != "" {
		if _, err := tlscert.ParseFingerprint(c.fingerprint); err != nil {
			return fmt.Errorf("--fingerprint: %w", err)
		}
	}
	var bad []string
	f.fs.Visit(func(fl *pflag.Flag) {
		if !connectSettings[fl.Name] {
			bad = append(bad, "--"+fl.Name)
		}
	})
	if len(bad) > 0 {
		return fmt.Errorf("install --url registers connect, which reaches no CAD base itself: %s belong on the remote bridge", strings.Join(bad, ", "))
	}
	if f.set.tokenFrom(f.tokenFile) == tokenVar {
		return fmt.Errorf("install --url does not write the token into the client's file: save it in a file only you can read and pass --token-file FILE")
	}
	for _, p := range []*string{&f.tokenFile, &c.ca} {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			return err
		}
		*p = abs
	}
	return nil
}

// clearText: the registration sends the token over plain http:// to
// another machine.
func (c *connectEntry) clearText(f *bridgeFlags) bool {
	u, err := url.Parse(c.url)
	if err != nil || u.Scheme != "http" || f.tokenFile == "" {
		return false
	}
	return !loopback.Host(u.Hostname())
}

// server is the entry: this executable, connect, the URL and its settings.
func (c *connectEntry) server(exe string, f *bridgeFlags) clientconf.Server {
	args := []string{"connect", c.url}
	if f.tokenFile != "" {
		args = append(args, "--token-file", f.tokenFile)
	}
	if c.fingerprint != "" {
		args = append(args, "--fingerprint", c.fingerprint)
	}
	if c.ca != "" {
		args = append(args, "--ca", c.ca)
	}
	if f.logLevel != "info" {
		args = append(args, "--log-level", f.logLevel)
	}
	return clientconf.Server{Command: exe, Args: args}
}
