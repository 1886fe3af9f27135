package desktop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/configs/cut"
)

// kind is a dialog program run as a child process.
type kind int

const (
	zenity kind = iota
	kdialog
	yad
	osascript
)

func (k kind) String() string { return [...]string{"zenity", "kdialog", "yad", "osascript"}[k] }

// yad's window is sized to its text, in pixels reckoned from a
// monospace font of 9 by 19 (its text view's; DejaVu Sans Mono at 10
// points is 8 by 17): yadColumns wide, and tall enough for every line up
// to yadMaxHeight, which fits a 1280×720 screen with a top bar and the
// window's title bar. A longer question scrolls, and its scroll bar is
// always drawn (childEnv); one in a larger font than reckoned wraps again
// or scrolls sooner, and shows it alike. A fixed 560×420 showed the first
// four of eight notes of 198 characters, and no scroll bar: the rest,
// the argument that mattered and "Run it?" lay below, unseen.
const (
	yadColumns    = 88
	yadCharWidth  = 9
	yadLineHeight = 19
	yadChrome     = 100 // the icon beside the text, borders and the scroll bar, across
	yadButtons    = 64  // the row of buttons and borders, down
	yadMinHeight  = 240
	yadMaxHeight  = 600
)

// yadSize is the width and height of yad's window for text (yadLines'),
// and whether the text is reckoned too long for it.
func yadSize(text string) (w, h int, scrolls bool) {
	lines := strings.Count(text, "\n") + 1
	h = lines*yadLineHeight + yadButtons
	return yadColumns*yadCharWidth + yadChrome, min(max(h, yadMinHeight), yadMaxHeight), h > yadMaxHeight
}

// yadScroll is what yad says above a question too long for its window
// (Pango markup: none here).
const yadScroll = "The question is longer than this window: scroll down to read every argument."

// yadLines is body as yad shows it: lines longer than yadColumns broken
// (wrapLines), so that the rest of a value, indented, cannot pass for an
// argument's line, as the view's own wrapping at the left edge could.
func yadLines(body string) string { return wrapLines(body, yadColumns) }

// program is an Asker that runs a dialog program: exec, never a shell; the
// question on stdin where the program can read it there as plain text
// (yad), else in argv elements of the form --option=value (a value
// starting with "-" cannot become an option), each program told to show
// it as plain text, or escaped for what it would read into it. A command
// line can be read by every local account (ps) while the dialog is open;
// stdin cannot.
//
// Run is decided only on the one answer each program gives when the user
// chose Run, never on the absence of an error: a toolkit that loses its
// display (a logout, dropped X forwarding, xkill) exits by itself with a
// code of its own, and whatever it printed before says nothing.
type program struct {
	kind kind
	path string
	env  []string // the child's environment
}

func (p *program) Name() string { return p.kind.String() }

// seconds is the timeout in whole seconds, rounded up; 0 for none.
func seconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + time.Second - 1) / time.Second)
}

// kdialogRun is the Run entry of kdialog's combo box. Qt's combo box
// chooses the entry whose text starts with what is typed on it (any
// letter, digit or sign, whatever the case), so it starts with a sign no
// keyboard layout types, U+25B6: only the arrow keys, the mouse, or that
// sign typed on purpose choose it.
const kdialogRun = "\u25b6 " + RunLabel

// yadRun is the exit code of yad's Run button: one yad gives for nothing
// else (0 is also what it exits with on SIGUSR1, 1 on a fatal GTK error,
// 70 at its timeout, 252 on Escape).
const yadRun = 41

// stdin is what the program reads on stdin: the question's text for yad,
// nothing for the others.
func (p *program) stdin(body string) string {
	if p.kind == yad {
		return yadText(yadLines(body))
	}
	return ""
}

// args is the command line (without the program) that shows the question
// titled title with text body, closing itself after timeout where the
// program can.
func (p *program) args(title, body string, timeout time.Duration) []string {
	n := seconds(timeout)
	switch p.kind {
	case zenity:
		// --no-markup: gtk_label_set_text, and no g_strcompress of
		// backslash escapes (zenity src/msg.c); exit 0 OK, 1 cancel,
		// Escape or closed, 5 timeout (src/util.c). No --width: without
		// it zenity wraps the text at 60 characters.
		a := []string{"--question", "--no-markup", "--title=" + title, "--text=" + body,
			"--ok-label=" + RunLabel, "--cancel-label=" + DontRunLabel, "--default-cancel"}
		if n > 0 {
			a = append(a, "--timeout="+strconv.Itoa(n))
		}
		return a
	case kdialog:
		// kdialog's message boxes cannot be the question: Return presses
		// their positive button (Yes, Continue: exit 0) whatever the kind
		// (--yesno, --warningyesno, --warningcontinuecancel, with or
		// without cancel, all tried), with no option to change it, so Run
		// would have to be No, exit 1, which is also what Qt exits with by
		// itself when it loses its display ("The X11 connection broke").
		// So the question is a choice in a combo box, "Don't run" chosen:
		// kdialog prints the Run entry only when the user chose it and
		// pressed OK (exit 0); Cancel, Escape or closed exit 1. The Run
		// entry starts with a sign no keyboard types (kdialogRun): a
		// combo box picks the entry whose text starts with the keys typed
		// on it, and keys typed for another window when the dialog took
		// the focus (REGEN, ROTATE and Return at CAD's command line)
		// would choose "Run" and press OK. No timeout (killed at it). Its
		// label guesses rich text (Qt::AutoText), so the text is made rich
		// text for certain and every character escaped, and it does not
		// wrap lines: kdialogText breaks them.
		return []string{"--title=" + title, "--combobox=" + kdialogText(body), DontRunLabel, kdialogRun,
			"--default=" + DontRunLabel}
	case yad:
		// The text on stdin, shown as it is (--text-info: plain text, no
		// markup unless --formatted, no backslash escapes, nothing
		// printed back unless --editable); the focus in the text, where
		// Return does nothing. Run's exit code is yadRun. The window
		// sized to the text (yadSize).
		w, h, scrolls := yadSize(yadLines(body))
		a := []string{"--text-info", "--title=" + title, "--wrap", "--image=dialog-question",
			"--button=" + DontRunLabel + ":1", "--button=" + RunLabel + ":" + strconv.Itoa(yadRun),
			"--width=" + strconv.Itoa(w), "--height=" + strconv.Itoa(h)}
		if scrolls {
			a = append(a, "--text="+yadScroll)
		}
		if n > 0 {
			a = append(a, "--timeout="+strconv.Itoa(n))
		}
		return a
	case osascript:
		a := make([]string, 0, 2*len(appleScript)+3)
		for _, line := range appleScript {
			a = append(a, "-e", line)
		}
		// The title first: it starts with TitlePrefix, not "-", so
		// osascript's option parsing ends before anything from the client.
		return append(a, title, body, strconv.Itoa(n))
	}
	panic("unknown dialog program")
}

// appleScript is the fixed script osascript runs: the title, text and
// timeout come as argv, never as script text. It prints one word.
var appleScript = []string{
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

// kdialogText is body as kdialog shows it literally: "<qt>" makes Qt take
// it as rich text whatever it holds (Qt::mightBeRichText), in which &, <,
// >, quotes are entities, line breaks <br> and runs of spaces &nbsp;; then
// backslashes doubled, for kdialog reads \\ and \n in its text
// (Utils::parseString). Its label does not wrap: lines longer than
// kdialogWidth are broken first (wrapLines).
func kdialogText(body string) string {
	var b strings.Builder
	b.WriteString("<qt>")
	space := true // at the start of a line
	for _, r := range wrapLines(body, kdialogWidth) {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r == '\'':
			b.WriteString("&#39;")
		case r == '\n':
			b.WriteString("<br>")
			space = true
			continue
		case r == ' ' && space:
			b.WriteString("&nbsp;")
			continue
		case r == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
		space = r == ' '
	}
	b.WriteString("</qt>")
	return b.String()
}

// kdialogWidth is the longest line, in characters, of kdialog's text.
const kdialogWidth = 80

// wrapLines breaks every line of s longer than width characters: after
// its last space or zero-width space (breakable's) that keeps the line
// within width, else at width; the rest goes on a line indented by the
// line's own leading spaces and two more, so that it cannot pass for an
// argument's line ("  name: value").
func wrapLines(s string, width int) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		indent := strings.Repeat(" ", len(line)-len(strings.TrimLeft(line, " "))+2)
		for {
			r := []rune(line)
			if len(r) <= width {
				b.WriteString(line)
				break
			}
			cut := width
			for j := width; j > len(indent); j-- {
				if r[j-1] == ' ' || r[j-1] == '\u200b' {
					cut = j
					break
				}
			}
			b.WriteString(strings.TrimRight(string(r[:cut]), " "))
			b.WriteByte('\n')
			line = indent + string(r[cut:])
		}
	}
	return b.String()
}

// yadText is body as yad's text view gets it: every control character
// but the line feed replaced (a form feed at a line's start would clear
// the text before it), and a final line feed.
func yadText(body string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' || r == 0x7f {
			return '\uFFFD'
		}
		return r
	}, body) + "\n"
}

// answer reads the program's exit code and output; false when they are
// no answer of the user's. Only each program's one answer that means Run
// is Run.
func (p *program) answer(code int, stdout, stderr string) (Answer, bool) {
	switch p.kind {
	case zenity:
		switch code {
		case 0:
			return Run, true
		case 1:
			return DontRun, true
		case 5:
			return TimedOut, true
		}
	case kdialog:
		switch {
		case code == 0 && stdout == kdialogRun+"\n":
			return Run, true
		case code == 0 && stdout == DontRunLabel+"\n":
			return DontRun, true
		case code == 1 && strings.Contains(stderr, "connection broke"):
			// Qt lost its display ("The X11 connection broke", "The
			// Wayland connection broke": the session ended, the window
			// was xkill'ed): not run, and said so.
			return DontRun, false
		case code == 1: // Cancel, Escape or closed
			return DontRun, true
		}
	case yad:
		switch code {
		case yadRun:
			return Run, true
		case 1, 252: // "Don't run"; Escape or closed
			return DontRun, true
		case 70:
			return TimedOut, true
		}
	case osascript:
		if code == 0 {
			switch strings.TrimSpace(stdout) {
			case "run":
				return Run, true
			case "dontrun":
				return DontRun, true
			case "timeout":
				return TimedOut, true
			}
		}
	}
	return DontRun, false
}

// grace is how long after the timeout a program that closes itself then
// has before it is killed (and the question timed out anyway).
const grace = 2 * time.Second

// outputsGrace is how long the outputs of a program that has ended are
// still read: a process it left behind (a toolkit's helper, a wrapper
// script's background job) may hold them open for as long as it lives,
// and the answer must not wait for it (exec.Cmd.WaitDelay).
const outputsGrace = time.Second

func (p *program) Ask(ctx context.Context, q Question) (Answer, error) {
	body, err := Text(q)
	if err != nil {
		return DontRun, err
	}
	if ctx.Err() != nil {
		return Cancelled, nil
	}
	return p.show(ctx, Title(q), body, q.Timeout)
}

// show runs the program with title and body as given.
func (p *program) show(ctx context.Context, title, body string, timeout time.Duration) (Answer, error) {
	cmd := exec.Command(p.path, p.args(title, body, timeout)...)
	cmd.Env = p.env
	if in := p.stdin(body); in != "" {
		cmd.Stdin = strings.NewReader(in)
	}
	// Nothing of the child reaches the bridge's stdout (the protocol's) or stderr.
	var stdout, stderr output
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = outputsGrace
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return DontRun, fmt.Errorf("%s: %w", p.Name(), err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var expire <-chan time.Time
	if timeout > 0 {
		after := timeout
		if p.kind != kdialog {
			after += grace
		}
		t := time.NewTimer(after)
		defer t.Stop()
		expire = t.C
	}
	select {
	case err := <-done:
		code := 0
		var exit *exec.ExitError
		switch {
		case err == nil:
		case errors.Is(err, exec.ErrWaitDelay):
			// It exited with status 0, and what it left behind held its
			// outputs past outputsGrace: what it wrote is read, and is
			// its answer.
			code = cmd.ProcessState.ExitCode()
		case !errors.As(err, &exit) || exit.ExitCode() < 0:
			return DontRun, fmt.Errorf("%s: %w", p.Name(), err)
		default:
			code = exit.ExitCode()
		}
		if a, ok := p.answer(code, stdout.String(), stderr.String()); ok {
			return a, nil
		}
		return DontRun, fmt.Errorf("%s ended with exit status %d: %s", p.Name(), code, lastWords(stderr.String()))
	case <-ctx.Done():
		endGroup(cmd)
		<-done
		return Cancelled, nil
	case <-expire:
		endGroup(cmd)
		<-done
		return TimedOut, nil
	}
}

// lastWords is the last line a program wrote to stderr, for the error
// that says why its dialog gave no answer (a toolkit's reason comes last,
// after any number of warnings), cut to 300 bytes.
func lastWords(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return "nothing on stderr"
	}
	return cut.Bytes(last, 300)
}

// maxOutput bounds what is kept of each of a dialog program's outputs,
// at either end.
const maxOutput = 4096

// output keeps what a dialog program writes to stdout or stderr, bounded:
// its first and its last maxOutput bytes (a toolkit's last words, such as
// Qt's "connection broke", come at the end, after any number of warnings).
type output struct {
	head, tail []byte
	n          int // bytes written in all
}

func (o *output) Write(p []byte) (int, error) {
	o.n += len(p)
	rest := p
	if room := maxOutput - len(o.head); room > 0 {
		take := min(room, len(rest))
		o.head, rest = append(o.head, rest[:take]...), rest[take:]
	}
	if len(rest) > 0 {
		o.tail = append(o.tail, rest...)
		if len(o.tail) > maxOutput {
			o.tail = append(o.tail[:0], o.tail[len(o.tail)-maxOutput:]...)
		}
	}
	return len(p), nil
}

// String is everything written when it was kept whole; else its first
// and last parts, "…" for what lay between.
func (o *output) String() string {
	if o.n == len(o.head)+len(o.tail) {
		return string(o.head) + string(o.tail)
	}
	return string(o.head) + "…" + string(o.tail)
}

// childEnv is the dialog program's environment: the bridge's, with the
// display Find saw, and without the variables with which the dialog
// programs let the environment change their exit codes (zenity's
// ZENITY_OK, DIALOG_CANCEL, ...) or add options (YAD_OPTIONS); with
// GTK_OVERLAY_SCROLLING=0, so that a GTK text that scrolls (yad's) shows
// its scroll bar from the start, not only once the pointer moves over it.
func childEnv(env func(string) string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "DISPLAY" || k == "WAYLAND_DISPLAY" || k == "YAD_OPTIONS" || k == "GTK_OVERLAY_SCROLLING" ||
			strings.HasPrefix(k, "ZENITY_") || strings.HasPrefix(k, "DIALOG_") {
			continue
		}
		out = append(out, kv)
	}
	for _, k := range []string{"DISPLAY", "WAYLAND_DISPLAY"} {
		if v := env(k); v != "" {
			out = append(out, k+"="+v)
		}
	}
	return append(out, "GTK_OVERLAY_SCROLLING=0")
}
