package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/verify/checks"
)

func runVerify(ctx context.Context, e *env, args []string) error {
	fs := pflag.NewFlagSet("verify", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	host := fs.String("host", "127.0.0.1", "CAD base host (with --port: check against that base)")
	port := fs.Int("port", 0, "CAD base port; without it, a simulated base with fault tools is started")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	bridgeBin := fs.String("bridge", "", "bridge binary to check (default: this one)")
	only := fs.String("only", "", "run only the checks whose names contain this text")
	url := fs.String("url", "", "check a bridge already serving HTTP at this MCP URL (e.g. http://127.0.0.1:8931/mcp); its token from CAD_MCP_TOKEN")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, `Usage: mcp-bridge verify [flags]

Runs the bridge as a child process, exactly as an MCP client does, and checks
everything a client relies on: version negotiation, ping, tools/list and
tools/call against the base, error codes, ids, batches, base failures,
cancellation, both protocol eras, and that stdout carries nothing else.

Against your own CAD base (--port) it only reads: it calls get_drawing_info
and unknown tools, never a tool that changes the drawing, and skips the
checks that need the simulator's fault tools.

Examples:
  mcp-bridge verify                  against a simulated base (all checks)
  mcp-bridge verify --port 8080      against the CAD program on this machine
  mcp-bridge verify --json
  mcp-bridge verify --url http://127.0.0.1:8931/mcp   a bridge running with --listen

Flags:
%s`, fs.FlagUsages())
	}
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
	if *url != "" {
		rep := checks.RunHTTP(ctx, checks.HTTPOptions{URL: *url, Token: e.getenv("CAD_MCP_TOKEN"), Only: *only}, nil)
		return reportVerify(e, rep, *asJSON)
	}
	opts := checks.Options{Bridge: bin, Only: *only}
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
