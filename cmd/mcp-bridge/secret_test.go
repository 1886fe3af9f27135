package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/configs/register"
)

// TestTokenNeverPrinted: the token a bridge serves with, from its file or
// from CAD_MCP_TOKEN, never appears in what print-config, install (with
// --dry-run's new content too), uninstall and doctor print, nor in any
// file they write: a client's entry reads it from CAD_MCP_TOKEN, or
// connect from the file. Every client print-config has a URL form for,
// and every kind of install --url entry.
func TestTokenNeverPrinted(t *testing.T) {
	home, tokFile, vars := urlHome(t)
	const fromFile, fromEnv = "s3cret-token", "env-s3cret-0123456789"
	vars["USERPROFILE"] = home
	withEnv := map[string]string{"CAD_MCP_TOKEN": fromEnv}
	for k, v := range vars {
		withEnv[k] = v
	}
	var runs [][]string
	for c := range register.URLClients {
		runs = append(runs,
			[]string{"--print-config", "--client", c, "--listen", "127.0.0.1:8931", "--token-file", tokFile},
			[]string{"--print-config", "--client", c, "--listen", "0.0.0.0:8931"}, // the token from CAD_MCP_TOKEN
			[]string{"--print-config", "--client", c, "--listen", "0.0.0.0:8931", "--token-file", tokFile, "--tls-self-signed"})
	}
	for _, c := range []string{"cursor", "claude-code", "vscode", "codex", "gemini", "opencode", "claude-desktop", "windsurf"} {
		for _, url := range []string{"http://127.0.0.1:8931/mcp", "https://cad-pc:8931/mcp"} {
			args := []string{"install", "--client", c, "--url", url, "--token-file", tokFile}
			if strings.HasPrefix(url, "https://cad-pc") {
				args = append(args, "--fingerprint", "sha256:"+strings.Repeat("ab", 32))
			}
			runs = append(runs, append(append([]string(nil), args...), "--dry-run"), args)
		}
	}
	runs = append(runs, []string{"doctor"}, []string{"doctor", "--json"}, []string{"--print-config", "--token-file", tokFile}, []string{"uninstall", "--client", "all"})
	for _, args := range runs {
		for _, env := range []map[string]string{vars, withEnv} {
			out, errs, _ := runCLI(t, env, "", args...)
			for _, tok := range []string{fromFile, fromEnv} {
				if strings.Contains(out+errs, tok) {
					t.Errorf("%s printed the token %s:\n%s%s", strings.Join(args, " "), tok, out, errs)
				}
			}
		}
	}
	filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == tokFile {
			return nil
		}
		b, _ := os.ReadFile(path)
		for _, tok := range []string{fromFile, fromEnv} {
			if strings.Contains(string(b), tok) {
				t.Errorf("%s holds the token %s", path, tok)
			}
		}
		return nil
	})
}
