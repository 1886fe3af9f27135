package verify

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop/desktoptest"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// desktopEnv set to 1 (make test-desktop, make test-windows) turns the
// skips for a missing Xvfb, xdotool, import or zenity into failures.
const desktopEnv = "MCP_BRIDGE_DESKTOP_TESTS"

// desktopExeEnv names a command that runs the Windows bridge (a script
// running mcp-bridge.exe under Wine: .ci/windows/test.sh): the test then
// drives it instead of the Linux binary, and the question is a Win32
// message box on Wine's X display.
const desktopExeEnv = "MCP_BRIDGE_DESKTOP_E2E_COMMAND"

// titlePrefix begins every dialog of the bridge's (desktop.TitlePrefix),
// written out: the test checks what the user sees.
const titlePrefix = "mcp-bridge — confirm "

// hostileNote is an argument the base ignores, holding what a dialog
// program could read as markup, an entity, a quote, an escape, a shell
// substitution, a line break and a right-to-left override.
const hostileNote = "<b>x</b> &amp; \"q\" \\ $(rm) \u202e\nline 2"

// TestDesktopConfirm is the bridge's desktop question end to end, as a
// person sees it: the real bridge binary started by a real MCP client (the
// official Go SDK, which declares no elicitation), a policy with confirm
// ["delete_*"], a virtual X display. The client draws a line and asks to
// delete it; the dialog is found by its title, photographed, its text
// read back from the dialog program's command line, and answered each
// way a person can (or left to time out, or withdrawn by the client).
// Only "Run" sends the call to the base, once; every other way the client
// gets an error result saying why, and the line is still in the drawing.
// With MCP_BRIDGE_DESKTOP_E2E_COMMAND (make test-windows) the same with
// mcp-bridge.exe under Wine, the question a Win32 message box; its text is
// not read back here (no command line holds it): bridge/guard/confirm/desktop's
// TestMessageBox reads it from the box under Wine.
func TestDesktopConfirm(t *testing.T) {
	wine := os.Getenv(desktopExeEnv)
	tools := []string{"Xvfb", "xdotool", "import"}
	if wine == "" {
		tools = append(tools, "zenity")
	}
	for _, p := range tools {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv(desktopEnv) == "1" {
				t.Fatalf("%s is not installed, and %s=1 (make test-desktop installs it)", p, desktopEnv)
			}
			t.Skipf("%s is not installed: the desktop test needs Xvfb, xdotool, ImageMagick's import and zenity (make test-desktop installs them)", p)
		}
	}
	if os.Getenv(desktopEnv) != "1" {
		t.Skipf("a real dialog on a virtual display: set %s=1 (make test-desktop)", desktopEnv)
	}
	display := desktoptest.Xvfb(t)
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	_, port, _ := net.SplitHostPort(sim.Addr())
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(policy, []byte(`{"confirm":["delete_*"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if wine != "" {
		// Under Wine the bridge reads the policy through Z:, Wine's /.
		policy = "Z:" + strings.ReplaceAll(policy, "/", `\`)
	}
	shots := os.Getenv("MCP_BRIDGE_DESKTOP_SHOTS")
	if shots == "" {
		shots = filepath.Join("..", "bin", "desktop-e2e")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	type act func(t *testing.T, window string, cancel func())
	keys := func(k ...string) act {
		return func(t *testing.T, w string, _ func()) {
			desktoptest.Xdotool(t, display, "windowfocus", "--sync", w)
			desktoptest.Xdotool(t, display, append([]string{"key"}, k...)...)
		}
	}
	closeBox := func(t *testing.T, w string, _ func()) {
		id, _ := strconv.ParseUint(w, 10, 32)
		if err := desktoptest.CloseWindow(display, uint32(id)); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name    string
		timeout string // --confirm-timeout
		act     act
		cancel  bool   // the client withdraws the call (notifications/cancelled)
		why     string // in the refusal; "" when it runs
	}{
		// zenity's and the message box's default button is "Don't run":
		// Tab moves to "Run".
		{"Run", "1h", keys("Tab", "Return"), false, ""},
		{"Don't run", "1h", keys("Return"), false, "you declined it on the desktop"},
		{"Escape", "1h", keys("Escape"), false, "you declined it on the desktop"},
		{"close box", "1h", closeBox, false, "you declined it on the desktop"},
		{"timeout", "1s", nil, false, "nobody answered the question on the desktop within 1s"},
		{"client cancels", "1h", func(_ *testing.T, _ string, cancel func()) { cancel() }, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, stop := context.WithTimeout(context.Background(), 2*time.Minute)
			defer stop()
			name, args := bridgeBin, []string{}
			if wine != "" {
				name = wine
			}
			args = append(args, "--port", port, "--policy", policy, "--confirm-timeout", c.timeout, "--no-cache", "--log-level", "debug")
			cmd := exec.Command(name, args...)
			cmd.Env = append(os.Environ(), "DISPLAY=:"+strconv.Itoa(display))
			var stderr LockedBuffer
			cmd.Stderr = &stderr
			client := mcp.NewClient(&mcp.Implementation{Name: "desktop-e2e", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			defer func() {
				if t.Failed() {
					t.Logf("bridge log:\n%s", stderr.String())
				}
			}()

			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "draw_line", Arguments: map[string]any{
				"start": map[string]any{"x": 0, "y": 0}, "end": map[string]any{"x": 10, "y": 0}}})
			if err != nil || res.IsError {
				t.Fatalf("draw_line: %v %+v", err, res)
			}
			m := regexp.MustCompile(`^Line (\w+) drawn `).FindStringSubmatch(resultText(res))
			if m == nil {
				t.Fatalf("draw_line said %q", resultText(res))
			}
			handle := m[1]
			before := sim.Calls()

			// The base refuses an argument it does not know: the call
			// that runs has only its handles; the others carry the note too.
			runs := c.why == "" && !c.cancel
			arguments := map[string]any{"handles": []string{handle}}
			noteLine := ""
			if !runs {
				arguments["note"] = hostileNote
				// Shown as written: markup, the entity, the quote and
				// the backslash as sent; the bidirectional mark and the
				// line break, which could hide or fake a line, escaped.
				noteLine = "\n" + `  note: "<b>x</b> &amp; \"q\" \\ $(rm) \u202e\nline 2"`
			}
			callCtx, cancel := context.WithCancel(ctx)
			defer cancel()
			type answer struct {
				res *mcp.CallToolResult
				err error
			}
			done := make(chan answer, 1)
			go func() {
				res, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "delete_entities", Arguments: arguments})
				done <- answer{res, err}
			}()
			w := strings.Fields(desktoptest.Xdotool(t, display, "search", "--sync", "--onlyvisible", "--name", "^"+titlePrefix))[0]
			if got, want := desktoptest.Xdotool(t, display, "getwindowname", w), titlePrefix+"delete_entities"; got != want {
				t.Errorf("window title %q; want %q", got, want)
			}
			shot := filepath.Join(shots, "e2e-"+map[bool]string{true: "wine-"}[wine != ""]+strings.ReplaceAll(c.name, " ", "-")+".png")
			screenshot(t, display, w, shot)
			t.Logf("screenshot: %s", shot)
			if wine == "" {
				// What zenity was told to show, as plain text
				// (--no-markup): the dialog's text exactly.
				want := "desktop-e2e (through the bridge cad-autocad) wants to run delete_entities on your drawing.\n\n" +
					"Arguments:\n" +
					"  handles: [\"" + handle + "\"]" + noteLine + "\n\n" +
					"Run it?"
				zargs := zenityArgs(t, display, w, cmd.Process.Pid)
				if !slices.Contains(zargs, "--no-markup") {
					t.Errorf("zenity not told --no-markup: %q", zargs)
				}
				if diff := cmp.Diff("--text="+want, argWithPrefix(zargs, "--text=")); diff != "" {
					t.Errorf("the dialog's text (-want +got):\n%s", diff)
				}
				for _, a := range []string{"--ok-label=Run", "--cancel-label=Don't run", "--default-cancel"} {
					if !slices.Contains(zargs, a) {
						t.Errorf("zenity not given %s: %q", a, zargs)
					}
				}
			}
			acted := time.Now()
			if c.act != nil {
				c.act(t, w, cancel)
			}
			a := <-done
			id, _ := strconv.ParseUint(w, 10, 32)
			if err := desktoptest.WaitGone(display, uint32(id), wine != ""); err != nil {
				t.Fatalf("the dialog after the call ended: %v", err) // the session's later calls would wait behind it
			}
			t.Logf("the dialog was gone %s after the answer (or the cancel)", time.Since(acted).Round(time.Millisecond))
			switch {
			case runs:
				if a.err != nil || a.res.IsError || resultText(a.res) != "Deleted 1 entity." {
					t.Errorf("after Run the client got %v %q; want the base's answer", a.err, resultText(a.res))
				}
			case c.cancel:
				if !errors.Is(a.err, context.Canceled) {
					t.Errorf("the cancelled call returned %v %q", a.err, resultText(a.res))
				}
			default:
				want := "delete_entities was not run: " + c.why + ". Nothing was sent to CAD."
				if a.err != nil || !a.res.IsError || resultText(a.res) != want {
					t.Errorf("the client got %v %q (isError %v); want an error result %q", a.err, resultText(a.res), a.res != nil && a.res.IsError, want)
				}
			}
			// The session goes on; what the drawing holds now tells what ran.
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_entities", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Fatalf("list_entities: %v %+v", err, res)
			}
			ran := int(sim.Calls() - before - 1)
			still := strings.Contains(resultText(res), handle)
			if wantRan := runs; wantRan != (ran == 1) || ran > 1 || still == wantRan {
				t.Errorf("the base ran delete_entities %d times (want %d), line %s still drawn: %v; list_entities: %q",
					ran, map[bool]int{true: 1}[wantRan], handle, still, resultText(res))
			}
		})
	}
}

// screenshot writes window's picture to file (ImageMagick's import).
func screenshot(t *testing.T, display int, window, file string) {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command("import", "-window", window, file)
	cmd.Env = append(os.Environ(), "DISPLAY=:"+strconv.Itoa(display))
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("import: %v %s", err, stderr.String())
	}
}

// zenityArgs is the command line of the program that owns window, which
// must be zenity started by the bridge (process bridgePID).
func zenityArgs(t *testing.T, display int, window string, bridgePID int) []string {
	t.Helper()
	pid := desktoptest.Xdotool(t, display, "getwindowpid", window)
	raw, err := os.ReadFile("/proc/" + pid + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
	if filepath.Base(args[0]) != "zenity" {
		t.Fatalf("the dialog is %q's, not zenity's", args)
	}
	status, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(status), "\nPPid:\t"+strconv.Itoa(bridgePID)+"\n") {
		t.Errorf("the dialog's process %s is not the bridge's (%d) child:\n%s", pid, bridgePID, status)
	}
	return args[1:]
}

func argWithPrefix(args []string, prefix string) string {
	for _, a := range args {
		if strings.HasPrefix(a, prefix) {
			return a
		}
	}
	return ""
}

func resultText(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	if text == nil {
		return ""
	}
	return text.Text
}
