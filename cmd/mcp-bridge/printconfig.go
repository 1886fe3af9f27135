package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge/streamable/tlscert"
	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
	"github.com/mcp-bridge/mcp-bridge/configs/register"
	"github.com/mcp-bridge/mcp-bridge/configs/suggest"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
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
			v = launch.EntryProgram(v)
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
		Env:     map[string]string{"CAD_MCP_HOST": f.base.Host, "CAD_MCP_PORT": strconv.Itoa(f.base.Port)},
	}, nil
}

// printConfig prints the JSON (TOML for Codex) that registers this bridge
// with a client, and on stderr the ready command for clients that have one.
func printConfig(e *env, f *bridgeFlags) error {
	if err := clientconf.CheckName(f.name); err != nil {
		return usageError{err}
	}
	if f.http.Listen != "" {
		tls := f.http.TLS
		return register.URLEntry{Client: f.client, Name: f.name, Listen: f.http.Listen, HTTPS: tls.On(), SelfSigned: tls.SelfSigned,
			TokenFrom: f.http.TokenFrom.From(), TokenFile: f.http.TokenFrom.File, Fingerprint: tlscert.Existing(tls.Dir), CertDir: tls.Dir,
			DoctorShows: tls.Dir == tlsDir(e.getenv), DidYouMean: suggest.DidYouMean}.Print(e.stdout, e.stderr)
	}
	s, err := bridgeServer(e, f)
	if err != nil {
		return err
	}
	dir, _ := os.Getwd()
	return register.PrintEntry(e.stdout, e.stderr, clientconf.Env{OS: runtime.GOOS, Getenv: e.getenv, Dir: dir}, f.client, f.name, s, suggest.DidYouMean)
}
