package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/spf13/pflag"
)

// printConfig prints the JSON that registers this bridge with a client. The
// command is this executable's absolute path: GUI clients do not inherit
// the shell's PATH. Host and port travel in env; other non-default flags in
// args.
func printConfig(e *env, f *bridgeFlags) error {
	if f.listen != "" {
		return printURLConfig(e, f)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this executable: %w", err)
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	args := []string{}
	// The cache directory's default depends on the user: never pin it.
	skip := map[string]bool{"host": true, "port": true, "print-config": true, "name": true, "client": true, "version": true, "cache-dir": true}
	var names []string
	f.fs.VisitAll(func(fl *pflag.Flag) {
		if !skip[fl.Name] && fl.Value.String() != fl.DefValue {
			names = append(names, fl.Name)
		}
	})
	sort.Strings(names)
	for _, n := range names {
		fl := f.fs.Lookup(n)
		if fl.Value.Type() == "bool" {
			args = append(args, "--"+n)
		} else {
			args = append(args, "--"+n, fl.Value.String())
		}
	}
	server := map[string]any{
		"command": exe,
		"args":    args,
		"env":     map[string]string{"CAD_MCP_HOST": f.host, "CAD_MCP_PORT": strconv.Itoa(f.port)},
	}
	var doc any
	switch f.client {
	case "generic", "codebuddy", "cursor", "inspector", "claude-code":
		server["type"] = "stdio"
		doc = map[string]any{"mcpServers": map[string]any{f.name: server}}
	case "claude-desktop":
		doc = map[string]any{"mcpServers": map[string]any{f.name: server}}
	case "vscode":
		server["type"] = "stdio"
		doc = map[string]any{"servers": map[string]any{f.name: server}}
	default:
		return usageError{fmt.Errorf("--client %q: want generic, claude-desktop, claude-code, codebuddy, cursor, vscode or inspector", f.client)}
	}
	out, _ := json.MarshalIndent(doc, "", "  ")
	fmt.Fprintln(e.stdout, string(out))
	return nil
}
