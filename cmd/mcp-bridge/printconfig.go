package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
	"github.com/mcp-bridge/mcp-bridge/configs/register"
)

// notSettings are flags of --print-config and install themselves, never
// passed on to the registered bridge.
var notSettings = map[string]bool{"host": true, "port": true, "print-config": true, "name": true, "client": true, "version": true, "scope": true, "dry-run": true, "copy": true}

// pathFlags hold file names: made absolute, since GUI clients start the
// bridge in a folder of their own choosing (/ on macOS).
var pathFlags = map[string]bool{"log-file": true, "cache-dir": true, "token-file": true}

// bridgeServer is how a client should start this bridge with these
// settings: this executable's absolute path (GUI clients do not inherit
// the shell's PATH), host and port in env, the other non-default flags in
// args. --cache-dir is passed only when given: its default depends on the
// user.
func bridgeServer(e *env, f *bridgeFlags) (clientconf.Server, error) {
	exe, err := clientconf.Executable(e.argv0, exec.LookPath, os.Executable)
	if err != nil {
		return clientconf.Server{}, fmt.Errorf("finding this executable: %w", err)
	}
	var names []string
	f.fs.VisitAll(func(fl *pflag.Flag) {
		if notSettings[fl.Name] {
			return
		}
		if fl.Value.String() != fl.DefValue || fl.Name == "cache-dir" && fl.Changed {
			names = append(names, fl.Name)
		}
	})
	sort.Strings(names)
	args := []string{}
	for _, n := range names {
		fl := f.fs.Lookup(n)
		v := fl.Value.String()
		if sv, ok := fl.Value.(pflag.SliceValue); ok { // --launch-arg: one flag per value
			for _, e := range sv.GetSlice() {
				args = append(args, "--"+n, e)
			}
			continue
		}
		switch {
		case n == "launch":
			v = entryProgram(v)
		case fl.Value.Type() == "bool":
			args = append(args, "--"+n)
			continue
		case pathFlags[n] && v != "":
			if abs, err := filepath.Abs(v); err == nil {
				v = abs
			}
		}
		args = append(args, "--"+n, v)
	}
	return clientconf.Server{
		Command: exe,
		Args:    args,
		Env:     map[string]string{"CAD_MCP_HOST": f.host, "CAD_MCP_PORT": strconv.Itoa(f.port)},
	}, nil
}

// printConfig prints the JSON (TOML for Codex) that registers this bridge
// with a client, and on stderr the ready command for clients that have one.
func printConfig(e *env, f *bridgeFlags) error {
	if err := clientconf.CheckName(f.name); err != nil {
		return usageError{err}
	}
	if f.listen != "" {
		return printURLConfig(e, f)
	}
	c := clientconf.Lookup(f.client)
	switch f.client {
	case "generic", "inspector":
		c = &clientconf.Client{ID: f.client, Type: "stdio"}
	case "":
		c = nil
	}
	if c == nil {
		return usageError{fmt.Errorf("--client %q%s: want generic, inspector, %s", f.client, didYouMean(f.client, append([]string{"generic", "inspector"}, clientconf.IDs()...)), strings.Join(clientconf.IDs(), ", "))}
	}
	s, err := bridgeServer(e, f)
	if err != nil {
		return err
	}
	dir, _ := os.Getwd()
	installed := c.ID
	if clientconf.Lookup(c.ID) == nil {
		installed = "…"
	}
	warnTransient(e, clientconf.Env{OS: runtime.GOOS, Getenv: e.getenv, Dir: dir}, s.Command, "install --copy --client "+installed)
	doc, err := clientconf.Document(c, f.name, s)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, doc)
	entry, _ := clientconf.Marshal(clientconf.EntryJSON(c, s), "")
	if c.Paste != "" {
		fmt.Fprintf(e.stderr, "%s has no file to install into: paste this in %s\n", c.Name, c.Paste)
	}
	switch c.ID {
	case "claude-code":
		fmt.Fprintf(e.stderr, "or run:\n  claude mcp add-json --scope user %s %s\n", f.name, register.ShellQuote(entry))
	case "vscode", "vscode-insiders":
		named, _ := clientconf.Marshal(append(clientconf.Named(f.name), clientconf.EntryJSON(c, s)...), "")
		code := map[string]string{"vscode": "code", "vscode-insiders": "code-insiders"}[c.ID]
		fmt.Fprintf(e.stderr, "or run:\n  %s --add-mcp %s\n", code, register.ShellQuote(named))
	}
	return nil
}
