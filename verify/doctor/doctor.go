// Package doctor is `mcp-bridge doctor`: it checks this installation, the
// binary, the CAD base and the client configurations that register the bridge.
package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/policy"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/toolschema"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/verify/direct"
)

// Options configure Check.
type Options struct {
	Version    string
	Executable string
	Base       *tcpbase.Client
	Timeout    time.Duration       // for the base's answer, and for reading each client configuration (default 30 s)
	ServerName string              // the name clients know the bridge by, for the name-length rule
	Getenv     func(string) string // HOME, APPDATA, … (injected for tests)
	Dir        string              // the working directory, for project-level configs
	// Policy is the user's tool policy (nil: none): the tools are listed
	// and linted as clients see them, and patterns that match no tool are
	// reported.
	Policy *policy.Policy
}

// Report is what Check found.
type Report struct {
	Version    string               `json:"version"`
	Executable string               `json:"executable"`
	Base       string               `json:"base"`
	Reachable  bool                 `json:"reachable"`
	LatencyMs  float64              `json:"latency_ms,omitempty"`
	BaseError  string               `json:"base_error,omitempty"`
	Tools      []string             `json:"tools"`
	Findings   []toolschema.Finding `json:"findings"`
	Configs    []ConfigEntry        `json:"configs"`
	Policy     string               `json:"policy"`
	// Unmatched are policy patterns that match none of the base's tools
	// (usually a typo).
	Unmatched []string `json:"policy_unmatched"`
	Problems  int      `json:"problems"`
}

// ConfigEntry is one client configuration on this machine that registers
// mcp-bridge.
type ConfigEntry struct {
	Client        string `json:"client"`
	File          string `json:"file"`
	Server        string `json:"server"`
	Command       string `json:"command"`
	CommandExists bool   `json:"command_exists"`
	Problem       string `json:"problem,omitempty"`
}

// Check checks this installation: the binary, the base (reachable, how
// fast, its tools and how portable their schemas are) and the client
// configurations on this machine that register mcp-bridge.
func Check(ctx context.Context, o Options) *Report {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	rep := &Report{Version: o.Version, Executable: o.Executable, Base: o.Base.Addr, Tools: []string{}, Findings: []toolschema.Finding{}, Configs: []ConfigEntry{},
		Policy: o.Policy.Summary(), Unmatched: []string{}}
	start := time.Now()
	baseCtx, cancel := context.WithTimeout(ctx, o.Timeout)
	res, err := direct.ToolList(baseCtx, o.Base)
	cancel()
	if err != nil {
		// Reachable but failing: it answered wrongly, or too late.
		rep.Reachable = !errors.Is(err, tcpbase.ErrUnreachable)
		rep.BaseError = err.Error()
		rep.Problems++
	} else {
		rep.Reachable = true
		rep.LatencyMs = float64(time.Since(start).Microseconds()) / 1000
		var all []string
		var list struct{ Tools []struct{ Name string } }
		_ = json.Unmarshal(res, &list)
		for _, t := range list.Tools {
			all = append(all, t.Name)
		}
		if u := o.Policy.Unmatched(all); u != nil {
			rep.Unmatched = u
		}
		res = o.Policy.ApplyList(res) // the list as clients see it
		list.Tools = nil
		_ = json.Unmarshal(res, &list)
		for _, t := range list.Tools {
			rep.Tools = append(rep.Tools, t.Name)
		}
		if rep.Findings, err = toolschema.LintTools(res, o.ServerName); err != nil {
			rep.BaseError = err.Error()
			rep.Problems++
		}
		for _, f := range rep.Findings {
			if f.Severity == toolschema.SeverityError {
				rep.Problems++
			}
		}
	}
	rep.Configs = findConfigs(ctx, o)
	for _, c := range rep.Configs {
		if c.Problem != "" {
			rep.Problems++
		}
	}
	return rep
}

// knownConfigs lists where the clients keep their MCP server lists.
func knownConfigs(getenv func(string) string, dir string) [][2]string {
	home := getenv("HOME")
	if home == "" {
		home = getenv("USERPROFILE")
	}
	var out [][2]string
	add := func(client string, parts ...string) {
		for _, p := range parts {
			if p == "" {
				return
			}
		}
		out = append(out, [2]string{client, filepath.Join(parts...)})
	}
	switch runtime.GOOS {
	case "windows":
		add("Claude Desktop", getenv("APPDATA"), "Claude", "claude_desktop_config.json")
		add("VS Code", getenv("APPDATA"), "Code", "User", "mcp.json")
	case "darwin":
		add("Claude Desktop", home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
		add("VS Code", home, "Library", "Application Support", "Code", "User", "mcp.json")
	default:
		xdg := getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		add("Claude Desktop", xdg, "Claude", "claude_desktop_config.json")
		add("VS Code", xdg, "Code", "User", "mcp.json")
	}
	add("Claude Code", home, ".claude.json")
	add("CodeBuddy", home, ".codebuddy", ".mcp.json")
	add("Cursor", home, ".cursor", "mcp.json")
	add("Claude Code (project)", dir, ".mcp.json")
	add("Cursor (project)", dir, ".cursor", "mcp.json")
	add("VS Code (workspace)", dir, ".vscode", "mcp.json")
	return out
}

// findConfigs reads each known file and reports the servers in it that run
// mcp-bridge (by command name, or by CAD_MCP_* settings).
func findConfigs(ctx context.Context, o Options) []ConfigEntry {
	var out []ConfigEntry
	for _, kc := range knownConfigs(o.Getenv, o.Dir) {
		b, problem, found := readConfig(ctx, kc[1], o.Timeout)
		if !found {
			continue
		}
		if problem != "" {
			out = append(out, ConfigEntry{Client: kc[0], File: kc[1], Problem: problem})
			continue
		}
		var doc struct {
			MCPServers map[string]serverEntry `json:"mcpServers"`
			Servers    map[string]serverEntry `json:"servers"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			out = append(out, ConfigEntry{Client: kc[0], File: kc[1], Problem: "not valid JSON: " + err.Error()})
			continue
		}
		for _, servers := range []map[string]serverEntry{doc.MCPServers, doc.Servers} {
			for name, s := range servers {
				if !s.isBridge() {
					continue
				}
				e := ConfigEntry{Client: kc[0], File: kc[1], Server: name, Command: s.Command}
				e.CommandExists = commandExists(s.Command)
				if !e.CommandExists {
					e.Problem = "the command does not exist: the client cannot start the bridge (`mcp-bridge --print-config` prints the right path)"
				} else if !filepath.IsAbs(s.Command) {
					e.Problem = "the command is not an absolute path: GUI clients do not see your shell's PATH"
				}
				out = append(out, e)
			}
		}
	}
	return out
}

// maxConfig bounds a client configuration (Claude Code's holds the history
// of every project, a few MiB at most).
const maxConfig = 64 << 20

// readConfig reads a client configuration if it is a regular file of at
// most maxConfig bytes, within timeout: a FIFO or a device there would
// block doctor or feed it forever. found is false when there is no file.
func readConfig(ctx context.Context, path string, timeout time.Duration) (b []byte, problem string, found bool) {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, "", false
	case !st.Mode().IsRegular():
		return nil, "not a regular file (" + st.Mode().Type().String() + "): not read", true
	case st.Size() > maxConfig:
		return nil, fmt.Sprintf("larger than %d MiB: not read", maxConfig>>20), true
	}
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() { // left behind if the read never ends; doctor exits soon after
		f, err := os.Open(path)
		if err != nil {
			done <- read{nil, err}
			return
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxConfig+1))
		done <- read{b, err}
	}()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	select {
	case r := <-done:
		switch {
		case r.err != nil:
			return nil, "cannot be read: " + r.err.Error(), true
		case len(r.b) > maxConfig:
			return nil, fmt.Sprintf("larger than %d MiB: not read", maxConfig>>20), true
		}
		return r.b, "", true
	case <-ctx.Done():
		return nil, fmt.Sprintf("not read within %s", timeout), true
	}
}

type serverEntry struct {
	Command string            `json:"command"`
	Env     map[string]string `json:"env"`
}

func (s serverEntry) isBridge() bool {
	base := strings.TrimSuffix(strings.ToLower(filepath.Base(strings.ReplaceAll(s.Command, `\`, "/"))), ".exe")
	if base == "mcp-bridge" {
		return true
	}
	_, host := s.Env["CAD_MCP_HOST"]
	_, port := s.Env["CAD_MCP_PORT"]
	return host || port
}

func commandExists(cmd string) bool {
	if cmd == "" {
		return false
	}
	if filepath.IsAbs(cmd) {
		st, err := os.Stat(cmd)
		return err == nil && !st.IsDir()
	}
	_, err := exec.LookPath(cmd)
	return err == nil
}

// Print writes the report for people.
func Print(w io.Writer, r *Report) {
	fmt.Fprintf(w, "mcp-bridge %s\n  binary: %s\n", r.Version, r.Executable)
	switch {
	case !r.Reachable:
		fmt.Fprintf(w, "FAIL  CAD base at %s: %s\n", r.Base, r.BaseError)
		fmt.Fprintf(w, "      is the CAD program running with its MCP base enabled? (mcp-bridge sim starts a simulated one)\n")
	case r.BaseError != "":
		fmt.Fprintf(w, "FAIL  CAD base at %s: %s\n", r.Base, r.BaseError)
	default:
		fmt.Fprintf(w, "ok    CAD base at %s answers tools/list in %.1f ms\n", r.Base, r.LatencyMs)
		fmt.Fprintf(w, "ok    %d tools: %s\n", len(r.Tools), strings.Join(r.Tools, ", "))
	}
	fmt.Fprintf(w, "info  policy: %s\n", r.Policy)
	for _, u := range r.Unmatched {
		fmt.Fprintf(w, "warn  policy pattern %s matches none of the base's tools (a typo?)\n", u)
	}
	if r.Reachable && r.BaseError == "" && len(r.Findings) == 0 {
		fmt.Fprintln(w, "ok    every tool schema is portable (Inspector --strict rules) and every name fits")
	}
	for _, f := range r.Findings {
		tag := "warn "
		if f.Severity == toolschema.SeverityError {
			tag = "FAIL "
		}
		fmt.Fprintf(w, "%s tool %s: %s (%s)\n", tag, f.Tool, f.Problem, f.Path)
	}
	if len(r.Configs) == 0 {
		fmt.Fprintln(w, "info  no client configuration on this machine registers mcp-bridge yet (mcp-bridge --print-config)")
	}
	for _, c := range r.Configs {
		tag := "ok   "
		detail := "command exists"
		if c.Problem != "" {
			tag, detail = "FAIL ", c.Problem
		}
		if c.Server == "" {
			fmt.Fprintf(w, "%s %s config %s: %s\n", tag, c.Client, c.File, detail)
			continue
		}
		fmt.Fprintf(w, "%s %s registers %q in %s: %s: %s\n", tag, c.Client, c.Server, c.File, c.Command, detail)
	}
	if r.Problems > 0 {
		fmt.Fprintln(w, Plural(r.Problems, "problem"))
	} else {
		fmt.Fprintln(w, "no problems")
	}
}

// Plural is "1 problem", "2 problems".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
