package main

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

func runSim(ctx context.Context, e *env, args []string) error {
	fs := pflag.NewFlagSet("sim", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	port := fs.Int("port", 8080, "TCP port to listen on (0 picks a free one)")
	addr := fs.String("addr", "", "listen address host:port (overrides --port)")
	faults := fs.Bool("faults", false, "add test-only fault_* tools that make the base misbehave on demand")
	newline := fs.Bool("newline", false, "end each answer with a newline (the real base just closes)")
	conformance := fs.Bool("conformance", false, "add the tools of the official MCP conformance suite (make test-conformance), one with x-mcp-header arguments among them")
	limitTools := fs.Bool("limit-tools", false, "add sim_slow, sim_picture and sim_listing: a long call, a picture of any size, a long listing, to try clients' limits (docs/limits.md)")
	fs.Usage = func() {
		fmt.Fprintf(e.stdout, `Usage: mcp-bridge sim [flags]

Runs a simulated CAD base: a TCP server that speaks like the base a CAD
program embeds (one JSON-RPC frame per connection, tools/list and tools/call
only), with 26 drawing tools on an in-memory drawing.

Examples:
  mcp-bridge sim --port 8080
  mcp-bridge sim --addr 127.0.0.1:0 --faults
  mcp-bridge sim --limit-tools      # and: mcp-bridge call sim_picture --args
                                    #   '{"width":2600,"height":1700}'

Flags:
%s`, usages(fs, all, nil))
	}
	if done, err := parseFlags(fs, args); done {
		return err
	}
	listen := *addr
	if listen == "" {
		if *port < 0 || *port > 65535 {
			return usageError{fmt.Errorf("--port %d: must be 0-65535", *port)}
		}
		listen = net.JoinHostPort("127.0.0.1", strconv.Itoa(*port))
	} else if _, p, err := net.SplitHostPort(listen); err != nil {
		return usageError{fmt.Errorf("--addr %q: want host:port (%v)", listen, err)}
	} else if n, err := strconv.Atoi(p); err != nil || n < 0 || n > 65535 {
		return usageError{fmt.Errorf("--addr %q: the port must be a number 0-65535", listen)}
	}
	s, err := simbase.Start(listen, simbase.Options{Faults: *faults, Newline: *newline, Conformance: *conformance, LimitTools: *limitTools})
	if err != nil {
		return fmt.Errorf("simulated base: %w", err)
	}
	// Tests and scripts read the address from this line when --port 0.
	fmt.Fprintf(e.stdout, "listening on %s\n", s.Addr())
	fmt.Fprintf(e.stderr, "mcp-bridge sim: %s; Ctrl-C stops it\n", s)
	<-ctx.Done()
	return s.Close()
}
