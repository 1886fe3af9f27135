package desktop

import (
	"bytes"
	"context"
	"fmt"
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

// TestTypedAheadNeverRunsOnX: the dialog opens, and takes the keyboard,
// while the user is typing elsewhere: at the CAD program's command line
// (a --listen bridge asks on the CAD machine's desktop), a command and
// Return. Keys meant for another window are no choice of Run: the call
// must not run. kdialog's combo box selects the entry a typed letter
// starts (Qt's keyboard search, case-insensitive): REGEN, ROTATE, REDO
// or RECTANG typed and Return selected "Run" and pressed OK. Words
// starting with either entry's first letter, in either case, with a
// space (which opens kdialog's list) and digits.
func TestTypedAheadNeverRunsOnX(t *testing.T) {
	need(t, true, "Xvfb", "xdotool")
	display := desktoptest.Xvfb(t)
	env := func(k string) string {
		if k == "DISPLAY" {
			return ":" + strconv.Itoa(display)
		}
		return ""
	}
	for _, k := range []kind{zenity, kdialog, yad} {
		for _, word := range []string{"REGEN", "rotate", "DIST", "ROTATE 45"} {
			t.Run(k.String()+"/"+word, func(t *testing.T) {
				need(t, k != kdialog, k.String())
				path, _ := exec.LookPath(k.String())
				p := &program{kind: k, path: path, env: childEnv(env)}
				done := make(chan Answer, 1)
				go func() {
					a, _ := p.Ask(context.Background(), Question{Tool: "delete_all", Args: []byte(`{"layer":"walls"}`), Timeout: time.Hour})
					done <- a
				}()
				w := strings.Fields(desktoptest.Xdotool(t, display, "search", "--sync", "--onlyvisible", "--name", "^"+TitlePrefix))[0]
				desktoptest.Xdotool(t, display, "windowfocus", "--sync", w)
				keys := []string{"key", "--delay", "50"}
				for _, c := range word {
					if c == ' ' {
						keys = append(keys, "space")
					} else {
						keys = append(keys, string(c))
					}
				}
				// Return ends the command; Escape then closes a dialog
				// that is still open (yad's: Return does nothing in its text).
				desktoptest.Xdotool(t, display, append(keys, "Return", "Escape")...)
				if a := <-done; a == Run {
					t.Errorf("%s, %q and Return typed for another window: %v", k, word, a)
				}
			})
		}
	}
}

// TestEveryArgumentInViewOnX: the dialog shows every argument of the
// question, none of it out of view, or, when they cannot all fit on the
// screen, says so with a scroll bar. The assistant picks the names and
// values: eight harmless notes of 198 characters sort before "zz_erase":
// "EVERYTHING". yad's text (a scrolling view of a fixed 560×420) showed
// the first four notes and no scroll bar (GTK draws it only once the
// pointer moves over the text): the fifth to eighth, the one that
// mattered and "Run it?" lay below, and Run was one click away. Checked
// by what the user could do to see more: Ctrl+End in the text changes
// nothing on screen when all of it is in view (zenity's label, yad's text
// sized to it). The question with the most arguments the rules let
// through (some 230 of one line each) cannot fit any screen: yad's
// window stays within it, and its scroll bar is drawn from the start
// (where the scroll bar goes, its picture is not that of a question that
// fits). kdialog is left out: Ctrl+End picks the last entry of its combo
// box.
func TestEveryArgumentInViewOnX(t *testing.T) {
	need(t, true, "Xvfb", "xdotool", "import")
	display := desktoptest.Xvfb(t)
	env := func(k string) string {
		if k == "DISPLAY" {
			return ":" + strconv.Itoa(display)
		}
		return ""
	}
	// The pointer away from where the dialogs open: over a scrolled text,
	// GTK would draw its scroll bar anyway.
	desktoptest.Xdotool(t, display, "mousemove", "1279", "799")
	notes := func(n int) Question {
		var args []string
		for i := range n {
			args = append(args, fmt.Sprintf(`"a%d_note":"%s"`, i, strings.Repeat("fine and harmless ", 11)))
		}
		args = append(args, `"zz_erase":"EVERYTHING"`)
		return Question{Client: "Claude Desktop", Tool: "delete_entities", Args: []byte("{" + strings.Join(args, ",") + "}"), Timeout: time.Hour}
	}
	most := mostArguments(t)
	// show opens q's dialog and returns its window, a picture of it once
	// drawn (two alike in a row, kept as a screenshot named name) and a
	// function that takes another; end closes it.
	type dialog struct {
		window string
		w, h   int
		first  []byte
		shot   func() []byte
		end    func()
	}
	show := func(t *testing.T, k kind, q Question, name string) dialog {
		t.Helper()
		if _, err := Text(q); err != nil {
			t.Fatal(err)
		}
		path, _ := exec.LookPath(k.String())
		p := &program{kind: k, path: path, env: childEnv(env)}
		done := make(chan Answer, 1)
		go func() { a, _ := p.Ask(context.Background(), q); done <- a }()
		d := dialog{window: strings.Fields(desktoptest.Xdotool(t, display, "search", "--sync", "--onlyvisible", "--name", "^"+TitlePrefix))[0]}
		desktoptest.Xdotool(t, display, "windowfocus", "--sync", d.window)
		geo := desktoptest.Xdotool(t, display, "getwindowgeometry", "--shell", d.window)
		for _, l := range strings.Fields(geo) {
			if v, ok := strings.CutPrefix(l, "WIDTH="); ok {
				d.w, _ = strconv.Atoi(v)
			}
			if v, ok := strings.CutPrefix(l, "HEIGHT="); ok {
				d.h, _ = strconv.Atoi(v)
			}
		}
		dir := t.TempDir()
		n := 0
		d.shot = func() []byte {
			n++
			f := filepath.Join(dir, fmt.Sprintf("%d.rgb", n))
			cmd := exec.Command("import", "-window", d.window, "rgb:"+f)
			cmd.Env = p.env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("import: %v %s", err, out)
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		d.first = d.shot()
		for range 50 {
			next := d.shot()
			if bytes.Equal(next, d.first) {
				break
			}
			d.first = next
		}
		shot := filepath.Join(shots(t), name+".png")
		cmd := exec.Command("import", "-window", d.window, shot)
		cmd.Env = p.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("import: %v %s", err, out)
		}
		t.Logf("screenshot: %s", shot)
		d.end = func() {
			desktoptest.Xdotool(t, display, "key", "Escape")
			<-done
		}
		return d
	}
	allInView := func(t *testing.T, k kind, d dialog) {
		t.Helper()
		desktoptest.Xdotool(t, display, "key", "ctrl+End")
		for range 10 {
			if !bytes.Equal(d.shot(), d.first) {
				t.Errorf("%s: Ctrl+End scrolled the question: part of it was out of view", k)
				break
			}
		}
	}
	for _, k := range []kind{zenity, yad} {
		for _, n := range []int{0, 8} {
			t.Run(fmt.Sprintf("%s/%d notes", k, n), func(t *testing.T) {
				need(t, true, k.String())
				d := show(t, k, notes(n), fmt.Sprintf("%s-%d-notes", k, n))
				defer d.end()
				allInView(t, k, d)
			})
		}
	}
	t.Run(fmt.Sprintf("yad/%d arguments", bytes.Count(most.Args, []byte(":"))), func(t *testing.T) {
		need(t, true, "yad")
		short := show(t, yad, notes(0), "yad-0-notes")
		short.end()
		d := show(t, yad, most, "yad-most-arguments")
		defer d.end()
		const screenW, screenH = 1280, 800 // desktoptest.Xvfb's
		if d.w > screenW || d.h > screenH {
			t.Errorf("a window of %d×%d on a screen of %d×%d", d.w, d.h, screenW, screenH)
		}
		// The scroll bar's place: the right of the text, above the
		// buttons, in both windows (as wide as each other).
		if d.w != short.w {
			t.Fatalf("windows %d and %d wide", d.w, short.w)
		}
		strip := func(pic []byte) []byte {
			var b []byte
			for y := 8; y < short.h-70; y++ {
				b = append(b, pic[3*(y*d.w+d.w-24):3*(y*d.w+d.w-2)]...)
			}
			return b
		}
		if len(d.first) < 3*d.w*d.h || len(short.first) < 3*short.w*short.h {
			t.Fatalf("pictures of %d and %d bytes", len(d.first), len(short.first))
		}
		if bytes.Equal(strip(d.first), strip(short.first)) {
			t.Errorf("no scroll bar drawn beside a question that does not fit")
		}
		desktoptest.Xdotool(t, display, "key", "ctrl+End")
		moved := false
		for range 10 {
			if !bytes.Equal(d.shot(), d.first) {
				moved = true
				break
			}
		}
		if !moved {
			t.Errorf("Ctrl+End did not scroll a question that does not fit")
		}
	})
}

// mostArguments is the question with the most arguments the rules let
// through: names of two letters, values of one digit, one line each.
func mostArguments(t *testing.T) Question {
	t.Helper()
	var last Question
	for n := 1; ; n++ {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"%c%c":%d`, 'a'+i/26, 'a'+i%26, i%10)
		}
		b.WriteString("}")
		q := Question{Client: "Claude Desktop", Tool: "delete_entities", Args: []byte(b.String()), Timeout: time.Hour}
		if _, err := Text(q); err != nil {
			if n == 1 {
				t.Fatal(err)
			}
			return last
		}
		last = q
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
