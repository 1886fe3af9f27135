package desktop

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop/desktoptest"
)

// strictEnv set to 1 (make test-desktop) turns the skips for a missing
// Xvfb, xdotool, import or zenity into failures.
const strictEnv = "MCP_BRIDGE_DESKTOP_TESTS"

func need(t *testing.T, strict bool, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			if strict && os.Getenv(strictEnv) == "1" {
				t.Fatalf("%s is not installed, and %s=1 (make test-desktop installs it)", p, strictEnv)
			}
			t.Skipf("%s is not installed: the real-dialog test needs Xvfb, xdotool, ImageMagick's import and the dialog program (make test-desktop installs them)", p)
		}
	}
}

// shots is where the screenshots are kept: $MCP_BRIDGE_DESKTOP_SHOTS
// (make test-desktop: bin/desktop), else the test's artifact folder.
func shots(t *testing.T) string {
	if d := os.Getenv("MCP_BRIDGE_DESKTOP_SHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.ArtifactDir()
}

// TestDialogOnX shows the hostile question with each installed dialog
// program on a virtual display, finds it by its title, reads back the
// text the program was given, keeps a screenshot, and answers it each
// way a person can.
func TestDialogOnX(t *testing.T) {
	need(t, true, "Xvfb", "xdotool", "import")
	display := desktoptest.Xvfb(t)
	env := func(k string) string {
		if k == "DISPLAY" {
			return ":" + strconv.Itoa(display)
		}
		return ""
	}
	type action func(t *testing.T, window string)
	keys := func(k ...string) action {
		return func(t *testing.T, w string) {
			desktoptest.Xdotool(t, display, "windowfocus", "--sync", w)
			desktoptest.Xdotool(t, display, append([]string{"key"}, k...)...)
		}
	}
	// How a person chooses Run, and what Return alone does (never Run):
	// zenity's and yad's Run is a button, kdialog's an entry in a combo
	// box; Return in yad's text does nothing (then Escape).
	run := map[kind]action{zenity: keys("Tab", "Return"), kdialog: keys("Down", "Return"), yad: keys("Tab", "Tab", "Return")}
	onlyReturn := map[kind]action{zenity: keys("Return"), kdialog: keys("Return"), yad: keys("Return", "Escape")}
	cases := []struct {
		name    string
		timeout time.Duration
		act     action // nil: none
		cancel  bool   // cancel ctx once the dialog is up
		want    Answer
	}{
		{"choose Run", time.Hour, nil, false, Run},
		{"Return is Don't run", time.Hour, nil, false, DontRun},
		{"Escape", time.Hour, keys("Escape"), false, DontRun},
		{"close box", time.Hour, func(t *testing.T, w string) {
			id, _ := strconv.ParseUint(w, 10, 32)
			if err := desktoptest.CloseWindow(display, uint32(id)); err != nil {
				t.Fatal(err)
			}
		}, false, DontRun},
		{"timeout", time.Second, nil, false, TimedOut},
		{"cancelled", time.Hour, nil, true, Cancelled},
	}
	for _, k := range []kind{zenity, kdialog, yad} {
		t.Run(k.String(), func(t *testing.T) {
			need(t, k != kdialog, k.String())
			path, _ := exec.LookPath(k.String())
			p := &program{kind: k, path: path, env: childEnv(env)}
			for i, c := range cases {
				switch c.name {
				case "choose Run":
					c.act = run[k]
				case "Return is Don't run":
					c.act = onlyReturn[k]
				}
				t.Run(c.name, func(t *testing.T) {
					q := hostile
					q.Timeout = c.timeout
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					type result struct {
						a   Answer
						err error
					}
					done := make(chan result, 1)
					go func() { a, err := p.Ask(ctx, q); done <- result{a, err} }()
					if c.act == nil && !c.cancel {
						// The timeout: the program may be killed at it
						// before its window is up (kdialog, started slowly
						// on a busy machine), so no window is waited for.
						if r := <-done; r.err != nil || r.a != c.want {
							t.Errorf("Ask = %v, %v; want %v", r.a, r.err, c.want)
						}
						return
					}
					w := strings.Fields(desktoptest.Xdotool(t, display, "search", "--sync", "--onlyvisible", "--name", "^"+TitlePrefix))[0]
					if i == 0 {
						// kdialog (Qt) adds the application's name.
						if got := desktoptest.Xdotool(t, display, "getwindowname", w); got != Title(q) && !(k == kdialog && got == Title(q)+" — KDialog") {
							t.Errorf("window title %q; want %q", got, Title(q))
						}
						pid := desktoptest.Xdotool(t, display, "getwindowpid", w)
						raw, err := os.ReadFile("/proc/" + pid + "/cmdline")
						if err != nil {
							t.Fatal(err)
						}
						body, _ := Text(q)
						want := append([]string{path}, p.args(Title(q), body, q.Timeout)...)
						got := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
						if diff := cmp.Diff(want, got); diff != "" {
							t.Errorf("the program's command line (-want +got):\n%s", diff)
						}
						if onArgv := strings.Contains(string(raw), "012345678901234567890"); onArgv != (k != yad) {
							t.Errorf("an argument's value on the command line other accounts read: %v", onArgv)
						}
						shot := filepath.Join(shots(t), k.String()+".png")
						var stderr bytes.Buffer
						cmd := exec.Command("import", "-window", w, shot)
						cmd.Env, cmd.Stderr = p.env, &stderr
						if err := cmd.Run(); err != nil {
							t.Fatalf("import: %v %s", err, stderr.String())
						}
						t.Logf("screenshot: %s", shot)
					}
					if c.act != nil {
						c.act(t, w)
					}
					if c.cancel {
						cancel()
					}
					r := <-done
					if r.err != nil || r.a != c.want {
						t.Errorf("Ask = %v, %v; want %v", r.a, r.err, c.want)
					}
					id, _ := strconv.ParseUint(w, 10, 32)
					if err := desktoptest.WaitGone(display, uint32(id), false); err != nil {
						t.Errorf("after Ask returned: %v", err)
					}
				})
			}
		})
	}
}

// TestRawMarkupOnX: the escaping of each program holds by itself, for text
// that did not come through confirm's rules: raw markup, an entity, quotes,
// backslash escapes each program would read, kept as a screenshot
// (<program>-raw.png) to look at; the command line read back.
func TestRawMarkupOnX(t *testing.T) {
	need(t, true, "Xvfb", "xdotool", "import")
	display := desktoptest.Xvfb(t)
	env := func(k string) string {
		if k == "DISPLAY" {
			return ":" + strconv.Itoa(display)
		}
		return ""
	}
	const body = "<b>bold</b> <i>it</i> &amp; &lt; <span color='red'>red</span> <a href=\"x\">link</a>\n" +
		`back\slash \n \\ \t "q" 'q' $(id) <qt>` + "\n  indented  twice"
	for _, k := range []kind{zenity, kdialog, yad} {
		t.Run(k.String(), func(t *testing.T) {
			need(t, k != kdialog, k.String())
			path, _ := exec.LookPath(k.String())
			p := &program{kind: k, path: path, env: childEnv(env)}
			done := make(chan Answer, 1)
			go func() { a, _ := p.show(context.Background(), TitlePrefix+"raw", body, time.Hour); done <- a }()
			w := strings.Fields(desktoptest.Xdotool(t, display, "search", "--sync", "--onlyvisible", "--name", "^"+TitlePrefix))[0]
			raw, err := os.ReadFile("/proc/" + desktoptest.Xdotool(t, display, "getwindowpid", w) + "/cmdline")
			if err != nil {
				t.Fatal(err)
			}
			want := append([]string{path}, p.args(TitlePrefix+"raw", body, time.Hour)...)
			if diff := cmp.Diff(want, strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")); diff != "" {
				t.Errorf("command line (-want +got):\n%s", diff)
			}
			shot := filepath.Join(shots(t), k.String()+"-raw.png")
			cmd := exec.Command("import", "-window", w, shot)
			cmd.Env = p.env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("import: %v %s", err, out)
			}
			t.Logf("screenshot: %s", shot)
			desktoptest.Xdotool(t, display, "windowfocus", "--sync", w)
			desktoptest.Xdotool(t, display, "key", "Escape")
			if a := <-done; a != DontRun {
				t.Errorf("Escape: %v", a)
			}
		})
	}
}

// TestLostDisplayOnX: the display goes away while the question is open (a
// logout, dropped X forwarding): each program ends by itself, and the call
// does not run. kdialog is told to print Qt's debug messages first (far
// more than the 4 KiB of stderr the bridge keeps at either end), so that
// Qt's last words come after them, as they did when a lost display read as
// Run.
func TestLostDisplayOnX(t *testing.T) {
	need(t, true, "Xvfb", "xdotool")
	for _, k := range []kind{zenity, kdialog, yad} {
		t.Run(k.String(), func(t *testing.T) {
			need(t, k != kdialog, k.String())
			display, stop := desktoptest.XvfbStoppable(t)
			env := func(key string) string {
				if key == "DISPLAY" {
					return ":" + strconv.Itoa(display)
				}
				return ""
			}
			path, _ := exec.LookPath(k.String())
			p := &program{kind: k, path: path, env: append(childEnv(env), "QT_LOGGING_RULES=*.debug=true")}
			type result struct {
				a   Answer
				err error
			}
			done := make(chan result, 1)
			go func() { a, err := p.Ask(context.Background(), hostile); done <- result{a, err} }()
			desktoptest.Xdotool(t, display, "search", "--sync", "--onlyvisible", "--name", "^"+TitlePrefix)
			stop()
			r := <-done
			if r.a == Run {
				t.Fatalf("the display went away: %v, %v", r.a, r.err)
			}
			t.Logf("the display went away: %v, %v", r.a, r.err)
		})
	}
}
