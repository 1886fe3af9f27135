package desktop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
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

// width is yad's width in pixels: its text wraps within it.
const width = 560

// program is an Asker that runs a dialog program: exec, never a shell; the
// question in argv elements of the form --option=value (a value starting
// with "-" cannot become an option), each program told to show it as plain
// text, or escaped for what it would read into it.
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
		// kdialog has no timeout (killed at it) and no plain-text switch:
		// its label guesses rich text (Qt::AutoText), so the text is
		// made rich text for certain and every character escaped. Its
		// default button is Yes, with no option to change it: Yes is
		// "Don't run" (exit 0), No is "Run" (exit 1); Escape or closed 2.
		return []string{"--title=" + title, "--warningyesno=" + kdialogText(body),
			"--yes-label=" + DontRunLabel, "--no-label=" + RunLabel}
	case yad:
		// --no-markup: gtk_label_set_text, but yad compresses
		// backslash escapes even then (src/main.c): backslashes doubled.
		a := []string{"--title=" + title, "--text=" + strings.ReplaceAll(body, `\`, `\\`), "--no-markup",
			"--image=dialog-question", "--button=" + DontRunLabel + ":1", "--button=" + RunLabel + ":0",
			"--width=" + strconv.Itoa(width)}
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
// (Utils::parseString).
func kdialogText(body string) string {
	var b strings.Builder
	b.WriteString("<qt>")
	space := true // at the start of a line
	for _, r := range body {
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

// answer reads the program's exit code and output; false when they are
// no answer of the user's.
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
		// Qt exits 1 when it loses its display ("The X11 connection
		// broke", "The Wayland connection broke": the session ended, the
		// window was xkill'ed): that is no "Run".
		if strings.Contains(stderr, "connection broke") {
			return DontRun, false
		}
		switch code {
		case 1: // No: "Run"
			return Run, true
		case 0, 2: // Yes: "Don't run"; Escape or closed
			return DontRun, true
		}
	case yad:
		switch code {
		case 0:
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
	// Nothing of the child reaches the bridge's stdout (the protocol's) or stderr.
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
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
		if err != nil {
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() < 0 {
				return DontRun, fmt.Errorf("%s: %w", p.Name(), err)
			}
			code = exit.ExitCode()
		}
		if a, ok := p.answer(code, stdout.String(), stderr.String()); ok {
			return a, nil
		}
		return DontRun, fmt.Errorf("%s ended with exit status %d: %s", p.Name(), code, strings.TrimSpace(stderr.String()))
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		return Cancelled, nil
	case <-expire:
		_ = cmd.Process.Kill()
		<-done
		return TimedOut, nil
	}
}

// capped keeps the first 4 KiB written to it.
type capped struct{ b bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := 4096 - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.b.String() }

// childEnv is the dialog program's environment: the bridge's, with the
// display Find saw, and without the variables with which the dialog
// programs let the environment change their exit codes (zenity's
// ZENITY_OK, DIALOG_CANCEL, ...) or add options (YAD_OPTIONS).
func childEnv(env func(string) string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "DISPLAY" || k == "WAYLAND_DISPLAY" || k == "YAD_OPTIONS" ||
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
	return out
}
