// Package checks is `mcp-bridge verify`: the end-to-end checks of everything
// a client relies on, each run against a fresh bridge child process.
package checks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"

	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
	"github.com/mcp-bridge/mcp-bridge/verify"
)

// Options configure Run.
type Options struct {
	// Bridge is the bridge binary to check.
	Bridge string
	// Base is the CAD base address; empty starts a simulated base with
	// fault tools on a free port.
	Base string
	// Only runs the checks whose names contain this text.
	Only string
	// Scratch says the base's drawing may be changed: the checks that
	// draw run against it too, not only against the simulated base.
	Scratch bool
	// Tool and Args name the tool the checks that need a real tools/call
	// use (Args a JSON object, "{}" when empty). Without Tool one is
	// chosen from the base's list; see chooseTool.
	Tool, Args string
}

// Status of a check.
type Status string

const (
	Pass Status = "pass"
	Fail Status = "FAIL"
	Skip Status = "skip"
)

// Result is the outcome of one named check.
type Result struct {
	Name   string        `json:"name"`
	Status Status        `json:"status"`
	Took   time.Duration `json:"took_ns"`
	Detail string        `json:"detail,omitempty"`
}

// Report is the outcome of Run.
type Report struct {
	Bridge  string   `json:"bridge"`
	Base    string   `json:"base"`
	Sim     bool     `json:"simulated_base"`
	Results []Result `json:"results"`
	Passed  int      `json:"passed"`
	Failed  int      `json:"failed"`
	Skipped int      `json:"skipped"`
	Hint    string   `json:"hint,omitempty"`
}

// OK reports whether nothing failed.
func (r *Report) OK() bool { return r.Failed == 0 }

// errSkip marks a check that cannot run against this base.
type errSkip struct{ why string }

func (e errSkip) Error() string { return e.why }

func skip(format string, a ...any) error { return errSkip{fmt.Sprintf(format, a...)} }

// verifier is the state shared by the checks of one run.
type verifier struct {
	opts   Options
	base   string
	sim    *simbase.Server // non-nil when verify started the base itself
	faults bool            // the base has the simulator's fault tools
	direct *tcpbase.Client

	mu      sync.Mutex
	written int64     // bytes all bridges of the run wrote to stdout
	impure  string    // the first offence against the purity rule, for its check
	tool    *callTool // chosen once, by chooseTool
	toolErr error
}

// Run runs every check and returns the report. progress, if not nil, gets
// each result as it is known.
func Run(ctx context.Context, opts Options, progress func(Result)) (*Report, error) {
	v := &verifier{opts: opts, base: opts.Base}
	if v.base == "" {
		sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Faults: true})
		if err != nil {
			return nil, fmt.Errorf("starting the simulated base: %w", err)
		}
		defer sim.Close()
		v.sim, v.base, v.faults = sim, sim.Addr(), true
	}
	v.direct = &tcpbase.Client{Addr: v.base, ConnectTimeout: 3 * time.Second}
	if v.sim == nil {
		v.faults = v.baseHasFaultTools(ctx)
	}
	rep := &Report{Bridge: opts.Bridge, Base: v.base, Sim: v.sim != nil}
	for _, c := range checks() {
		if opts.Only != "" && !strings.Contains(c.name, opts.Only) {
			continue
		}
		r := v.runCheck(ctx, c)
		rep.Results = append(rep.Results, r)
		switch r.Status {
		case Pass:
			rep.Passed++
		case Fail:
			rep.Failed++
		case Skip:
			rep.Skipped++
		}
		if progress != nil {
			progress(r)
		}
	}
	if rep.Failed > 0 {
		rep.Hint = v.hint(ctx)
	}
	return rep, nil
}

func (v *verifier) runCheck(ctx context.Context, c check) (r Result) {
	r.Name = c.name
	start := time.Now()
	defer func() { r.Took = time.Since(start) }()
	if c.faults && !v.faults {
		r.Status, r.Detail = Skip, "needs the fault tools of `mcp-bridge sim --faults`"
		return r
	}
	if c.sim && v.sim == nil && !v.opts.Scratch {
		r.Status, r.Detail = Skip, "changes the drawing: runs only against the simulated base or with --scratch"
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	t := &T{v: v, ctx: ctx}
	err := c.run(t)
	t.cleanup()
	var sk errSkip
	switch {
	case errors.As(err, &sk):
		r.Status, r.Detail = Skip, sk.why
	case err != nil:
		r.Status, r.Detail = Fail, err.Error()
	default:
		r.Status, r.Detail = Pass, t.note
	}
	return r
}

// baseHasFaultTools asks the base for its tools: a real base has none of
// the simulator's fault tools, and checks that need them are skipped.
func (v *verifier) baseHasFaultTools(ctx context.Context) bool {
	ans, err := v.direct.Call(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	return err == nil && strings.Contains(string(ans), `"fault_sleep"`) && strings.Contains(string(ans), `"sim_stats"`)
}

// hint is one line on what to do when checks failed.
func (v *verifier) hint(ctx context.Context) string {
	_, err := v.direct.Call(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if errors.Is(err, tcpbase.ErrUnreachable) {
		return fmt.Sprintf("nothing answers at %s: start the CAD program with its MCP base enabled, check --host/--port, or run `mcp-bridge verify` without them to use the simulated base", v.base)
	}
	if err != nil {
		return fmt.Sprintf("the base at %s does not answer tools/list properly (%v): is it the CAD program's MCP base?", v.base, err)
	}
	return "the bridge misbehaved: rerun with --only <check> and CAD_MCP_LOG_LEVEL=debug, and report the detail"
}

// T is what a check gets: helpers to start bridges and talk to them.
type T struct {
	v       *verifier
	ctx     context.Context
	bridges []*verify.Bridge
	after   []func()
	note    string // what a passing check says it did (the tool it called)
}

func (t *T) onCleanup(f func()) { t.after = append(t.after, f) }

func (t *T) cleanup() {
	defer func() {
		for _, f := range t.after {
			f()
		}
	}()
	for _, s := range t.bridges {
		s.Close()
		t.v.mu.Lock()
		t.v.written += s.Written()
		if t.v.impure == "" {
			t.v.impure = s.Impure()
		}
		t.v.mu.Unlock()
	}
}

// bridge starts a bridge against the base (or addr, when given).
func (t *T) bridgeAt(addr string, args ...string) (*verify.Bridge, error) {
	host, port, _ := net.SplitHostPort(addr)
	// Checks start bases on random ports: keep their tool lists out of the
	// user's cache (the cache checks pass their own --cache-dir).
	all := []string{"--host", host, "--port", port, "--log-level", "error"}
	if !slices.Contains(args, "--cache-dir") {
		all = append(all, "--no-cache")
	}
	all = append(all, args...)
	s, err := verify.Start(t.v.opts.Bridge, all, verify.Options{})
	if err != nil {
		return nil, fmt.Errorf("starting the bridge: %w", err)
	}
	t.bridges = append(t.bridges, s)
	return s, nil
}

func (t *T) bridge(args ...string) (*verify.Bridge, error) { return t.bridgeAt(t.v.base, args...) }

// answerWait is how long a check waits for a line.
const answerWait = 20 * time.Second

// ask sends line and returns the next line the bridge writes.
func ask(s *verify.Bridge, line string) (string, error) {
	if err := s.Send(line); err != nil {
		return "", fmt.Errorf("writing to the bridge: %w", err)
	}
	got, err := s.Recv(answerWait)
	if err != nil {
		return "", fmt.Errorf("after %s: %w", verify.Short(line), err)
	}
	return got, nil
}

// expectLine checks that the exchange gives exactly want.
func expectLine(s *verify.Bridge, send, want string) error {
	got, err := ask(s, send)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("got %s, want %s", verify.Short(got), verify.Short(want))
	}
	return nil
}

// direct sends a frame straight to the base.
func (t *T) direct(frame string) (string, error) {
	ans, err := t.v.direct.Call(t.ctx, []byte(frame))
	if err != nil {
		return "", fmt.Errorf("direct call to the base: %w", err)
	}
	return string(ans), nil
}

// raw returns the raw JSON of a dotted path, for byte-exact comparisons.
func raw(line, path string) string {
	cur := []byte(line)
	for _, k := range strings.Split(path, ".") {
		if rpc.Kind(cur) != rpc.KindObject {
			return ""
		}
		cur = rpc.Field(cur, k)
	}
	return string(cur)
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr, nil
}

// PrintTable writes the report for people.
func PrintTable(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "mcp-bridge verify: bridge %s, base %s", rep.Bridge, rep.Base)
	if rep.Sim {
		fmt.Fprint(w, " (simulated, with fault tools)")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tRESULT\tTIME\tDETAIL")
	for _, r := range rep.Results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Name, r.Status, fmtDur(r.Took), r.Detail)
	}
	tw.Flush()
	if rep.Hint != "" {
		fmt.Fprintf(w, "hint: %s\n", rep.Hint)
	}
	fmt.Fprintf(w, "%d passed, %d failed", rep.Passed, rep.Failed)
	if rep.Skipped > 0 {
		fmt.Fprintf(w, ", %d skipped", rep.Skipped)
	}
	fmt.Fprintln(w)
}

func fmtDur(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + "s"
}
