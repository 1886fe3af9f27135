// Package bench is `mcp-bridge bench`: what the bridge costs, measured
// against a direct call to the same base, plus its memory figures.
package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/verify"
)

// Options configure Run.
type Options struct {
	Bridge string // the bridge binary
	Sim    string // the binary whose `sim --faults` is the base; default Bridge
	Base   string // a real base; empty starts the simulated base as a child
	Runs   int    // samples per latency figure (default 300)
	Calls  int    // pipelined calls in the throughput run (default 10000)
	Log    io.Writer
}

// Figure is one measured line of the report.
type Figure struct {
	Name    string  `json:"name"`
	Unit    string  `json:"unit"`
	Direct  *Stats  `json:"direct,omitempty"`
	Bridged *Stats  `json:"bridged,omitempty"`
	Ratio   float64 `json:"ratio,omitempty"` // bridged p50 / direct p50, or as the figure says
	// Floor is the same figure for a minimal relay (relay/main.go) in the
	// same run, and VsFloor the bridge's p50 (or value) over the floor's.
	Floor   *Stats  `json:"floor,omitempty"`
	VsFloor float64 `json:"vs_floor,omitempty"`
	Value   float64 `json:"value,omitempty"` // for single-valued figures
	Target  string  `json:"target,omitempty"`
	Met     *bool   `json:"met,omitempty"`
	Note    string  `json:"note,omitempty"`
}

// Stats are percentiles of a sample, in the figure's unit.
type Stats struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	N   int     `json:"n"`
}

// Report is the whole run.
type Report struct {
	CPUs      int      `json:"cpus"`
	GoVersion string   `json:"go_version"`
	OS        string   `json:"os"`
	Base      string   `json:"base"`
	Figures   []Figure `json:"figures"`
}

func stats(samples []time.Duration) *Stats {
	if len(samples) == 0 {
		return &Stats{}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	pct := func(p float64) float64 {
		i := int(p * float64(len(s)-1))
		return float64(s[i].Nanoseconds()) / 1e3
	}
	return &Stats{P50: pct(0.50), P99: pct(0.99), N: len(s)}
}

func met(ok bool) *bool { return &ok }

// Run measures the bridge against the physical limit: a direct call to
// the same base, alternating direct and bridged runs so that machine drift
// cancels.
func Run(opts Options) (*Report, error) {
	if opts.Runs <= 0 {
		opts.Runs = 300
	}
	if opts.Calls <= 0 {
		opts.Calls = 10000
	}
	logf := func(format string, a ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, format+"\n", a...)
		}
	}
	base := opts.Base
	faults := true
	if base == "" {
		simBin := opts.Sim
		if simBin == "" {
			simBin = opts.Bridge
		}
		sim, addr, err := verify.StartSim(simBin)
		if err != nil {
			return nil, err
		}
		defer sim.Process.Kill()
		base = addr
	} else {
		faults = false
	}
	rep := &Report{CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH, Base: base}

	b, err := startBridge(opts.Bridge, base)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	if _, err := roundTrip(b, verify.Initialize("0", "2025-06-18")); err != nil {
		return nil, err
	}

	// The floor: a minimal relay, built now, measured beside the bridge.
	var fl *floor
	var relay *verify.Bridge
	if bin, cleanup, err := buildRelay(); err != nil {
		logf("bench: no floor: %v", err)
	} else {
		defer cleanup()
		fl = &floor{bin: bin, base: base}
		if _, relay, err = spawnToInit(fl.startStdio); err != nil {
			return nil, fmt.Errorf("the floor relay: %w", err)
		}
		defer relay.Close()
	}

	latency := func(name, frame string, runs int, target float64) error {
		logf("bench: %s (%d runs each way)", name, runs)
		fns := []func() error{
			func() error { _, err := directCall(base, frame); return err },
			func() error { _, err := roundTrip(b, frame); return err },
		}
		if relay != nil {
			fns = append(fns, func() error { _, err := roundTrip(relay, frame); return err })
		}
		st, err := alternateN(runs, fns...)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		d, br := st[0], st[1]
		ratio := br.P50 / d.P50
		f := Figure{Name: name, Unit: "µs", Direct: d, Bridged: br, Ratio: ratio,
			Target: fmt.Sprintf("p50 ratio ≤ %.1f", target), Met: met(ratio <= target)}
		if relay != nil {
			f = withFloor(f, st[2])
		}
		rep.Figures = append(rep.Figures, f)
		return nil
	}

	// A figure that cannot be measured is reported, and the rest go on.
	try := func(name string, err error) {
		if err != nil {
			logf("bench: %s: %v", name, err)
			rep.Figures = append(rep.Figures, Figure{Name: name, Note: "failed: " + err.Error(), Met: met(false)})
		}
	}
	try("small tools/call", latency("small tools/call (get_drawing_info)", verify.ToolCall("1", "get_drawing_info", `{}`), opts.Runs, 1.3))
	try("tools/list", latency("tools/list", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, opts.Runs, 1.3))
	if faults {
		try("1 MiB answer", latency("tools/call, 1 MiB answer", verify.ToolCall("3", "fault_big", `{"mib":1}`), max(opts.Runs/5, 20), 1.5))
		try("15 MiB answer", bigAnswer(opts, base, rep, logf))
		try("batch of 15 MiB answers", bigBatch(opts, base, rep, logf))
		try("ping during a call", pingDuringCall(opts, base, rep, logf))
	}
	try("HTTP", httpFigures(opts, base, b, fl, faults, rep, logf))
	try("connect", connectFigures(opts, base, b, faults, rep, logf))
	try("start-up", startup(opts, base, fl, rep, logf))
	try("throughput", throughput(opts, base, fl, rep, logf))
	try("idle RSS", idleRSS(opts, base, fl, rep))
	return rep, nil
}

// bigAnswer measures 15 MiB answers in a fresh bridge, for its peak RSS.
func bigAnswer(opts Options, base string, rep *Report, logf func(string, ...any)) error {
	logf("bench: 15 MiB answers")
	b, err := startBridge(opts.Bridge, base)
	if err != nil {
		return err
	}
	defer b.Close()
	frame := verify.ToolCall("4", "fault_big", `{"mib":15}`)
	d, br, err := alternate(10,
		func() error { _, err := directCall(base, frame); return err },
		func() error {
			line, err := roundTrip(b, frame)
			if err == nil && len(line) < 15<<20 {
				err = fmt.Errorf("15 MiB answer came back with %d bytes: %.200s", len(line), line)
			}
			return err
		})
	if err != nil {
		return err
	}
	rep.Figures = append(rep.Figures,
		Figure{Name: "tools/call, 15 MiB answer", Unit: "µs", Direct: d, Bridged: br, Ratio: br.P50 / d.P50},
		memFigure("bridge peak RSS after 15 MiB answers", b.PID(), "VmHWM", 64))
	return nil
}

// bigBatch sends a fresh bridge one batch of 20 calls that each answer
// 15 MiB, and reports its peak RSS: memory must not grow with the batch
// (goal: 2 × --max-message + 32 MiB).
func bigBatch(opts Options, base string, rep *Report, logf func(string, ...any)) error {
	const n, mib = 20, 15
	logf("bench: a batch of %d calls answering %d MiB each", n, mib)
	b, err := startBridge(opts.Bridge, base)
	if err != nil {
		return err
	}
	defer b.Close()
	calls := make([]string, n)
	for i := range calls {
		calls[i] = verify.ToolCall(strconv.Itoa(i), "fault_big", fmt.Sprintf(`{"mib":%d}`, mib))
	}
	line, err := roundTrip(b, "["+strings.Join(calls, ",")+"]")
	if err != nil {
		return err
	}
	var answers []struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &answers); err != nil {
		return fmt.Errorf("the batch answer is not an array of answers (%d bytes): %w", len(line), err)
	}
	full := 0
	for _, a := range answers {
		if a.Result != nil {
			full++
		}
	}
	f := memFigure(fmt.Sprintf("bridge peak RSS, batch of %d × %d MiB answers", n, mib), b.PID(), "VmHWM", float64(2*(rpc.DefaultMaxMessage>>20)+32))
	note := fmt.Sprintf("%d of %d answered in full, on a %.1f MiB line", full, n, float64(len(line))/(1<<20))
	if f.Note != "" {
		note = f.Note + "; " + note
	}
	f.Note = note
	rep.Figures = append(rep.Figures, f)
	return nil
}

// alternate runs direct and bridged runs times each, in alternating order
// so that machine drift cancels, and returns their latency stats.
func alternate(runs int, direct, bridged func() error) (*Stats, *Stats, error) {
	st, err := alternateN(runs, direct, bridged)
	if err != nil {
		return nil, nil, err
	}
	return st[0], st[1], nil
}

// alternateN runs each of fns runs times, starting each round with the
// next one in turn so that machine drift cancels, and returns their
// latency stats in the order of fns.
func alternateN(runs int, fns ...func() error) ([]*Stats, error) {
	samples := make([][]time.Duration, len(fns))
	for i := range runs {
		for k := range fns {
			n := (i + k) % len(fns)
			start := time.Now()
			if err := fns[n](); err != nil {
				return nil, fmt.Errorf("%s: %w", []string{"direct", "bridged", "floor"}[min(n, 2)], err)
			}
			samples[n] = append(samples[n], time.Since(start))
		}
	}
	out := make([]*Stats, len(fns))
	for n, s := range samples {
		out[n] = stats(s)
	}
	return out, nil
}

// memFigure reads a memory figure of the bridge (VmRSS, VmHWM) against a
// limit in MiB.
func memFigure(name string, pid int, key string, limitMiB float64) Figure {
	kb, ok := verify.ProcStatus(pid, key)
	f := Figure{Name: name, Unit: "MiB", Value: kb / 1024, Target: fmt.Sprintf("≤ %.0f MiB", limitMiB)}
	if ok {
		f.Met = met(kb/1024 <= limitMiB)
	} else {
		f.Note = "needs /proc (Linux)"
	}
	return f
}

// pingDuringCall measures ping round trips while a 2 s call is in flight.
func pingDuringCall(opts Options, base string, rep *Report, logf func(string, ...any)) error {
	logf("bench: ping during a 2 s tools/call")
	b, err := startBridge(opts.Bridge, base)
	if err != nil {
		return err
	}
	defer b.Close()
	if err := b.Send(verify.ToolCall(`"slow"`, "fault_sleep", `{"ms":2000}`)); err != nil {
		return err
	}
	time.Sleep(50 * time.Millisecond) // let the call reach the base
	var pings []time.Duration
	deadline := time.Now().Add(1500 * time.Millisecond)
	for i := 0; time.Now().Before(deadline); i++ {
		start := time.Now()
		line, err := roundTrip(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":"p%d","method":"ping"}`, i))
		if err != nil {
			return err
		}
		if !strings.Contains(line, `"p`+strconv.Itoa(i)+`"`) {
			return fmt.Errorf("ping %d got %.100s", i, line)
		}
		pings = append(pings, time.Since(start))
		time.Sleep(2 * time.Millisecond)
	}
	if _, err := recv(b); err != nil { // the slow call's answer
		return err
	}
	s := stats(pings)
	rep.Figures = append(rep.Figures, Figure{Name: "ping while a 2 s call runs", Unit: "µs", Bridged: s,
		Target: "p99 ≤ 1 ms", Met: met(s.P99 <= 1000)})
	return nil
}

// startup measures spawn → initialize answered, and stdin EOF → exit.
func startup(opts Options, base string, fl *floor, rep *Report, logf func(string, ...any)) error {
	logf("bench: start-up and exit (20 runs)")
	var up, down, floorUp []time.Duration
	for range 20 {
		if fl != nil {
			d, r, err := spawnToInit(fl.startStdio)
			if err != nil {
				return fmt.Errorf("the floor relay: %w", err)
			}
			r.Close()
			floorUp = append(floorUp, d)
		}
		d, b, err := spawnToInit(func() (*verify.Bridge, error) { return startBridge(opts.Bridge, base) })
		if err != nil {
			return err
		}
		up = append(up, d)
		start := time.Now()
		b.CloseStdin()
		if code, err := b.Wait(time.Minute); err != nil || code != 0 {
			return fmt.Errorf("bridge exit %d: %v", code, err)
		}
		down = append(down, time.Since(start))
	}
	s := stats(up)
	var fs *Stats
	if fl != nil {
		fs = stats(floorUp)
	}
	rep.Figures = append(rep.Figures,
		withFloor(Figure{Name: "start-up: spawn → initialize answered", Unit: "µs", Bridged: s, Target: "p50 ≤ 5 ms", Met: met(s.P50 <= 5000)}, fs),
		Figure{Name: "exit: stdin EOF → process gone", Unit: "µs", Bridged: stats(down)})
	return nil
}

// throughput writes Calls requests without waiting and reads the answers,
// in order, against a direct sequential loop.
func throughput(opts Options, base string, fl *floor, rep *Report, logf func(string, ...any)) error {
	n := opts.Calls
	logf("bench: throughput, %d pipelined calls vs a direct sequential loop", n)
	frame := func(i int) string { return verify.ToolCall(strconv.Itoa(i), "get_drawing_info", `{}`) }

	start := time.Now()
	for i := range n {
		if _, err := directCall(base, frame(i)); err != nil {
			return err
		}
	}
	directRate := float64(n) / time.Since(start).Seconds()

	b, err := startBridge(opts.Bridge, base, "--queue", strconv.Itoa(n))
	if err != nil {
		return err
	}
	defer b.Close()
	bridgedRate, err := pipelined(b, n, frame)
	if err != nil {
		return err
	}
	var floorRate *Stats
	if fl != nil {
		r, err := fl.startStdio()
		if err != nil {
			return err
		}
		defer r.Close()
		rate, err := pipelined(r, n, frame)
		if err != nil {
			return fmt.Errorf("the floor relay: %w", err)
		}
		floorRate = &Stats{P50: rate, N: n}
	}
	ratio := bridgedRate / directRate
	rep.Figures = append(rep.Figures, withFloor(Figure{Name: fmt.Sprintf("throughput, %d pipelined calls", n), Unit: "calls/s",
		Direct: &Stats{P50: directRate, N: n}, Bridged: &Stats{P50: bridgedRate, N: n}, Ratio: ratio,
		Target: "bridged / direct ≥ 0.8", Met: met(ratio >= 0.8), Note: "direct: a sequential loop; vs floor below 1 is slower"}, floorRate))
	return nil
}

// pipelined writes n requests to b without waiting and reads the answers,
// which must come in order; it returns the rate.
func pipelined(b *verify.Bridge, n int, frame func(int) string) (float64, error) {
	start := time.Now()
	errc := make(chan error, 1)
	go func() {
		var batch strings.Builder
		for i := range n {
			batch.WriteString(frame(i) + "\n")
			if batch.Len() >= 64<<10 || i == n-1 {
				if err := b.SendRaw([]byte(batch.String())); err != nil {
					errc <- err
					return
				}
				batch.Reset()
			}
		}
		errc <- nil
	}()
	for i := range n {
		line, err := recv(b)
		if err != nil {
			return 0, err
		}
		if !strings.HasPrefix(line, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"result"`) {
			return 0, fmt.Errorf("answer %d out of order or failed: %.200s", i, line)
		}
	}
	rate := float64(n) / time.Since(start).Seconds()
	return rate, <-errc
}

func idleRSS(opts Options, base string, fl *floor, rep *Report) error {
	_, b, err := spawnToInit(func() (*verify.Bridge, error) { return startBridge(opts.Bridge, base) })
	if err != nil {
		return err
	}
	defer b.Close()
	var r *verify.Bridge
	if fl != nil {
		if _, r, err = spawnToInit(fl.startStdio); err != nil {
			return fmt.Errorf("the floor relay: %w", err)
		}
		defer r.Close()
	}
	time.Sleep(100 * time.Millisecond)
	f := memFigure("idle RSS after initialize", b.PID(), "VmRSS", 12)
	if r != nil {
		f = memWithFloor(f, memFloor(r.PID(), "VmRSS"))
	}
	rep.Figures = append(rep.Figures, f)
	return nil
}

// memWithFloor adds the floor to a memory figure.
func memWithFloor(f Figure, fl *Stats) Figure {
	if fl == nil || fl.P50 == 0 || f.Value == 0 {
		return f
	}
	f.Floor = fl
	f.VsFloor = f.Value / fl.P50
	return f
}

// directCall is what any client must do at least: connect, send, read the
// answer, check that it is valid JSON.
func directCall(addr, frame string) ([]byte, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if _, err := io.WriteString(c, frame+"\n"); err != nil {
		return nil, err
	}
	ans, err := io.ReadAll(c)
	if err != nil {
		return nil, err
	}
	if !json.Valid(ans) {
		return nil, errors.New("direct answer is not JSON")
	}
	return ans, nil
}

// startBridge starts a bridge child against base; its log goes to stderr.
func startBridge(bin, base string, extra ...string) (*verify.Bridge, error) {
	host, port, _ := net.SplitHostPort(base)
	args := append([]string{"--host", host, "--port", port, "--log-level", "error", "--no-cache"}, extra...)
	return verify.Start(bin, args, verify.Options{Stderr: os.Stderr})
}

// answerWait bounds every wait for a line: a figure that takes longer failed.
const answerWait = 2 * time.Minute

// recv returns the next line, which must be a protocol message.
func recv(b *verify.Bridge) (string, error) {
	line, err := b.Recv(answerWait)
	if err != nil {
		return "", err
	}
	if bad := b.Impure(); bad != "" {
		return "", fmt.Errorf("the bridge wrote something that is not a protocol message: %s", bad)
	}
	return line, nil
}

func roundTrip(b *verify.Bridge, line string) (string, error) {
	if err := b.Send(line); err != nil {
		return "", err
	}
	return recv(b)
}

// Print writes the report as a table for people.
func Print(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "mcp-bridge bench: %d CPUs, %s, %s, base %s\n", rep.CPUs, rep.GoVersion, rep.OS, rep.Base)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FIGURE\tDIRECT p50 / p99\tBRIDGED p50 / p99\tRATIO / VALUE\tFLOOR p50\tVS FLOOR\tTARGET\tMET")
	num := func(s *Stats, unit string) string {
		if s == nil {
			return "-"
		}
		if unit == "calls/s" {
			return fmt.Sprintf("%.0f calls/s", s.P50)
		}
		return fmt.Sprintf("%s / %s", us(s.P50), us(s.P99))
	}
	for _, f := range rep.Figures {
		val := ""
		switch {
		case f.Ratio != 0:
			val = fmt.Sprintf("%.2f", f.Ratio)
		case f.Value != 0:
			val = fmt.Sprintf("%.1f %s", f.Value, f.Unit)
		}
		ok := ""
		if f.Met != nil {
			ok = map[bool]string{true: "yes", false: "NO"}[*f.Met]
		}
		if f.Note != "" {
			ok += " (" + f.Note + ")"
		}
		floorP50, vs := "-", "-"
		if f.Floor != nil {
			switch f.Unit {
			case "calls/s":
				floorP50 = fmt.Sprintf("%.0f calls/s", f.Floor.P50)
			case "MiB":
				floorP50 = fmt.Sprintf("%.1f MiB", f.Floor.P50)
			default:
				floorP50 = us(f.Floor.P50)
			}
			vs = fmt.Sprintf("%.2f", f.VsFloor)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", f.Name, num(f.Direct, f.Unit), num(f.Bridged, f.Unit), val, floorP50, vs, f.Target, ok)
	}
	tw.Flush()
}

func us(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2f s", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.2f ms", v/1e3)
	}
	return fmt.Sprintf("%.0f µs", v)
}
