package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/configs/setting"
	"github.com/mcp-bridge/mcp-bridge/verify/checks"
	"github.com/mcp-bridge/mcp-bridge/verify/direct"
)

const verifyUsage = `Usage: mcp-bridge verify [flags]

Runs the bridge as a child process, exactly as an MCP client does, and checks
everything a client relies on: version negotiation, ping, tools/list and
tools/call against the base, error codes, ids, batches, base failures,
cancellation, both protocol eras, and that stdout carries nothing else.

Against your own CAD base (--port) it only reads: it calls unknown tools
and one tool that needs no arguments and that the base annotates
readOnlyHint (else one whose name starts with get, list, describe, info,
query, read, show, status, count, find, search, inspect or measure); the
report says which. When no tool fits, those checks are skipped: name one
with --tool NAME --args JSON. It skips the checks that need the
simulator's fault tools. With --scratch it also runs the checks that draw
(and undo): for a scratch document, e.g. a test base.

Examples:
  mcp-bridge verify                  against a simulated base (all checks)
  mcp-bridge verify --port 8080      against the CAD program on this machine
  mcp-bridge verify --port 8080 --scratch
  mcp-bridge verify --port 8080 --tool list_layers --args '{}'
  mcp-bridge verify --json
  mcp-bridge verify --url http://127.0.0.1:8931/mcp --token-file ~/cad-token
                                     a bridge running with --listen

Flags:
%s`

// runVerify is the verify command: the end-to-end checks, against the
// bridge binary as a client runs it, or a bridge serving HTTP (--url).
func runVerify(ctx context.Context, e *env, args []string) error {
	fs := pflag.NewFlagSet("verify", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	host := fs.String("host", "127.0.0.1", "CAD base host (with --port: check against that base)")
	port := fs.Int("port", 0, "CAD base port; without it, a simulated base with fault tools is started")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	bridgeBin := fs.String("bridge", "", "bridge binary to check (default: this one)")
	only := fs.String("only", "", "run only the checks whose names contain this text")
	url := fs.String("url", "", "check a bridge already serving HTTP at this MCP URL (e.g. http://127.0.0.1:8931/mcp); its token from --token-file or CAD_MCP_TOKEN")
	tokenFile := fs.String("token-file", "", "with --url: the file with the bridge's token (as the bridge's own --token-file); wins over CAD_MCP_TOKEN")
	scratch := fs.Bool("scratch", false, "the base's drawing is a scratch one: run the checks that change it too")
	tool := fs.String("tool", "", "the tool the round-trip checks call (default: one the base marks read-only, or a reading one that needs no arguments)")
	toolArgs := fs.String("args", "{}", "with --tool: its arguments, a JSON object")
	fs.Usage = func() { fmt.Fprintf(e.stdout, verifyUsage, usages(fs, all, nil)) }
	if done, err := parseFlags(fs, args); done {
		return err
	}
	bin := *bridgeBin
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		bin = exe
	}
	if fs.Changed("args") && *tool == "" {
		return usageError{fmt.Errorf("--args goes with --tool NAME")}
	}
	if fs.Changed("args") {
		if err := direct.JSONObject("--args", *toolArgs); err != nil {
			return usageError{err}
		}
	}
	if *tokenFile != "" && *url == "" {
		return usageError{fmt.Errorf("--token-file goes with --url")}
	}
	if *url != "" {
		// The token as connect reads it: --token-file, else CAD_MCP_TOKEN.
		token, from, err := setting.TokenFrom(fs, e.getenv).Read()
		if err != nil {
			return usageError{err}
		}
		return verifyHTTP(ctx, e, checks.HTTPOptions{URL: *url, Token: token, TokenFrom: from, Only: *only, Tool: *tool, Args: *toolArgs}, *asJSON)
	}
	opts := checks.Options{Bridge: bin, Only: *only, Scratch: *scratch, Tool: *tool, Args: *toolArgs}
	if fs.Changed("port") || fs.Changed("host") {
		if *port < 1 || *port > 65535 {
			return usageError{fmt.Errorf("--port %d: must be 1-65535", *port)}
		}
		opts.Base = net.JoinHostPort(*host, strconv.Itoa(*port))
	}
	rep, err := checks.Run(ctx, opts, nil)
	if err != nil {
		return err
	}
	return reportVerify(e, rep, *asJSON)
}

// verifyHTTP checks a bridge serving HTTP.
func verifyHTTP(ctx context.Context, e *env, opts checks.HTTPOptions, asJSON bool) error {
	if err := checks.Preflight(ctx, opts); err != nil {
		return exitError{code: 1, msg: err.Error()}
	}
	return reportVerify(e, checks.RunHTTP(ctx, opts, nil), asJSON)
}

func reportVerify(e *env, rep *checks.Report, asJSON bool) error {
	if asJSON {
		out, _ := json.MarshalIndent(rep, "", "  ")
		fmt.Fprintln(e.stdout, string(out))
		// The closing line, for people and CI logs alike.
		fmt.Fprintf(e.stderr, "%d passed, %d failed, %d skipped\n", rep.Passed, rep.Failed, rep.Skipped)
	} else {
		checks.PrintTable(e.stdout, rep)
	}
	if !rep.OK() {
		return exitError{code: 1, msg: fmt.Sprintf("%d checks failed", rep.Failed)}
	}
	return nil
}
