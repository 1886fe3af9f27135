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

const benchUsage = `Usage: mcp-bridge bench [flags]

Measures what the bridge costs: the same requests sent straight to the base,
through the floor (the least any relay must do: read a line, dial the base,
write it, read the whole answer, write it back; built from verify/bench/floor
with the go command) and through the bridge (a child process spoken to over
pipes, or over HTTP), in turns so that machine drift cancels; ping while CAD
is busy; start-up and exit; pipelined throughput (also against a base that
answers at once); memory, and with --symbols where the idle RSS goes
(/proc/PID/smaps and pagemap, the binary's sections and symbols). Every figure is
measured --rounds times; the table has the medians and each one's ratio to
the floor's and to the direct call's. Against a real base (--port) it only
calls get_drawing_info and tools/list.

Flags:
%s`

// runBench is the bench command: verify/bench's figures.
func runBench(e *env, args []string) error {
	fs := pflag.NewFlagSet("bench", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	host := fs.String("host", "127.0.0.1", "CAD base host (with --port: measure against that base)")
	port := fs.Int("port", 0, "CAD base port; without it, a simulated base is started")
	rounds := fs.Int("rounds", 3, "times each figure is measured (the median is reported)")
	runs := fs.Int("runs", 300, "samples per latency figure and round")
	calls := fs.Int("calls", 10000, "pipelined calls in the throughput run")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	bridgeBin := fs.String("bridge", "", "bridge binary to measure (default: this one)")
	against := fs.StringArray("against", nil, "another bridge binary measured beside it in the same run, e.g. an older build (repeatable)")
	goCmd := fs.String("go", "go", "the go command that builds the floor relay")
	symbols := fs.String("symbols", "", "a build of the bridge with its symbols (without -s -w): account for its idle RSS by kind of page, section and package")
	doc := fs.String("doc", "", "write the report between the marks of this markdown file (make bench: docs/performance.md)")
	fs.Usage = func() { fmt.Fprintf(e.stdout, benchUsage, usages(fs, all, nil)) }
	if done, err := parseFlags(fs, args); done {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	opts := bench.Options{Bridge: exe, Others: *against, Sim: exe, Go: *goCmd, Rounds: *rounds, Runs: *runs, Calls: *calls, Symbols: *symbols, Log: e.stderr}
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
	if *doc != "" {
		if err := bench.WriteDoc(*doc, rep); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "bench: the figures are written in %s\n", *doc)
	}
	if *asJSON {
		out, _ := json.MarshalIndent(rep, "", "  ")
		fmt.Fprintln(e.stdout, string(out))
		return nil
	}
	bench.Print(e.stdout, rep)
	return nil
}
