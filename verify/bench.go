package verify

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// BenchOptions configure Bench.
type BenchOptions struct {
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

// BenchReport is the whole run.
type BenchReport struct {
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

// Bench measures the bridge against the physical limit: a direct call to
// the same base, alternating direct and bridged runs so that machine drift
// cancels.
func Bench(opts BenchOptions) (*BenchReport, error) {
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
		sim, addr, err := startSimProcess(simBin)
		if err != nil {
			return nil, err
		}
		defer sim.Process.Kill()
		base = addr
	} else {
		faults = false
	}
	rep := &BenchReport{CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH, Base: base}

	b, err := startBenchBridge(opts.Bridge, base)
	if err != nil {
		return nil, err
	}
	defer b.close()
	if _, err := b.roundTrip(initLine("0", "2025-06-18")); err != nil {
		return nil, err
	}

	latency := func(name, frame string, runs int, target float64) error {
		logf("bench: %s (%d runs each way)", name, runs)
		d, br, err := alternate(runs,
			func() error { _, err := directCall(base, frame); return err },
			func() error { _, err := b.roundTrip(frame); return err })
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		ratio := br.P50 / d.P50
		rep.Figures = append(rep.Figures, Figure{Name: name, Unit: "µs", Direct: d, Bridged: br, Ratio: ratio,
			Target: fmt.Sprintf("p50 ratio ≤ %.1f", target), Met: met(ratio <= target)})
		return nil
	}

	// A figure that cannot be measured is reported, and the rest go on.
	try := func(name string, err error) {
		if err != nil {
			logf("bench: %s: %v", name, err)
			rep.Figures = append(rep.Figures, Figure{Name: name, Note: "failed: " + err.Error(), Met: met(false)})
		}
	}
	try("small tools/call", latency("small tools/call (get_drawing_info)", toolCall("1", "get_drawing_info", `{}`), opts.Runs, 1.3))
	try("tools/list", latency("tools/list", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, opts.Runs, 1.3))
	if faults {
		try("1 MiB answer", latency("tools/call, 1 MiB answer", toolCall("3", "fault_big", `{"mib":1}`), max(opts.Runs/5, 20), 1.5))
		try("15 MiB answer", bigAnswer(opts, base, rep, logf))
		try("ping during a call", pingDuringCall(opts, base, rep, logf))
	}
	try("start-up", startup(opts, base, rep, logf))
	try("throughput", throughput(opts, base, rep, logf))
	try("idle RSS", idleRSS(opts, base, rep))
	return rep, nil
}

// bigAnswer measures 15 MiB answers in a fresh bridge, for its peak RSS.
func bigAnswer(opts BenchOptions, base string, rep *BenchReport, logf func(string, ...any)) error {
	logf("bench: 15 MiB answers")
	b, err := startBenchBridge(opts.Bridge, base)
	if err != nil {
		return err
	}
	defer b.close()
	frame := toolCall("4", "fault_big", `{"mib":15}`)
	d, br, err := alternate(10,
		func() error { _, err := directCall(base, frame); return err },
		func() error {
			line, err := b.roundTrip(frame)
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
		memFigure("bridge peak RSS after 15 MiB answers", b.cmd.Process.Pid, "VmHWM", 64))
	return nil
}

// alternate runs direct and bridged runs times each, in alternating order
// so that machine drift cancels, and returns their latency stats.
func alternate(runs int, direct, bridged func() error) (*Stats, *Stats, error) {
	var d, b []time.Duration
	for i := range runs {
		for _, isDirect := range []bool{i%2 == 0, i%2 != 0} {
			start := time.Now()
			if isDirect {
				if err := direct(); err != nil {
					return nil, nil, fmt.Errorf("direct: %w", err)
				}
				d = append(d, time.Since(start))
			} else {
				if err := bridged(); err != nil {
					return nil, nil, fmt.Errorf("bridged: %w", err)
				}
				b = append(b, time.Since(start))
			}
		}
	}
	return stats(d), stats(b), nil
}

// memFigure reads a memory figure of the bridge (VmRSS, VmHWM) against a
// limit in MiB.
func memFigure(name string, pid int, key string, limitMiB float64) Figure {
	kb, ok := procStatus(pid, key)
	f := Figure{Name: name, Unit: "MiB", Value: kb / 1024, Target: fmt.Sprintf("≤ %.0f MiB", limitMiB)}
	if ok {
		f.Met = met(kb/1024 <= limitMiB)
	} else {
		f.Note = "needs /proc (Linux)"
	}
	return f
}

// pingDuringCall measures ping round trips while a 2 s call is in flight.
func pingDuringCall(opts BenchOptions, base string, rep *BenchReport, logf func(string, ...any)) error {
	logf("bench: ping during a 2 s tools/call")
	b, err := startBenchBridge(opts.Bridge, base)
	if err != nil {
		return err
	}
	defer b.close()
	if err := b.send(toolCall(`"slow"`, "fault_sleep", `{"ms":2000}`)); err != nil {
		return err
	}
	time.Sleep(50 * time.Millisecond) // let the call reach the base
	var pings []time.Duration
	deadline := time.Now().Add(1500 * time.Millisecond)
	for i := 0; time.Now().Before(deadline); i++ {
		start := time.Now()
		line, err := b.roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":"p%d","method":"ping"}`, i))
		if err != nil {
			return err
		}
		if !strings.Contains(line, `"p`+strconv.Itoa(i)+`"`) {
			return fmt.Errorf("ping %d got %.100s", i, line)
		}
		pings = append(pings, time.Since(start))
		time.Sleep(2 * time.Millisecond)
	}
	if _, err := b.recv(); err != nil { // the slow call's answer
		return err
	}
	s := stats(pings)
	rep.Figures = append(rep.Figures, Figure{Name: "ping while a 2 s call runs", Unit: "µs", Bridged: s,
		Target: "p99 ≤ 1 ms", Met: met(s.P99 <= 1000)})
	return nil
}

// startup measures spawn → initialize answered, and stdin EOF → exit.
func startup(opts BenchOptions, base string, rep *BenchReport, logf func(string, ...any)) error {
	logf("bench: start-up and exit (20 runs)")
	var up, down []time.Duration
	for range 20 {
		start := time.Now()
		b, err := startBenchBridge(opts.Bridge, base)
		if err != nil {
			return err
		}
		if _, err := b.roundTrip(initLine("1", "2025-06-18")); err != nil {
			b.close()
			return err
		}
		up = append(up, time.Since(start))
		start = time.Now()
		b.stdin.Close()
		if err := b.cmd.Wait(); err != nil {
			return fmt.Errorf("bridge exit: %w", err)
		}
		down = append(down, time.Since(start))
	}
	s := stats(up)
	rep.Figures = append(rep.Figures,
		Figure{Name: "start-up: spawn → initialize answered", Unit: "µs", Bridged: s, Target: "p50 ≤ 5 ms", Met: met(s.P50 <= 5000)},
		Figure{Name: "exit: stdin EOF → process gone", Unit: "µs", Bridged: stats(down)})
	return nil
}

// throughput writes Calls requests without waiting and reads the answers,
// in order, against a direct sequential loop.
func throughput(opts BenchOptions, base string, rep *BenchReport, logf func(string, ...any)) error {
	n := opts.Calls
	logf("bench: throughput, %d pipelined calls vs a direct sequential loop", n)
	frame := func(i int) string { return toolCall(strconv.Itoa(i), "get_drawing_info", `{}`) }

	start := time.Now()
	for i := range n {
		if _, err := directCall(base, frame(i)); err != nil {
			return err
		}
	}
	directRate := float64(n) / time.Since(start).Seconds()

	b, err := startBenchBridge(opts.Bridge, base, "--queue", strconv.Itoa(n))
	if err != nil {
		return err
	}
	defer b.close()
	start = time.Now()
	errc := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(b.stdin, 64<<10)
		for i := range n {
			w.WriteString(frame(i) + "\n")
		}
		errc <- w.Flush()
	}()
	for i := range n {
		line, err := b.recv()
		if err != nil {
			return err
		}
		if !strings.HasPrefix(line, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"result"`) {
			return fmt.Errorf("answer %d out of order or failed: %.200s", i, line)
		}
	}
	bridgedRate := float64(n) / time.Since(start).Seconds()
	if err := <-errc; err != nil {
		return err
	}
	ratio := bridgedRate / directRate
	rep.Figures = append(rep.Figures, Figure{Name: fmt.Sprintf("throughput, %d pipelined calls", n), Unit: "calls/s",
		Direct: &Stats{P50: directRate, N: n}, Bridged: &Stats{P50: bridgedRate, N: n}, Ratio: ratio,
		Target: "bridged / direct ≥ 0.8", Met: met(ratio >= 0.8), Note: "direct: a sequential loop"})
	return nil
}

func idleRSS(opts BenchOptions, base string, rep *BenchReport) error {
	b, err := startBenchBridge(opts.Bridge, base)
	if err != nil {
		return err
	}
	defer b.close()
	if _, err := b.roundTrip(initLine("1", "2025-06-18")); err != nil {
		return err
	}
	time.Sleep(100 * time.Millisecond)
	rep.Figures = append(rep.Figures, memFigure("idle RSS after initialize", b.cmd.Process.Pid, "VmRSS", 12))
	return nil
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

// benchBridge is a bridge child read synchronously, so that the client's
// own overhead is as small as in the direct case.
type benchBridge struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

func startBenchBridge(bin, base string, extra ...string) (*benchBridge, error) {
	host, port, _ := net.SplitHostPort(base)
	cmd := exec.Command(bin, append([]string{"--host", host, "--port", port, "--log-level", "error", "--no-cache"}, extra...)...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &benchBridge{cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 1<<20)}, nil
}

func (b *benchBridge) send(line string) error {
	_, err := io.WriteString(b.stdin, line+"\n")
	return err
}

func (b *benchBridge) recv() (string, error) {
	line, err := b.out.ReadBytes('\n')
	if err != nil {
		return "", err
	}
	if !json.Valid(line) {
		return "", fmt.Errorf("bridge answer is not JSON: %.100s", line)
	}
	return string(bytes.TrimSuffix(line, []byte("\n"))), nil
}

func (b *benchBridge) roundTrip(line string) (string, error) {
	if err := b.send(line); err != nil {
		return "", err
	}
	return b.recv()
}

func (b *benchBridge) close() {
	b.stdin.Close()
	done := make(chan struct{})
	go func() { b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		b.cmd.Process.Kill()
		<-done
	}
}

// startSimProcess runs `bin sim --port 0 --faults` and returns its address.
func startSimProcess(bin string) (*exec.Cmd, string, error) {
	cmd := exec.Command(bin, "sim", "--port", "0", "--faults")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on ") {
		cmd.Process.Kill()
		return nil, "", fmt.Errorf("simulated base did not start: %q %v", line, err)
	}
	return cmd, strings.TrimSpace(strings.TrimPrefix(line, "listening on ")), nil
}

// procStatus reads a kB figure such as VmHWM from /proc/<pid>/status.
func procStatus(pid int, key string) (float64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return f, err == nil
		}
	}
	return 0, false
}

// PrintBench writes the report as a table for people.
func PrintBench(w io.Writer, rep *BenchReport) {
	fmt.Fprintf(w, "mcp-bridge bench: %d CPUs, %s, %s, base %s\n", rep.CPUs, rep.GoVersion, rep.OS, rep.Base)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FIGURE\tDIRECT p50 / p99\tBRIDGED p50 / p99\tRATIO / VALUE\tTARGET\tMET")
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", f.Name, num(f.Direct, f.Unit), num(f.Bridged, f.Unit), val, f.Target, ok)
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
