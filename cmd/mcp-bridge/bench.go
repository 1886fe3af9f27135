package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/verify/bench"
)

func runBench(e *env, args []string) error {
	fs := pflag.NewFlagSet("bench", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	host := fs.String("host", "127.0.0.1", "CAD base host (with --port: measure against that base)")
	port := fs.Int("port", 0, "CAD base port; without it, a simulated base is started")
	runs := fs.Int("runs", 300, "samples per latency figure")
	calls := fs.Int("calls", 10000, "pipelined calls in the throughput run")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	bridgeBin := fs.String("bridge", "", "bridge binary to measure (default: this one), e.g. an older build")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, `Usage: mcp-bridge bench [flags]

Measures what the bridge costs: the same requests sent straight to the base
and through the bridge (a child process spoken to over pipes), alternated so
that machine drift cancels; ping while CAD is busy; start-up and exit;
pipelined throughput; memory. Against a real base (--port) it only calls
get_drawing_info and tools/list.

Flags:
%s`, fs.FlagUsages())
	}
	if done, err := parseFlags(fs, args); done {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	opts := bench.Options{Bridge: exe, Sim: exe, Runs: *runs, Calls: *calls, Log: e.stderr}
	if *bridgeBin != "" {
		opts.Bridge = *bridgeBin
	}
	if fs.Changed("port") {
		opts.Base = net.JoinHostPort(*host, strconv.Itoa(*port))
	}
	rep, err := bench.Run(opts)
	if err != nil {
		return err
	}
	if *asJSON {
		out, _ := json.MarshalIndent(rep, "", "  ")
		fmt.Fprintln(e.stdout, string(out))
		return nil
	}
	bench.Print(e.stdout, rep)
	return nil
}
