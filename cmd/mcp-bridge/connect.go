package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/connect"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
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

// newConnectFlags are connect's flags: its own (bridge/connect), the
// logger's, --version, and telemetry's (doctor reads registrations with
// them too).
func newConnectFlags(out io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet("connect", pflag.ContinueOnError)
	fs.SetOutput(out)
	fs.SortFlags = false
	connect.AddFlags(fs)
	addLogFlags(fs)
	fs.Bool("version", false, "print the version and exit, once the other settings are checked (doctor runs registrations so)")
	addGroup(fs, "telemetry", telemetry.AddFlags)
	return fs
}

// runConnect is `mcp-bridge connect URL`.
func runConnect(ctx context.Context, e *env, args []string) error {
	fs := newConnectFlags(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stdout, "%s%s\nand the telemetry flags, as the bridge's: mcp-bridge help telemetry\n", connectUsage, usages(fs, inTopic(""), nil))
	}
	if done, err := parseFlags(fs, args); done {
		return err
	}
	cfg, tcfg, logs, err := connectConfig(fs, e.getenv)
	if err != nil {
		return usageError{err}
	}
	log, closeLog, err := logs.newLogger(e.stdout, e.stderr)
	if err != nil {
		return usageError{err}
	}
	defer closeLog()
	if v, _ := fs.GetBool("version"); v {
		printVersion(e.stdout)
		return nil
	}
	cfg.Log = log
	tel, stopTel, err := telemetry.Start(tcfg, telemetry.Options{Version: version, Log: log}, telemetry.Guard{NoToken: true})
	if err != nil {
		return usageError{err}
	}
	defer stopTel()
	cfg.Telemetry = tel
	if slices.Contains(cfg.ConfirmWith, policy.AskDesktop) {
		var why string
		if cfg.Desktop, why = findDesktop(e.getenv); cfg.Desktop != nil {
			log.Info().Str("dialog", cfg.Desktop.Name()).Msg("confirmation questions that the client cannot ask are shown on this desktop")
		} else {
			log.Info().Str("why", why).Msg("no desktop dialog: the remote refuses a call that needs confirmation when the client cannot ask")
		}
	}
	if cfg.Token != "" && strings.HasPrefix(strings.ToLower(cfg.URL), "http://") {
		log.Warn().Msg("sending the token over plain http://: anyone on the path can read it; serve the remote with --tls-self-signed and use https://")
	}
	go stopSignalsWhenDone(ctx, e)
	log.Info().Str("url", cfg.URL).Str("version", version).Bool("token", cfg.Token != "").Str("token_from", cfg.TokenFrom).Bool("pinned", cfg.Fingerprint != nil).Msg("mcp-bridge connect serving on stdio")
	err = connect.Run(ctx, cfg, bridge.Interruptible(e.stdin), e.stdout)
	log.Info().Msg("mcp-bridge connect stopped")
	return err
}

// connectConfig reads connect's settings: its own, telemetry's and the
// logger's, and the URL, its one argument.
func connectConfig(fs *pflag.FlagSet, getenv func(string) string) (connect.Config, telemetry.Config, logSettings, error) {
	var cfg connect.Config
	logs, err := logSettingsFrom(fs, getenv)
	if err != nil {
		return cfg, telemetry.Config{}, logs, err
	}
	tcfg, err := telemetryFrom(fs, getenv, "")
	switch {
	case err != nil:
		return cfg, tcfg, logs, fmt.Errorf("connect: %w", err)
	case tcfg.PropagateToBase:
		return cfg, tcfg, logs, fmt.Errorf("connect: --otel-propagate-to-base is for the bridge that calls CAD; connect always passes its trace context on to the remote")
	case fs.NArg() != 1:
		return cfg, tcfg, logs, fmt.Errorf("connect takes one URL, the remote's MCP endpoint (e.g. https://cad-pc:8931/mcp); got %d arguments", fs.NArg())
	}
	cfg, err = connect.ConfigFrom(fs, getenv, fs.Arg(0))
	return cfg, tcfg, logs, err
}

// connectEntry is install --url: the client starts `mcp-bridge connect
// URL` over stdio, or, where it has one, gets its own URL entry (urlForm).
// Every client takes a stdio entry, and only connect can pin a
// self-signed certificate; the token stays in its file (the entry names
// the file, or the variable the client reads it from, never the token).
type connectEntry struct {
	url, fingerprint, ca string
	tokenFile            string // --token-file, absolute once checked
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

func (c *connectEntry) check(f *bridgeFlags) error {
	c.tokenFile = f.http.TokenFrom.File
	if c.url == "" {
		if c.fingerprint != "" || c.ca != "" {
			return fmt.Errorf("--fingerprint and --ca go with --url")
		}
		return nil
	}
	if err := c.entry("").Check(); err != nil {
		return err
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
	if f.http.TokenFrom.FromVar() {
		return fmt.Errorf("install --url does not write the token into the client's file: save it in a file only you can read and pass --token-file FILE")
	}
	for _, p := range []*string{&c.tokenFile, &c.ca} {
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
func (c *connectEntry) clearText() bool {
	u, err := url.Parse(c.url)
	if err != nil || u.Scheme != "http" || c.tokenFile == "" {
		return false
	}
	return !loopback.Host(u.Hostname())
}

// entry is how the client starts connect, with the bridge's --log-level.
func (c *connectEntry) entry(logLevel string) connect.Entry {
	return connect.Entry{URL: c.url, TokenFile: c.tokenFile, Fingerprint: c.fingerprint, CA: c.ca, LogLevel: logLevel}
}
