package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// userDirs is the environment of a user whose home is home, and where the
// clients keep per-user settings relative to it (Claude Desktop and VS
// Code): %USERPROFILE% and %APPDATA% on Windows, with a HOME elsewhere
// (Git Bash sets one) that must not be read.
func userDirs(home string) (env map[string]string, appConfig string) {
	switch runtime.GOOS {
	case "windows":
		appConfig = `AppData\Roaming`
		return map[string]string{"USERPROFILE": home, "APPDATA": filepath.Join(home, appConfig), "HOME": filepath.Join(home, "stray")}, appConfig
	case "darwin":
		return map[string]string{"HOME": home}, "Library/Application Support"
	default:
		return map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}, ".config"
	}
}

// TestInstalledUnderProgramFiles: installed as Windows installs programs,
// under a folder with a space (C:\Program Files\mcp-bridge\mcp-bridge.exe),
// --print-config names the binary by that path, a client starting exactly
// the printed command gets a working server, and doctor finds the
// registration and says the command there is mcp-bridge.
func TestInstalledUnderProgramFiles(t *testing.T) {
	port := startSim(t)
	home := tempDir(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(home, "Program Files", "mcp-bridge", "mcp-bridge")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	copyFile(t, self, exe)
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	vars, appConfig := userDirs(home)
	vars["MCP_BRIDGE_TEST_AS_MAIN"] = "1"
	environ := os.Environ()
	for k, v := range vars {
		environ = append(environ, k+"="+v)
	}

	out, err := command(environ, exe, "--print-config", "--client", "claude-desktop", "--port", port).Output()
	if err != nil {
		t.Fatalf("--print-config: %v", err)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
			Env     map[string]string
		}
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatalf("--print-config: %v\n%s", err, out)
	}
	server := cfg.MCPServers["cad-autocad"]
	if server.Command != exe {
		t.Fatalf("--print-config command %q, want %q", server.Command, exe)
	}

	// A client starts the command with the args and env it was given.
	env := environ
	for k, v := range server.Env {
		env = append(env, k+"="+v)
	}
	c := command(env, server.Command, server.Args...)
	c.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_drawing_info","arguments":{}}}` + "\r\n")
	answer, err := c.Output()
	if err != nil || !bytes.Contains(answer, []byte(`"isError":false`)) {
		t.Errorf("the printed command: %v, stdout %q", err, answer)
	}

	config := filepath.Join(home, appConfig, "Claude", "claude_desktop_config.json")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, out, 0o600); err != nil {
		t.Fatal(err)
	}
	report, _ := command(append(environ, "CAD_MCP_PORT="+port), exe, "doctor").Output()
	for _, want := range []string{
		"binary: " + exe + "\n",
		`ok    Claude Desktop registers "cad-autocad" in ` + config + ": " + exe + ": mcp-bridge ",
	} {
		if !strings.Contains(string(report), want) {
			t.Errorf("doctor output lacks %q:\n%s", want, report)
		}
	}
}

func command(env []string, name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env = env
	c.Stderr = io.Discard
	c.WaitDelay = 10 * time.Second
	return c
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestCacheDirDefault: the tool-list cache goes where the system keeps a
// user's caches: %LOCALAPPDATA% on Windows (Windows and Wine set it),
// $XDG_CACHE_HOME on Linux, ~/Library/Caches on macOS.
func TestCacheDirDefault(t *testing.T) {
	var base string
	switch runtime.GOOS {
	case "windows":
		base = os.Getenv("LOCALAPPDATA")
		if base == "" {
			t.Fatal("LOCALAPPDATA is not set")
		}
	case "darwin":
		base = filepath.Join(os.Getenv("HOME"), "Library", "Caches")
	default:
		base = filepath.Join(tempDir(t), "xdg-cache")
		t.Setenv("XDG_CACHE_HOME", base)
	}
	help, _, _ := runCLI(t, nil, "", "help", "base")
	// As typed: unquoted, each backslash single.
	if want := filepath.Join(base, "mcp-bridge"); !strings.Contains(help, "--cache-dir folder") || !strings.Contains(help, "(default "+want+")") {
		t.Errorf("help base does not give the cache directory default %s:\n%s", want, help)
	}
}
