package main

import (
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
)

// listing is every file under dir, with its content.
func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

// TestNothingLeftBesideTheClientsFile: install then uninstall leaves the
// client's folder as it was: no lock file beside its config (the lock is
// in the user's cache), and the config install made, holding nothing else
// afterwards, removed (said so). A config the user added to since keeps
// what they added. uninstall says where the binary install --copy made
// stays.
func TestNothingLeftBesideTheClientsFile(t *testing.T) {
	home, env, write := doctorHome(t)
	env["XDG_CACHE_HOME"] = filepath.Join(home, ".cache")
	env["LOCALAPPDATA"] = filepath.Join(home, "AppData", "Local")
	write(".config/Claude/config.json", `{"theme":"dark"}`) // the app's own file
	folder := filepath.Join(home, ".config", "Claude")
	before := listing(t, folder)

	out, errs, code := runCLI(t, env, "", "install", "--client", "claude-desktop", "--copy")
	if code != 0 {
		t.Fatalf("install: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "its folder is not in your PATH: from a terminal, run it by its path") {
		t.Errorf("install --copy into a folder not in PATH does not say how to run the copy:\n%s", out)
	}
	if got := listing(t, folder); len(got) != 2 {
		t.Errorf("after install the folder holds %v, want the app's file and the config", slices.Sorted(maps.Keys(got)))
	}
	lockDir := clientconf.Env{OS: runtime.GOOS, Getenv: func(k string) string { return env[k] }}.LockDir()
	locks, _ := filepath.Glob(filepath.Join(lockDir, "claude_desktop_config.json-*.lock"))
	if len(locks) != 1 {
		t.Errorf("the lock is not in the user's cache: %v", locks)
	}
	out, errs, code = runCLI(t, env, "", "uninstall", "--client", "claude-desktop")
	if code != 0 || !strings.Contains(out, "the file held nothing else (install had made it): removed it too") {
		t.Errorf("uninstall: exit %d\n%s%s", code, out, errs)
	}
	if got := listing(t, folder); !maps.Equal(got, before) {
		t.Errorf("after uninstall the folder holds %v, want it as it was: %v", got, before)
	}
	copied := filepath.Join(home, ".local", "bin", "mcp-bridge")
	if filepath.Separator == '\\' {
		copied = filepath.Join(env["LOCALAPPDATA"], "Programs", "mcp-bridge", "mcp-bridge.exe")
	}
	if !strings.Contains(out, "the copy that install --copy made stays: "+copied) {
		t.Errorf("uninstall does not say where the copied binary stays (%s):\n%s", copied, out)
	}

	// The user added a server of their own: it stays, and so does the file.
	runCLI(t, env, "", "install", "--client", "claude-desktop")
	cfg := filepath.Join(folder, "claude_desktop_config.json")
	b, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, []byte(strings.Replace(string(b), `"mcpServers": {`, `"mcpServers": {"mine": {"command": "mine"},`, 1)), 0o600)
	runCLI(t, env, "", "uninstall", "--client", "claude-desktop")
	if b, err := os.ReadFile(cfg); err != nil || !strings.Contains(string(b), `"mine"`) || strings.Contains(string(b), "cad-autocad") {
		t.Errorf("a config with the user's server: %v\n%s", err, b)
	}
	for f := range listing(t, home) {
		if strings.HasSuffix(f, ".mcp-bridge-lock") {
			t.Errorf("a lock file beside a client's file: %s", f)
		}
	}
}
