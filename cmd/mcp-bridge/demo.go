package main

import (
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/verify/demo"
)

func runDemo(e *env, args []string) error {
	fs := pflag.NewFlagSet("demo", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	host := fs.String("host", "127.0.0.1", "CAD base host (with --port)")
	port := fs.Int("port", 0, "tell the story against the CAD base on this port instead of a simulated one")
	out := fs.String("out", ".", "with --port: the directory for the saved drawing and its picture")
	fs.Usage = func() {
		fmt.Fprintf(e.stdout, "Usage: mcp-bridge demo [--port N [--out DIR]]\n\nStarts a simulated CAD base, runs this binary as a bridge against it the way\nan MCP client does, and prints the exchange. Ends by itself.\n\nWith --port, tells the story against that base instead (make demo-freecad:\nreal FreeCAD), drawing a part and saving it and its picture into --out.\n\nFlags:\n%s", usages(fs, all, nil))
	}
	if done, err := parseFlags(fs, args); done {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if fs.Changed("port") {
		return demo.RunBase(e.stdout, exe, net.JoinHostPort(*host, strconv.Itoa(*port)), *out)
	}
	return demo.Run(e.stdout, exe)
}
