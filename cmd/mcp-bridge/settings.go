package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
)

// settings applies the one rule for every setting: the command line, else
// its CAD_MCP_<NAME> variable, else the default. It remembers which of the
// three each setting came from, so that messages name what the user set
// and doctor can say where each value came from.
type settings struct {
	fs     *pflag.FlagSet
	getenv func(string) string
	env    map[string]bool // the settings read from their variable
}

// settingGroups are settings that together choose one thing: any of them
// on the command line decides the whole choice there, and the others'
// variables are not read. Otherwise --tls-self-signed on the command line
// with CAD_MCP_TLS_CERT in the environment was "both", and --tls-cert
// with CAD_MCP_TLS_KEY paired one certificate with another's key.
var settingGroups = [][]string{{"tls-cert", "tls-key", "tls-self-signed"}, {"fingerprint", "ca"}, {"launch", "launch-arg"}}

// readSettings sets each flag of fs named in names (nil: every flag but
// the action flags) that the command line did not give from its variable.
// A value a client passed through unfilled ("${user_config.port}") leaves
// the setting unset.
func readSettings(fs *pflag.FlagSet, getenv func(string) string, names []string) (*settings, error) {
	s := &settings{fs: fs, getenv: getenv, env: map[string]bool{}}
	if names == nil {
		fs.VisitAll(func(fl *pflag.Flag) {
			if !actionFlags[fl.Name] && !telemetryFlagNames[fl.Name] {
				names = append(names, fl.Name)
			}
		})
	}
	for _, name := range names {
		fl := fs.Lookup(name)
		if fl == nil || s.onCommandLine(name) {
			continue
		}
		key := envName(name)
		v := getenv(key)
		if v == "" || clientconf.Unsubstituted(v) {
			continue
		}
		// Value.Set, not fs.Set: Changed stays "on the command line". A
		// setting whose variable is read its own way (a list) says so.
		set := fl.Value.Set
		if ev, ok := fl.Value.(interface{ SetFromEnv(string) error }); ok {
			set = ev.SetFromEnv
		}
		if err := set(v); err != nil {
			return nil, fmt.Errorf("environment %s=%q: %v", key, v, err)
		}
		s.env[name] = true
	}
	return s, nil
}

// onCommandLine: the command line gave the flag, or another of its group.
func (s *settings) onCommandLine(name string) bool {
	if s.fs.Changed(name) {
		return true
	}
	for _, g := range settingGroups {
		for _, m := range g {
			if m != name {
				continue
			}
			for _, o := range g {
				if s.fs.Lookup(o) != nil && s.fs.Changed(o) {
					return true
				}
			}
		}
	}
	return false
}

// name is what to call the setting in a message: "--policy" when it came
// from the command line or is the default, "CAD_MCP_POLICY" when it came
// from the environment. A nil s (settings not read) is the flag.
func (s *settings) name(flag string) string {
	if s != nil && s.env[flag] {
		return envName(flag)
	}
	return "--" + flag
}

// from says where the setting came from: "--port", "CAD_MCP_PORT" or
// "default".
func (s *settings) from(flag string) string {
	switch {
	case s.fs.Lookup(flag) != nil && s.fs.Changed(flag):
		return "--" + flag
	case s.env[flag]:
		return envName(flag)
	}
	return "default"
}

// tokenVar holds the bearer token itself, beside --token-file and its
// CAD_MCP_TOKEN_FILE.
const tokenVar = clientconf.TokenVar

// token is the bearer token and where it came from: --token-file on the
// command line (even empty: no token), else CAD_MCP_TOKEN, else
// CAD_MCP_TOKEN_FILE. from is "--token-file PATH", "CAD_MCP_TOKEN" or
// "CAD_MCP_TOKEN_FILE PATH"; both are "" for no token. The token is never
// in from, nor in an error.
func (s *settings) token(file string) (token, from string, err error) {
	if !s.fs.Changed("token-file") {
		if t := strings.TrimSpace(s.getenv(tokenVar)); t != "" {
			if err := checkToken(t); err != nil {
				return "", "", fmt.Errorf("%s %w", tokenVar, err)
			}
			return t, tokenVar, nil
		}
	}
	if file == "" {
		return "", "", nil
	}
	from = s.name("token-file") + " " + file
	// A token is one short line.
	raw, err := readSmallFile(s.name("token-file"), file, maxTokenFile, "a token file")
	if err != nil {
		return "", "", err
	}
	// Windows editors may start a UTF-8 file with a byte order mark: it
	// is not part of the token.
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	t, _, _ := strings.Cut(string(raw), "\n")
	t = strings.TrimSpace(t)
	if t == "" {
		return "", "", fmt.Errorf("%s is empty", from)
	}
	if err := checkToken(t); err != nil {
		return "", "", fmt.Errorf("%s %w", from, err)
	}
	return t, from, nil
}

// tokenFrom is where token would take the token from, without reading the
// file: for install and doctor.
func (s *settings) tokenFrom(file string) string {
	switch {
	case !s.fs.Changed("token-file") && strings.TrimSpace(s.getenv(tokenVar)) != "":
		return tokenVar
	case file != "":
		return s.name("token-file") + " " + file
	}
	return ""
}
