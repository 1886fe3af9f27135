package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/verify/demo"
)

func runDemo(e *env, args []string) error {
	fs := pflag.NewFlagSet("demo", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: mcp-bridge demo\n\nStarts a simulated CAD base, runs this binary as a bridge against it the way\nan MCP client does, and prints the exchange. Ends by itself.\n")
	}
	if done, err := parseFlags(fs, args); done {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	return demo.Run(e.stdout, exe)
}
