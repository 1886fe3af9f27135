package doctor

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
)

// Launch is the --launch setting doctor checks: the program that a bridge
// with these settings starts when a call finds the base down.
type Launch struct {
	Program string   // --launch as given
	Args    []string // --launch-arg, each as given
	Command string   // the whole command, as messages show it
	Name    string   // what messages call the program ("FreeCAD")
	// Home is the folder the program starts in, where a relative file
	// argument is read from (launch.Command.Problems).
	Home string
	// Test, when set (--launch-test), starts the program as a bridge
	// would: only when the base is down, and waiting for its base.
	Test func(ctx context.Context) error
}

// LaunchReport is what doctor found of the launch setting.
type LaunchReport struct {
	Command string `json:"command"`
	Found   string `json:"found,omitempty"` // the program's path, when it exists
	// Tested: --launch-test ran; TestResult says how it went.
	Tested     bool    `json:"tested"`
	TestResult string  `json:"test_result,omitempty"`
	TookMs     float64 `json:"took_ms,omitempty"`
	Problem    string  `json:"problem,omitempty"`
}

// checkLaunch checks the launch setting: the program exists (found in
// PATH for a bare name, as the bridge looks it up) and, with --launch-test,
// it starts and its base accepts connections. It runs before the base is
// checked, so that the base check sees what the test started.
func checkLaunch(ctx context.Context, o Options) *LaunchReport {
	l := o.Launch
	r := &LaunchReport{Command: l.Command}
	r.Found = launch.Find(l.Program)
	if r.Found == "" {
		r.Problem = fmt.Sprintf("the program %s is not found: a call that finds the base down cannot start %s (mcp-bridge launch-command suggests one)", l.Program, l.Name)
		return r
	}
	if p := (launch.Command{Path: l.Program, Args: l.Args}).Problems(l.Home); len(p) > 0 {
		r.Problem = strings.Join(p, "; ") + " (mcp-bridge launch-command suggests a command)"
		return r
	}
	if l.Test == nil {
		return r
	}
	r.Tested = true
	start := time.Now()
	err := l.Test(ctx)
	r.TookMs = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		r.Problem = err.Error()
		return r
	}
	r.TestResult = fmt.Sprintf("the base at %s accepts connections", o.Base.Addr)
	return r
}

func printLaunch(w io.Writer, r *LaunchReport) {
	if r == nil {
		return
	}
	switch {
	case r.Found == "" || r.Problem != "" && !r.Tested:
		fmt.Fprintf(w, "FAIL  launch: %s\n", r.Problem)
		return
	default:
		fmt.Fprintf(w, "ok    launch: a call that finds the base down starts %s (found: %s)\n", r.Command, r.Found)
	}
	switch {
	case !r.Tested:
		fmt.Fprintln(w, "info  launch: not tried (--launch-test starts it as a bridge would, when the base is down)")
	case r.Problem != "":
		fmt.Fprintf(w, "FAIL  launch test: %s\n", r.Problem)
	default:
		fmt.Fprintf(w, "ok    launch test: %s (%.1f s)\n", r.TestResult, r.TookMs/1000)
	}
}
