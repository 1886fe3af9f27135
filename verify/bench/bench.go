// Package bench is `mcp-bridge bench`: what the bridge costs, measured
// against a direct call to the same base and against the floor (the least
// any relay must do, built by the bench from floor/main.go), plus its
// memory figures.
package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/verify"
)

// Options configure Run.
type Options struct {
	Bridge string   // the bridge binary
	Others []string // more bridge binaries measured beside it (an older build), named by file name
	Sim    string   // the binary whose `sim --faults` is the base; default Bridge
	Base   string   // a real base; empty starts the simulated base as a child
	Go     string   // the go command that builds the floor; default "go" on PATH
	Rounds int      // times each figure is measured; the median is reported (default 3)
	Runs   int      // samples per latency figure and round (default 300)
	Calls  int      // pipelined calls in the throughput runs (default 10000)
	// Symbols is a build of Bridge that keeps its symbols (without -s -w),
	// for the idle-RSS account; "" leaves the account out.
	Symbols string
	Log     io.Writer
}

// window is how many calls the throughput run keeps in flight, as a
// pipelining client does.
const window = 16

// The subjects every figure may measure, beside the bridges (named "bridge"
// and after their files).
const (
	direct = "direct" // the bench dialling the base itself
	floor  = "floor"  // the floor relay
)

// subject is one thing measured.
type subject struct {
	name string
	bin  string // "" for direct
}

func (s subject) isBridge() bool { return s.name != direct && s.name != floor }

// bench is one run: the base, the subjects, and the figures so far.
type bench struct {
	opts     Options
	base     string
	faults   bool   // the simulated base, with its fault_* tools
	floorBin string // over stdio
	floorWeb string // over HTTP
	bridges  []subject
	tmp      string // cache directories, the floor's build
	instant  string // a base that answers at once (instantBase), for the pipelined figure
	figs     *figures
	logf     func(string, ...any)
}

// Run measures the bridge, Rounds times over, against the direct call and
// the floor, alternating them within each figure so that machine drift
// cancels.
func Run(opts Options) (*Report, error) {
	if opts.Rounds <= 0 {
		opts.Rounds = 3
	}
	if opts.Runs <= 0 {
		opts.Runs = 300
	}
	if opts.Calls <= 0 {
		opts.Calls = 10000
	}
	b := &bench{opts: opts, logf: func(format string, a ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, format+"\n", a...)
		}
	}}
	rep := &Report{CPUs: runtime.NumCPU(), CPUModel: cpuModel(), GoVersion: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH,
		Date: time.Now().UTC().Format("2006-01-02 15:04 MST"), Bridge: bridgeVersion(opts.Bridge), Rounds: opts.Rounds, LoadBefore: loadAverage()}
	var err error
	if b.tmp, err = os.MkdirTemp("", "mcp-bridge-bench-"); err != nil {
		return nil, err
	}
	defer os.RemoveAll(b.tmp)
	b.base = opts.Base
	if b.base == "" {
		simBin := opts.Sim
		if simBin == "" {
			simBin = opts.Bridge
		}
		sim, addr, err := verify.StartSim(simBin)
		if err != nil {
			return nil, err
		}
		defer sim.Process.Kill()
		b.base, b.faults = addr, true
	}
	rep.Base = b.base
	instant, stopInstant, err := instantBase()
	if err != nil {
		return nil, err
	}
	defer stopInstant()
	b.instant = instant
	b.logf("bench: building the floor relay")
	if b.floorBin, b.floorWeb, err = buildFloor(opts.Go, b.tmp); err != nil {
		rep.Floor = "not measured: " + err.Error()
		b.logf("bench: %s", rep.Floor)
	} else {
		rep.Floor = "built from verify/bench/floor with " + goCommand(opts.Go)
	}
	b.bridges = append(b.bridges, subject{"bridge", opts.Bridge})
	for _, o := range opts.Others {
		b.bridges = append(b.bridges, subject{filepath.Base(o), o})
	}
	names := []string{direct, floor}
	for _, s := range b.bridges {
		names = append(names, s.name)
	}
	names = append(names, viaConnect)
	b.figs = newFigures(names...)
	for r := range opts.Rounds {
		b.logf("bench: round %d of %d", r+1, opts.Rounds)
		b.figs.round = r
		b.round()
	}
	rep.Figures = b.figs.report()
	if opts.Symbols != "" {
		b.logf("bench: the idle RSS account (%s)", opts.Symbols)
		if rep.Account, err = b.account(opts.Symbols); err != nil {
			rep.AccountNote = "not measured: " + err.Error()
			b.logf("bench: %s", rep.AccountNote)
		}
	}
	rep.LoadAfter = loadAverage()
	return rep, nil
}

// round measures every figure once. A figure that cannot be measured is
// reported, and the rest go on.
func (b *bench) round() {
	try := func(name string, err error) {
		if err != nil {
			b.logf("bench: %s: %v", name, err)
			b.figs.fail(name, err)
		}
	}
	try("stdio latency", b.stdioLatency())
	if b.faults {
		try("15 MiB answers", b.bigAnswer())
		try("batch of 15 MiB answers", b.bigBatch())
		try("ping during a call", b.pingDuringCall())
	}
	try("HTTP", b.httpFigures())
	try("connect", b.connectFigures())
	try("start-up", b.startup())
	try("HTTP start-up", b.httpStartup())
	try("throughput", b.throughput())
	try("pipelined throughput", b.pipelinedThroughput())
	try("idle RSS", b.idleRSS())
}

// stdioSubjects are the floor (when built) and the bridges.
func (b *bench) stdioSubjects() []subject {
	var s []subject
	if b.floorBin != "" {
		s = append(s, subject{floor, b.floorBin})
	}
	return append(s, b.bridges...)
}

// spawn starts a subject over stdio; a bridge gets extra flags.
func (b *bench) spawn(s subject, extra ...string) (*verify.Bridge, error) {
	return b.spawnAt(s, b.base, extra...)
}

// spawnAt starts a subject over stdio against the base at base.
func (b *bench) spawnAt(s subject, base string, extra ...string) (*verify.Bridge, error) {
	args := []string{"-base", base}
	if s.isBridge() {
		host, port, _ := net.SplitHostPort(base)
		args = append(append([]string{"--host", host, "--port", port, "--log-level", "error"}, b.cacheFlags(s)...), extra...)
	}
	return verify.Start(s.bin, args, verify.Options{Stderr: os.Stderr})
}

// start spawns a subject and sends it an initialize (the floor passes it
// to the base, which refuses it).
func (b *bench) start(s subject, extra ...string) (*verify.Bridge, error) {
	p, err := b.spawn(s, extra...)
	if err != nil {
		return nil, err
	}
	if _, err := roundTrip(p, verify.Initialize("0", "2025-06-18")); err != nil {
		p.Close()
		return nil, fmt.Errorf("%s: initialize: %w", s.name, err)
	}
	return p, nil
}

// cacheFlags keep the tool-list cache on, as it is by default, in a
// directory of the bench's own.
func (b *bench) cacheFlags(s subject) []string {
	return []string{"--cache-dir", filepath.Join(b.tmp, "cache-"+s.name)}
}

// started is a set of stdio subjects, closed together.
type started map[string]*verify.Bridge

func (b *bench) startAll(subjects []subject, extra ...string) (started, error) {
	ps := started{}
	for _, s := range subjects {
		p, err := b.start(s, extra...)
		if err != nil {
			ps.close()
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		ps[s.name] = p
	}
	return ps, nil
}

func (ps started) close() {
	for _, p := range ps {
		p.Close()
	}
}

// stdioLatency: small calls, tools/list and 1 MiB answers, each frame sent
// by the bench to the base itself and through each subject, in turns.
func (b *bench) stdioLatency() error {
	subjects := b.stdioSubjects()
	ps, err := b.startAll(subjects)
	if err != nil {
		return err
	}
	defer ps.close()
	latency := func(name, frame string, runs int) error {
		b.logf("bench: %s (%d runs each)", name, runs)
		fns := map[string]func() error{direct: func() error { _, err := directCall(b.base, frame); return err }}
		for _, s := range subjects {
			p := ps[s.name]
			fns[s.name] = func() error { _, err := roundTrip(p, frame); return err }
		}
		res, err := alternate(runs, fns)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		b.figs.addAll(name, "µs", res)
		return nil
	}
	if err := latency(figSmall, verify.ToolCall("1", "get_drawing_info", `{}`), b.opts.Runs); err != nil {
		return err
	}
	if err := latency(figList, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, b.opts.Runs); err != nil {
		return err
	}
	if b.faults {
		return latency(figMiB, verify.ToolCall("3", "fault_big", `{"mib":1}`), max(b.opts.Runs/5, 20))
	}
	return nil
}

// bigAnswer measures 15 MiB answers in fresh processes, for their peak RSS.
func (b *bench) bigAnswer() error {
	b.logf("bench: 15 MiB answers")
	subjects := b.stdioSubjects()
	ps, err := b.startAll(subjects)
	if err != nil {
		return err
	}
	defer ps.close()
	frame := verify.ToolCall("4", "fault_big", `{"mib":15}`)
	fns := map[string]func() error{direct: func() error { _, err := directCall(b.base, frame); return err }}
	for _, s := range subjects {
		p := ps[s.name]
		fns[s.name] = func() error {
			line, err := roundTrip(p, frame)
			if err == nil && len(line) < 15<<20 {
				err = fmt.Errorf("15 MiB answer came back with %d bytes: %.200s", len(line), line)
			}
			return err
		}
	}
	res, err := alternate(10, fns)
	if err != nil {
		return err
	}
	b.figs.addAll(fig15MiB, "µs", res)
	for _, s := range subjects {
		b.figs.addMem(figPeak15, s.name, ps[s.name].PID(), "VmHWM")
	}
	return nil
}

// bigBatch sends a fresh bridge one batch of 20 calls that each answer
// 15 MiB, and reports its peak RSS: memory must not grow with the batch
// (goal: 2 × --max-message + 32 MiB). The floor takes no batches.
func (b *bench) bigBatch() error {
	const n, mib = 20, 15
	b.logf("bench: a batch of %d calls answering %d MiB each", n, mib)
	calls := make([]string, n)
	for i := range calls {
		calls[i] = verify.ToolCall(strconv.Itoa(i), "fault_big", fmt.Sprintf(`{"mib":%d}`, mib))
	}
	for _, s := range b.bridges {
		p, err := b.start(s)
		if err != nil {
			return err
		}
		line, err := roundTrip(p, "["+strings.Join(calls, ",")+"]")
		if err != nil {
			p.Close()
			return err
		}
		var answers []struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &answers); err != nil {
			p.Close()
			return fmt.Errorf("the batch answer is not an array of answers (%d bytes): %w", len(line), err)
		}
		full := 0
		for _, a := range answers {
			if a.Result != nil {
				full++
			}
		}
		b.figs.addMem(figBatch, s.name, p.PID(), "VmHWM")
		b.figs.note(figBatch, s.name, fmt.Sprintf("%d of %d answered in full, on a %.1f MiB line", full, n, float64(len(line))/(1<<20)))
		p.Close()
	}
	return nil
}

// alternate runs each function runs times, in turns whose order rotates so
// that machine drift and who-goes-first cancel, and returns their latency
// stats by name.
func alternate(runs int, fns map[string]func() error) (map[string]sample, error) {
	names := make([]string, 0, len(fns))
	for n := range fns {
		names = append(names, n)
	}
	slices.Sort(names)
	took := map[string][]time.Duration{}
	for i := range runs {
		for j := range names {
			name := names[(i+j)%len(names)]
			start := time.Now()
			if err := fns[name](); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			took[name] = append(took[name], time.Since(start))
		}
	}
	res := map[string]sample{}
	for n, d := range took {
		res[n] = stats(d)
	}
	return res, nil
}

// pingDuringCall measures ping round trips while a 2 s call is in flight
// (the floor cannot: it serves one message at a time).
func (b *bench) pingDuringCall() error {
	b.logf("bench: ping during a 2 s tools/call")
	for _, s := range b.bridges {
		p, err := b.start(s)
		if err != nil {
			return err
		}
		pings, err := pingDuringCall(p)
		p.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		b.figs.add(figPing, "µs", s.name, stats(pings))
	}
	return nil
}

func pingDuringCall(p *verify.Bridge) ([]time.Duration, error) {
	if err := p.Send(verify.ToolCall(`"slow"`, "fault_sleep", `{"ms":2000}`)); err != nil {
		return nil, err
	}
	time.Sleep(50 * time.Millisecond) // let the call reach the base
	var pings []time.Duration
	deadline := time.Now().Add(1500 * time.Millisecond)
	for i := 0; time.Now().Before(deadline); i++ {
		start := time.Now()
		line, err := roundTrip(p, fmt.Sprintf(`{"jsonrpc":"2.0","id":"p%d","method":"ping"}`, i))
		if err != nil {
			return nil, err
		}
		if !strings.Contains(line, `"p`+strconv.Itoa(i)+`"`) {
			return nil, fmt.Errorf("ping %d got %.100s", i, line)
		}
		pings = append(pings, time.Since(start))
		time.Sleep(2 * time.Millisecond)
	}
	_, err := recv(p) // the slow call's answer
	return pings, err
}

// startup measures spawn → first answer (initialize; the floor passes it to
// the base, which refuses it), and stdin EOF → exit, in turns.
func (b *bench) startup() error {
	b.logf("bench: start-up and exit (20 runs each)")
	up, down := map[string][]time.Duration{}, map[string][]time.Duration{}
	subjects := b.stdioSubjects()
	for i := range 20 {
		for j := range subjects {
			s := subjects[(i+j)%len(subjects)]
			start := time.Now()
			p, err := b.spawn(s)
			if err != nil {
				return err
			}
			if _, err := roundTrip(p, verify.Initialize("1", "2025-06-18")); err != nil {
				p.Close()
				return fmt.Errorf("%s: %w", s.name, err)
			}
			up[s.name] = append(up[s.name], time.Since(start))
			start = time.Now()
			p.CloseStdin()
			if code, err := p.Wait(time.Minute); err != nil || code != 0 {
				return fmt.Errorf("%s: exit %d: %v", s.name, code, err)
			}
			down[s.name] = append(down[s.name], time.Since(start))
		}
	}
	for name, d := range up {
		b.figs.add(figStart, "µs", name, stats(d))
		b.figs.add(figExit, "µs", name, stats(down[name]))
	}
	return nil
}

// throughput keeps window calls in flight over stdio and checks that the
// answers come back in order, against the bench calling the base in a
// sequential loop. The calls go in ten slices, the subjects taking turns
// slice by slice, so that machine drift cancels as in the other figures.
func (b *bench) throughput() error {
	n := b.opts.Calls
	name := fmt.Sprintf(figThroughput, n, window)
	b.logf("bench: %s", name)
	b.figs.note(name, direct, "a sequential loop")
	frame := func(i int) string { return verify.ToolCall(strconv.Itoa(i), "get_drawing_info", `{}`) }
	subjects := b.stdioSubjects()
	ps, err := b.startAll(subjects)
	if err != nil {
		return err
	}
	defer ps.close()
	fns := map[string]func(from, to int) error{direct: func(from, to int) error {
		for i := from; i < to; i++ {
			if _, err := directCall(b.base, frame(i)); err != nil {
				return err
			}
		}
		return nil
	}}
	for _, s := range subjects {
		p := ps[s.name]
		fns[s.name] = func(from, to int) error { return pipelined(p, from, to, frame) }
	}
	names := slices.Sorted(maps.Keys(fns))
	took := map[string]time.Duration{}
	const parts = 10
	for k := range parts {
		from, to := k*n/parts, (k+1)*n/parts
		for j := range names {
			who := names[(k+j)%len(names)]
			start := time.Now()
			if err := fns[who](from, to); err != nil {
				return fmt.Errorf("%s: %w", who, err)
			}
			took[who] += time.Since(start)
		}
	}
	for s, d := range took {
		b.figs.add(name, "calls/s", s, sample{P50: float64(n) / d.Seconds()})
	}
	return nil
}

// pipelined sends the frames from..to-1 keeping window in flight, and
// checks that each answer is a result, in order.
func pipelined(p *verify.Bridge, from, to int, frame func(int) string) error {
	sent := from
	for i := from; i < to; i++ {
		for ; sent < to && sent < i+window; sent++ {
			if err := p.Send(frame(sent)); err != nil {
				return err
			}
		}
		line, err := recv(p)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(line, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"result"`) {
			return fmt.Errorf("answer %d out of order or failed: %.200s", i, line)
		}
	}
	return nil
}

// pipelinedThroughput is the pipelined figure of issue 31: one stdio pipe
// with window tools/call in flight, a new one sent as each answer arrives,
// Calls calls in one go against a base that answers at once (so that the
// relay's own cost is what is measured), answers checked to come in
// order; calls/s for the floor and each bridge, taking turns.
func (b *bench) pipelinedThroughput() error {
	n := b.opts.Calls
	name := fmt.Sprintf(figPipelined, n, window)
	b.logf("bench: %s", name)
	frame := func(i int) string { return verify.ToolCall(strconv.Itoa(i), "get_drawing_info", `{}`) }
	subjects := b.stdioSubjects()
	ps := started{}
	defer ps.close()
	for _, s := range subjects {
		p, err := b.spawnAt(s, b.instant)
		if err != nil {
			return err
		}
		ps[s.name] = p
		if _, err := roundTrip(p, verify.Initialize("0", "2025-06-18")); err != nil {
			return fmt.Errorf("%s: initialize: %w", s.name, err)
		}
		if err := pipelined(p, 0, window, frame); err != nil { // warm up
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	for j := range subjects {
		s := subjects[(b.figs.round+j)%len(subjects)]
		start := time.Now()
		if err := pipelined(ps[s.name], 0, n, frame); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		b.figs.add(name, "calls/s", s.name, sample{P50: float64(n) / time.Since(start).Seconds()})
	}
	return nil
}

// instantBase is a base that answers every frame at once, with the frame's
// id and a fixed small result (tools/list: no tools), one frame per
// connection as the real base: what is measured against it is the relay.
func instantBase() (addr string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				line, err := bufio.NewReader(c).ReadBytes('\n')
				if err != nil && len(line) == 0 {
					return
				}
				var req struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				if json.Unmarshal(line, &req) != nil || req.ID == nil {
					return
				}
				result := `{"content":[{"type":"text","text":"ok"}]}`
				if req.Method == "tools/list" {
					result = `{"tools":[]}`
				}
				_, _ = io.WriteString(c, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+result+"}\n")
			}()
		}
	}()
	return ln.Addr().String(), func() { ln.Close() }, nil
}

// account is the idle-RSS account of the symbols build (rssaccount's
// text), in the run of three whose total is the median.
func (b *bench) account(bin string) (string, error) {
	tool, err := buildAccount(b.opts.Go, b.tmp)
	if err != nil {
		return "", err
	}
	type account struct {
		TotalKiB int    `json:"total_kib"`
		Text     string `json:"text"`
	}
	var accs []account
	for range 3 {
		p, err := b.start(subject{"symbols", bin})
		if err != nil {
			return "", err
		}
		time.Sleep(100 * time.Millisecond) // idle, as idleRSS
		out, err := exec.Command(tool, "-pid", strconv.Itoa(p.PID()), bin).Output()
		p.Close()
		var a account
		if err == nil {
			err = json.Unmarshal(out, &a)
		}
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				err = fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
			}
			return "", fmt.Errorf("rssaccount: %w", err)
		}
		accs = append(accs, a)
	}
	slices.SortFunc(accs, func(x, y account) int { return x.TotalKiB - y.TotalKiB })
	return accs[len(accs)/2].Text, nil
}

func (b *bench) idleRSS() error {
	ps, err := b.startAll(b.stdioSubjects())
	if err != nil {
		return err
	}
	defer ps.close()
	time.Sleep(100 * time.Millisecond)
	for name, p := range ps {
		b.figs.addMem(figIdle, name, p.PID(), "VmRSS")
		b.figs.addMem(figIdleAnon, name, p.PID(), "RssAnon")
	}
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

// maxMessageMiB is the bridge's default --max-message, for the batch goal.
const maxMessageMiB = rpc.DefaultMaxMessage >> 20

// cpuModel is the CPU's name, where /proc/cpuinfo has it.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.Join(strings.Fields(v), " ")
		}
	}
	return ""
}

// bridgeVersion is what the bridge binary says of itself (--version).
func bridgeVersion(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return ""
	}
	return strings.Join(strings.Fields(string(out)), " ")
}

// loadAverage is the machine's 1, 5 and 15 minute load, where /proc has it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
