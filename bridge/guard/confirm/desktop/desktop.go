// Package desktop asks the user, on the desktop of the machine the bridge
// runs on, whether a tool call may run: for clients that cannot ask
// themselves. One dialog program per system (zenity, kdialog or yad;
// osascript; the Win32 message box), each given the question as data only.
package desktop

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm"
)

// Question is one call to ask about. Client, Tool and Args come from the
// client and the assistant: hostile.
type Question struct {
	Bridge  string        // the bridge's --name
	Client  string        // the client's clientInfo name
	Tool    string        // the tool's name
	Args    []byte        // the call's arguments: a raw JSON object, or nil
	Timeout time.Duration // the dialog closes itself after this long (not run); 0: never
}

// Answer is how a question ended.
type Answer int

const (
	DontRun   Answer = iota // "Don't run", Escape, or the window closed
	Run                     // "Run"
	TimedOut                // the timeout passed: not run
	Cancelled               // ctx was done: the dialog was closed, not run
)

func (a Answer) String() string {
	switch a {
	case Run:
		return "run"
	case DontRun:
		return "don't run"
	case TimedOut:
		return "timed out"
	case Cancelled:
		return "cancelled"
	}
	return fmt.Sprintf("Answer(%d)", int(a))
}

// Asker shows questions. Ask blocks until the user answers, the timeout
// passes or ctx is done; when ctx is done the dialog is closed at once and
// Ask returns Cancelled. Ask returns an error, and shows nothing, when the
// question cannot show every argument (confirm.Text); or when the dialog
// program failed. Either way the call must not run. Asks may run
// concurrently (one dialog each).
type Asker interface {
	Ask(ctx context.Context, q Question) (Answer, error)
	Name() string // "zenity", "kdialog", "yad", "osascript", "windows"
}

// TitlePrefix begins every dialog's title: how the user (and a test) tells
// the bridge's questions from other windows.
const TitlePrefix = "mcp-bridge — confirm "

// Title is the dialog's title for q.
func Title(q Question) string { return TitlePrefix + confirm.Label(q.Tool) }

// Text is the dialog's text for q, in the words of a question from this
// program: who asks (the client, through which bridge), what would run,
// every argument by confirm.Text's rules. It fails when the arguments
// cannot all be shown.
func Text(q Question) (string, error) {
	who := "A client without a name"
	if q.Client != "" {
		who = confirm.Label(q.Client)
	}
	through := ""
	if q.Bridge != "" {
		through = " (through the bridge " + confirm.Label(q.Bridge) + ")"
	}
	head := fmt.Sprintf("%s%s wants to run %s on your drawing.", who, through, confirm.Label(q.Tool))
	text, err := confirm.Text(head, "\n\nRun it?", q.Args)
	if err != nil {
		return "", err
	}
	return breakable(text), nil
}

// breakable is s with a zero-width space after every run of runLen
// characters without a space: a dialog wraps lines at spaces only, and a
// long value without one (a path, a hash, a number) made the window wider
// than the screen (zenity, yad: the rest of the line off screen) or the
// text elided in the middle (kdialog). The confirm rules escape a zero-width
// space sent by the assistant, so these can only be the bridge's.
func breakable(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if r == ' ' || r == '\n' {
			n = 0
		} else if n == runLen {
			b.WriteRune('\u200b')
			n = 0
		}
		if r != ' ' && r != '\n' {
			n++
		}
		b.WriteRune(r)
	}
	return b.String()
}

// runLen is the longest run of characters a line of the dialog's text
// holds without a break opportunity.
const runLen = 40

// Labels of the two buttons. "Don't run" is the default everywhere.
const (
	RunLabel     = "Run"
	DontRunLabel = "Don't run"
)

// Find picks the Asker for this machine, or returns nil and why there is
// none and what would make it work. env reads the environment (DISPLAY,
// WAYLAND_DISPLAY); lookPath finds a program (exec.LookPath).
func Find(env func(string) string, lookPath func(string) (string, error)) (Asker, string) {
	return find(runtime.GOOS, env, lookPath)
}

func find(goos string, env func(string) string, lookPath func(string) (string, error)) (Asker, string) {
	switch goos {
	case "windows":
		return findWindows()
	case "darwin":
		path, err := lookPath("osascript")
		if err != nil {
			return nil, "no dialog program: osascript is not on PATH (it comes with macOS in /usr/bin); add /usr/bin to the bridge's PATH, or use a client that can ask"
		}
		return &program{kind: osascript, path: path, env: childEnv(env)}, ""
	case "android", "ios", "js", "wasip1", "plan9":
		return nil, "no desktop dialog on " + goos + "; use a client that can ask"
	}
	if env("DISPLAY") == "" && env("WAYLAND_DISPLAY") == "" {
		return nil, "no desktop: neither DISPLAY nor WAYLAND_DISPLAY is set (a service, an SSH session or CI); run the bridge in your desktop session, or use a client that can ask"
	}
	for _, k := range []kind{zenity, kdialog, yad} {
		if path, err := lookPath(k.String()); err == nil {
			return &program{kind: k, path: path, env: childEnv(env)}, ""
		}
	}
	return nil, "no dialog program: none of zenity, kdialog or yad is installed (a desktop is there: DISPLAY or WAYLAND_DISPLAY is set); install zenity (apt install zenity, dnf install zenity, pkg install zenity), or use a client that can ask"
}
