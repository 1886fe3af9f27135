package desktop

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// hostile is a question whose every part from the client tries something:
// markup, an entity, quotes, a backslash, a shell substitution, a line
// break (escaped in JSON and raw), a bidirectional override (escaped and
// raw), an option-like value, a very long value.
var hostile = Question{
	Bridge:  "cad-freecad",
	Client:  "Claude <b>Desktop</b>",
	Tool:    "delete_<b>entities</b>",
	Timeout: 90 * time.Second,
	Args: []byte(`{"ids":[1,2],"note":"<b>bold</b> &amp; \"q\" 'q' back\\slash $(rm -rf ~) \\n \n next\u202eline ` + "\u202e" + `end",` +
		`"opt":"--timeout=0","-e":"x","long":"` + strings.Repeat("0123456789", 30) + `"}`),
}

// hostileText is Text(hostile), written out: what every program must show.
const hostileText = `"Claude <b>Desktop</b>" (through the bridge cad-freecad) wants to run delete_<b>entities</b> on your drawing.

Arguments:
  -e: "x"
  ids: [1,2]
  long: "012345678901234567890123456789012345678` + "\u200b" + `9012345678901234567890123456789012345678` + "\u200b" + `9012345678901234567890123456789012345678` + "\u200b" + `9012345678901234567890123456789012345678` + "\u200b" + `901234567890123456789012345678901234567…
  note: "<b>bold</b> &amp; \"q\" 'q' back\\slash $(rm -rf ~) \\n \n next\u202eline \u202eend"
  opt: "--timeout=0"

Run it?`

func TestText(t *testing.T) {
	got, err := Text(hostile)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(hostileText, got); diff != "" {
		t.Errorf("Text (-want +got):\n%s", diff)
	}
	if got, want := Title(hostile), `mcp-bridge — confirm delete_<b>entities</b>`; got != want {
		t.Errorf("Title = %q; want %q", got, want)
	}
	if got, _ := Text(Question{Tool: "ping"}); got != "A client without a name wants to run ping on your drawing.\n\n(no arguments)\n\nRun it?" {
		t.Errorf("no client, bridge or arguments: %q", got)
	}
}

func TestBreakable(t *testing.T) {
	run := strings.Repeat("a", runLen)
	for _, c := range []struct{ in, want string }{
		{run, run},
		{run + "b", run + "\u200bb"},
		{run + " b", run + " b"},
		{run + "\n" + run, run + "\n" + run},
		{"x " + run + run + "c", "x " + run + "\u200b" + run + "\u200bc"},
	} {
		if got := breakable(c.in); got != c.want {
			t.Errorf("breakable(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}

// TestTooManyArguments: a question that cannot show every argument is no
// question; Ask fails before any program runs (its path does not exist).
func TestTooManyArguments(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 200 {
		fmt.Fprintf(&b, `%s"argument_%03d":"%s"`, map[bool]string{true: ",", false: ""}[i > 0], i, strings.Repeat("v", 20))
	}
	b.WriteString("}")
	for _, k := range []kind{zenity, kdialog, yad, osascript} {
		p := &program{kind: k, path: "/nonexistent/dialog"}
		a, err := p.Ask(context.Background(), Question{Tool: "t", Args: []byte(b.String())})
		if err == nil || !strings.Contains(err.Error(), "cannot all be shown") {
			t.Errorf("%s: Ask = %v, %v; want the arguments refused", k, a, err)
		}
	}
}

func TestArgs(t *testing.T) {
	title := Title(hostile)
	body := hostileText
	kd := "<qt>" + strings.NewReplacer(
		"&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;", `\`, `\\`, "\n", "<br>").Replace(wrapLines(body, kdialogWidth)) + "</qt>"
	kd = strings.ReplaceAll(strings.ReplaceAll(kd, "<br>    ", "<br>&nbsp;&nbsp;&nbsp;&nbsp;"), "<br>  ", "<br>&nbsp;&nbsp;")
	cases := []struct {
		k       kind
		timeout time.Duration
		want    []string
	}{
		{zenity, 90 * time.Second, []string{"--question", "--no-markup", "--title=" + title, "--text=" + body,
			"--ok-label=Run", "--cancel-label=Don't run", "--default-cancel", "--timeout=90"}},
		{zenity, 1500 * time.Millisecond, []string{"--question", "--no-markup", "--title=" + title, "--text=" + body,
			"--ok-label=Run", "--cancel-label=Don't run", "--default-cancel", "--timeout=2"}},
		{zenity, 0, []string{"--question", "--no-markup", "--title=" + title, "--text=" + body,
			"--ok-label=Run", "--cancel-label=Don't run", "--default-cancel"}},
		{kdialog, 90 * time.Second, []string{"--title=" + title, "--combobox=" + kd, "Don't run", "\u25b6 Run", "--default=Don't run"}},
		// yad: 88 columns of 9 pixels and 100 beside them; the hostile
		// question's 14 lines (once broken at 88) of 19 and 64 below.
		{yad, 90 * time.Second, []string{"--text-info", "--title=" + title, "--wrap", "--image=dialog-question",
			"--button=Don't run:1", "--button=Run:41", "--width=892", "--height=330", "--timeout=90"}},
		{yad, 0, []string{"--text-info", "--title=" + title, "--wrap", "--image=dialog-question",
			"--button=Don't run:1", "--button=Run:41", "--width=892", "--height=330"}},
		{osascript, 90 * time.Second, append(osaScript(), title, body, "90")},
		{osascript, 0, append(osaScript(), title, body, "0")},
	}
	for _, c := range cases {
		p := &program{kind: c.k}
		if diff := cmp.Diff(c.want, p.args(title, body, c.timeout)); diff != "" {
			t.Errorf("%s, timeout %v (-want +got):\n%s", c.k, c.timeout, diff)
		}
	}
	// The rich text kdialog is given, written out for the parts that
	// matter: no tag but <qt> and <br>, the quote and the backslash.
	if !strings.Contains(kd, `&quot;&lt;b&gt;bold&lt;/b&gt; &amp;amp; \\&quot;q\\&quot; &#39;q&#39; back\\\\slash $(rm -rf ~) \\\\n`) {
		t.Errorf("kdialog's text: %s", kd)
	}
	// No argument is on a command line but kdialog's and zenity's (which
	// read none from elsewhere): yad reads the text on stdin, as it is.
	for _, k := range []kind{zenity, kdialog, yad, osascript} {
		p := &program{kind: k}
		onArgv := strings.Contains(strings.Join(p.args(title, body, time.Minute), "\n"), "012345678901234567890")
		if onArgv != (k != yad) {
			t.Errorf("%s: the arguments on its command line: %v", k, onArgv)
		}
		if in := p.stdin(body); (in != "") != (k == yad) || k == yad && in != wrapLines(body, 88)+"\n" {
			t.Errorf("%s: stdin %q", k, in)
		}
	}
}

// TestWrapLines: kdialog's lines, which its label does not wrap, at most
// 80 characters: broken after the last space or zero-width space within
// them, else at 80; the rest indented two more than its line, so that it
// cannot pass for an argument's line.
func TestWrapLines(t *testing.T) {
	a40, b40 := strings.Repeat("a", 40), strings.Repeat("b", 40)
	for _, c := range []struct{ in, want string }{
		{a40 + b40, a40 + b40},
		{a40 + b40 + "c", a40 + b40 + "\n  c"},
		{a40 + " " + b40 + "c", a40 + "\n  " + b40 + "c"},
		{"  k: " + a40 + "\u200b" + b40, "  k: " + a40 + "\u200b\n    " + b40},
		{"  k: " + a40 + b40 + b40, "  k:\n    " + a40 + b40[:36] + "\n    " + b40[36:] + b40},
		{"x\n\ny", "x\n\ny"},
	} {
		got := wrapLines(c.in, 80)
		if got != c.want {
			t.Errorf("wrapLines(%q) = %q; want %q", c.in, got, c.want)
		}
		for _, l := range strings.Split(got, "\n") {
			if n := len([]rune(l)); n > 80 {
				t.Errorf("wrapLines(%q): a line of %d characters", c.in, n)
			}
		}
	}
}

// TestYadSize: yad's window is as tall as its text, 19 pixels a line and
// 64 for the buttons, within 240 and 600 (one line either side of each),
// and 892 wide (88 columns of 9, and 100); past 600, it says above the
// text that the question scrolls.
func TestYadSize(t *testing.T) {
	for _, c := range []struct {
		lines, h int
		scrolls  bool
	}{
		{1, 240, false}, {9, 240, false}, {10, 254, false}, {14, 330, false}, {28, 596, false}, {29, 600, true}, {250, 600, true},
	} {
		text := strings.Repeat("x\n", c.lines-1) + "x"
		if w, h, scrolls := yadSize(text); w != 892 || h != c.h || scrolls != c.scrolls {
			t.Errorf("%d lines: %d×%d, scrolls %v; want 892×%d, %v", c.lines, w, h, scrolls, c.h, c.scrolls)
		}
		p := &program{kind: yad}
		said := slices.Contains(p.args("t", text, 0), "--text="+yadScroll)
		if said != c.scrolls {
			t.Errorf("%d lines: says it scrolls: %v", c.lines, said)
		}
	}
}

// osaScript is the osascript command line before its argv, written out.
func osaScript() []string {
	lines := []string{
		`on run argv`,
		`set n to (item 3 of argv) as integer`,
		`try`,
		`if n > 0 then`,
		`set r to display dialog (item 2 of argv) with title (item 1 of argv) buttons {"Don't run", "Run"} default button "Don't run" cancel button "Don't run" with icon caution giving up after n`,
		`else`,
		`set r to display dialog (item 2 of argv) with title (item 1 of argv) buttons {"Don't run", "Run"} default button "Don't run" cancel button "Don't run" with icon caution`,
		`end if`,
		`on error number -128`,
		`return "dontrun"`,
		`end try`,
		`if gave up of r then return "timeout"`,
		`if button returned of r is "Run" then return "run"`,
		`return "dontrun"`,
		`end run`,
	}
	var a []string
	for _, l := range lines {
		a = append(a, "-e", l)
	}
	return a
}

func TestAnswer(t *testing.T) {
	type c struct {
		code   int
		stdout string
		want   Answer
		ok     bool
		stderr string
	}
	cases := map[kind][]c{
		zenity: {{0, "", Run, true, ""}, {1, "", DontRun, true, ""}, {5, "", TimedOut, true, ""}, {255, "", DontRun, false, ""}, {2, "", DontRun, false, ""}},
		// kdialog: its Run entry ("\u25b6 Run") printed and exit 0, that
		// alone; exit 1 is Cancel, Escape or closed, and Qt's own exit when
		// the display goes (xkill, the session ending), said so when Qt
		// said it.
		kdialog: {{0, "\u25b6 Run\n", Run, true, ""}, {0, "\u25b6 Run\n", Run, true, "QStandardPaths: XDG_RUNTIME_DIR not set, defaulting to '/tmp/runtime-root'\n"},
			{0, "Don't run\n", DontRun, true, ""}, {1, "\n", DontRun, true, ""}, {1, "", DontRun, true, ""},
			{0, "", DontRun, false, ""}, {0, "\u25b6 Run", DontRun, false, ""}, {0, "\u25b6 run\n", DontRun, false, ""}, {0, "\u25b6 Run\n\n", DontRun, false, ""},
			{0, "Run\n", DontRun, false, ""}, {0, "\u25b6Run\n", DontRun, false, ""}, {0, " \u25b6 Run\n", DontRun, false, ""},
			{1, "\u25b6 Run\n", DontRun, true, ""}, {2, "", DontRun, false, ""}, {3, "", DontRun, false, ""},
			{1, "", DontRun, false, "The X11 connection broke (error 1). Did the X11 server die?\n"},
			{1, "", DontRun, false, "The Wayland connection broke. Did the Wayland compositor die?\n"}},
		// yad: its Run button's own code; 0 (SIGUSR1) is no answer.
		yad: {{yadRun, "", Run, true, ""}, {0, "", DontRun, false, ""}, {1, "", DontRun, true, ""}, {252, "", DontRun, true, ""},
			{70, "", TimedOut, true, ""}, {2, "", DontRun, false, ""}, {yadRun + 1, "", DontRun, false, ""}},
		osascript: {{0, "run\n", Run, true, ""}, {0, "dontrun\n", DontRun, true, ""}, {0, "timeout\n", TimedOut, true, ""}, {0, "Run\n", DontRun, false, ""}, {1, "run\n", DontRun, false, ""}},
	}
	for k, cs := range cases {
		for _, c := range cs {
			p := &program{kind: k}
			if a, ok := p.answer(c.code, c.stdout, c.stderr); a != c.want || ok != c.ok {
				t.Errorf("%s exit %d %q: %v %v; want %v %v", k, c.code, c.stdout, a, ok, c.want, c.ok)
			}
		}
	}
}

func TestMessageBoxAnswer(t *testing.T) {
	if messageBoxStyle != 0x00050121 {
		t.Errorf("style %#x; want MB_OKCANCEL|MB_ICONQUESTION|MB_DEFBUTTON2|MB_SETFOREGROUND|MB_TOPMOST = 0x50121", messageBoxStyle)
	}
	for _, c := range []struct {
		result   uintptr
		closed   bool
		closedBy Answer
		want     Answer
		ok       bool
	}{
		{idOK, false, DontRun, Run, true},
		{idCancel, false, DontRun, DontRun, true},
		{idCancel, true, TimedOut, TimedOut, true},
		{idCancel, true, Cancelled, Cancelled, true},
		{idOK, true, Cancelled, Cancelled, true}, // clicked as the bridge closed it: not run
		{0, false, DontRun, DontRun, false},
		{3, false, DontRun, DontRun, false},
	} {
		if a, ok := messageBoxAnswer(c.result, c.closed, c.closedBy); a != c.want || ok != c.ok {
			t.Errorf("messageBoxAnswer(%d, %v, %v) = %v %v; want %v %v", c.result, c.closed, c.closedBy, a, ok, c.want, c.ok)
		}
	}
}

func TestFind(t *testing.T) {
	envOf := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	has := func(names ...string) func(string) (string, error) {
		return func(p string) (string, error) {
			if slices.Contains(names, p) {
				return "/usr/bin/" + p, nil
			}
			return "", exec.ErrNotFound
		}
	}
	all := has("zenity", "kdialog", "yad", "osascript")
	noDesktop := "no desktop: neither DISPLAY nor WAYLAND_DISPLAY is set (a service, an SSH session or CI); run the bridge in your desktop session, or use a client that can ask"
	noProgram := "no dialog program: none of zenity, kdialog or yad is installed (a desktop is there: DISPLAY or WAYLAND_DISPLAY is set); install zenity (apt install zenity, dnf install zenity, pkg install zenity), or use a client that can ask"
	for _, c := range []struct {
		name, goos string
		env        func(string) string
		look       func(string) (string, error)
		want, why  string
	}{
		{"no display", "linux", envOf(), all, "", noDesktop},
		{"display, every program", "linux", envOf("DISPLAY", ":0"), all, "zenity", ""},
		{"wayland only", "linux", envOf("WAYLAND_DISPLAY", "wayland-0"), all, "zenity", ""},
		{"kdialog and yad", "freebsd", envOf("DISPLAY", ":0"), has("kdialog", "yad"), "kdialog", ""},
		{"yad only", "openbsd", envOf("DISPLAY", ":0"), has("yad"), "yad", ""},
		{"display, no program", "linux", envOf("DISPLAY", ":0"), has("osascript"), "", noProgram},
		{"no display, no program", "linux", envOf(), has(), "", noDesktop},
		{"macOS", "darwin", envOf(), all, "osascript", ""},
		{"macOS without osascript", "darwin", envOf(), has(), "", "no dialog program: osascript is not on PATH (it comes with macOS in /usr/bin); add /usr/bin to the bridge's PATH, or use a client that can ask"},
	} {
		a, why := find(c.goos, c.env, c.look)
		name := ""
		if a != nil {
			name = a.Name()
			if p := a.(*program); p.path != "/usr/bin/"+name {
				t.Errorf("%s: path %s", c.name, p.path)
			}
		}
		if name != c.want || why != c.why {
			t.Errorf("%s: Find = %q, %q; want %q, %q", c.name, name, why, c.want, c.why)
		}
	}
}

// TestChildEnv: the display Find saw reaches the program; the variables
// that would change a program's exit codes or options do not.
func TestChildEnv(t *testing.T) {
	t.Setenv("ZENITY_CANCEL", "0")
	t.Setenv("DIALOG_ESC", "0")
	t.Setenv("YAD_OPTIONS", "--button=Run:1")
	t.Setenv("DISPLAY", ":7")
	t.Setenv("H6_KEPT", "yes")
	t.Setenv("GTK_OVERLAY_SCROLLING", "1")
	env := childEnv(func(k string) string { return map[string]string{"DISPLAY": ":1", "WAYLAND_DISPLAY": "w"}[k] })
	var got []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ZENITY_") || strings.HasPrefix(k, "DIALOG_") || k == "YAD_OPTIONS" || k == "DISPLAY" || k == "WAYLAND_DISPLAY" || k == "H6_KEPT" || k == "GTK_OVERLAY_SCROLLING" {
			got = append(got, kv)
		}
	}
	if diff := cmp.Diff([]string{"H6_KEPT=yes", "DISPLAY=:1", "WAYLAND_DISPLAY=w", "GTK_OVERLAY_SCROLLING=0"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestCancelledBefore: a call cancelled before its question is shown is
// not shown (the program's path does not exist: running it would fail).
func TestCancelledBefore(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, k := range []kind{zenity, kdialog, yad, osascript} {
		p := &program{kind: k, path: "/nonexistent/dialog"}
		if a, err := p.Ask(ctx, hostile); a != Cancelled || err != nil {
			t.Errorf("%s: Ask = %v, %v; want cancelled", k, a, err)
		}
	}
}
