package bench

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcp-bridge/mcp-bridge/verify"
)

// The figures, in the order they are printed, with their targets (met or
// not by each bridge's medians).
const (
	figSmall      = "small tools/call (get_drawing_info)"
	figList       = "tools/list (cache on)"
	figMiB        = "tools/call, 1 MiB answer"
	fig15MiB      = "tools/call, 15 MiB answer"
	figPeak15     = "peak RSS after 15 MiB answers"
	figBatch      = "peak RSS, batch of 20 × 15 MiB answers"
	figPing       = "ping while a 2 s call runs"
	figHTTPSmall  = "HTTP small tools/call (legacy session, keep-alive)"
	figHTTPMiB    = "HTTP tools/call, 1 MiB answer"
	figHTTPOne    = "HTTP throughput, one client"
	figHTTPTen    = "HTTP throughput, ten clients"
	figHTTPTenOne = "HTTP throughput, ten clients ÷ one"
	figHTTPRSS    = "HTTP RSS with 100 idle legacy sessions"
	figStart      = "start-up: spawn → initialize answered"
	figHTTPStart  = "HTTP start-up: spawn → initialize answered"
	figExit       = "exit: stdin EOF → process gone"
	figThroughput = "throughput, %d calls pipelined (window %d)"
	figPipelined  = "pipelined throughput, one pipe: %d calls, %d in flight, a base that answers at once"
	figIdle       = "idle RSS after initialize"
	// What of it is the process's own (heap, stacks): the rest is the
	// binary's pages, shared with every process running it.
	figIdleAnon = "idle RSS after initialize: anonymous (RssAnon)"
)

// target is a goal for a bridge's row of a figure.
type target struct {
	text string
	ok   func(Row) bool
}

func perDirectAtMost(x float64) target {
	return target{fmt.Sprintf("÷ direct ≤ %.2g", x), func(r Row) bool { return r.PerDirect != 0 && r.PerDirect <= x }}
}

func perFloorAtMost(x float64) target {
	return target{fmt.Sprintf("÷ floor ≤ %.3g", x), func(r Row) bool { return r.PerFloor != 0 && r.PerFloor <= x }}
}

func perFloorAtLeast(x float64) target {
	return target{fmt.Sprintf("÷ floor ≥ %.3g", x), func(r Row) bool { return r.PerFloor >= x }}
}

func atMost(x float64, unit string) target {
	return target{fmt.Sprintf("≤ %.3g %s", x, unit), func(r Row) bool { return r.P50 <= x }}
}

func p99AtMost(us float64) target {
	return target{fmt.Sprintf("p99 ≤ %s", fmtUs(us)), func(r Row) bool { return r.P99 <= us }}
}

func targetOf(name string) (target, bool) {
	switch {
	case name == figSmall, name == figList, name == figHTTPMiB:
		return perFloorAtMost(1.10), true
	case name == figHTTPStart:
		return perFloorAtMost(1.3), true
	case name == figMiB:
		return perDirectAtMost(1.5), true
	case name == figPeak15:
		return atMost(64, "MiB"), true
	case name == figBatch:
		return atMost(float64(2*maxMessageMiB+32), "MiB"), true
	case name == figPing:
		return p99AtMost(1000), true
	case name == figHTTPTenOne:
		return target{"≥ 0.9", func(r Row) bool { return r.P50 >= 0.9 }}, true
	case name == figHTTPRSS:
		return atMost(20, "MiB"), true
	case name == figStart:
		return target{"p50 ≤ 5 ms", func(r Row) bool { return r.P50 <= 5000 }}, true
	case strings.HasPrefix(name, "throughput,"):
		return perFloorAtLeast(0.95), true
	case strings.HasPrefix(name, "pipelined throughput,"):
		return perFloorAtLeast(1.0), true
	case name == figIdle:
		return atMost(5.5, "MiB"), true
	case name == figConnectSmallPS:
		return target{"≤ 2", func(r Row) bool { return r.P50 <= 2 }}, true
	}
	return target{}, false
}

// sample is one round's measure of one subject: percentiles of latencies,
// or a single value in P50 (calls/s, MiB).
type sample struct{ P50, P99 float64 }

func stats(samples []time.Duration) sample {
	if len(samples) == 0 {
		return sample{}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	pct := func(p float64) float64 {
		i := int(p * float64(len(s)-1))
		return float64(s[i].Nanoseconds()) / 1e3
	}
	return sample{P50: pct(0.50), P99: pct(0.99)}
}

// figures gathers samples round by round.
type figures struct {
	round    int
	order    []string
	units    map[string]string
	samples  map[string]map[int]map[string]sample // figure → round → subject → sample
	notes    map[string]map[string]string         // figure → subject ("" for the figure) → note
	subjects []string                             // every subject seen, in the order rows are printed
}

func newFigures(subjects ...string) *figures {
	return &figures{units: map[string]string{}, samples: map[string]map[int]map[string]sample{},
		notes: map[string]map[string]string{}, subjects: subjects}
}

func (f *figures) see(name string) {
	if _, ok := f.samples[name]; !ok {
		f.order = append(f.order, name)
		f.samples[name] = map[int]map[string]sample{}
		f.notes[name] = map[string]string{}
	}
}

func (f *figures) add(name, unit, subject string, s sample) {
	f.see(name)
	f.units[name] = unit
	r := f.samples[name][f.round]
	if r == nil {
		r = map[string]sample{}
		f.samples[name][f.round] = r
	}
	r[subject] = s
}

func (f *figures) addAll(name, unit string, res map[string]sample) {
	for subject, s := range res {
		f.add(name, unit, subject, s)
	}
}

// addMem adds a memory figure (VmRSS, VmHWM) of a process, in MiB.
func (f *figures) addMem(name, subject string, pid int, key string) {
	kb, ok := verify.ProcStatus(pid, key)
	if !ok {
		f.note(name, "", "needs /proc (Linux)")
		return
	}
	f.add(name, "MiB", subject, sample{P50: kb / 1024})
}

// note keeps a note on a figure's row (subject "": on the figure); the last
// round's note stays.
func (f *figures) note(name, subject, text string) {
	f.see(name)
	f.notes[name][subject] = text
}

// fail notes a figure (or a group of figures) that could not be measured
// in this round.
func (f *figures) fail(name string, err error) {
	f.note(name, "", fmt.Sprintf("failed in round %d: %v", f.round+1, err))
}

// Report is the whole run.
type Report struct {
	CPUs       int      `json:"cpus"`
	CPUModel   string   `json:"cpu_model,omitempty"`
	GoVersion  string   `json:"go_version"`
	OS         string   `json:"os"`
	Date       string   `json:"date"`             // when the run started (UTC)
	Bridge     string   `json:"bridge,omitempty"` // the bridge's --version`
	Base       string   `json:"base"`
	Floor      string   `json:"floor"`
	Rounds     int      `json:"rounds"`
	LoadBefore string   `json:"load_before,omitempty"` // load average (1, 5, 15 min) at the start
	LoadAfter  string   `json:"load_after,omitempty"`
	Figures    []Figure `json:"figures"`
	// Account is where the idle RSS of the bridge's symbols build goes
	// (Options.Symbols; rssaccount's tables); AccountNote says why there
	// is none.
	Account     string `json:"idle_rss_account,omitempty"`
	AccountNote string `json:"idle_rss_account_note,omitempty"`
}

// Figure is one measured line of the report, a row per subject.
type Figure struct {
	Name   string `json:"name"`
	Unit   string `json:"unit"`
	Target string `json:"target,omitempty"`
	Note   string `json:"note,omitempty"`
	Rows   []Row  `json:"rows"`
}

// Row is one subject's medians over the rounds.
type Row struct {
	Subject   string    `json:"subject"`
	P50       float64   `json:"p50"`           // median of the rounds' p50s (or values)
	P99       float64   `json:"p99,omitempty"` // median of the rounds' p99s
	Rounds    []float64 `json:"rounds"`        // each round's p50 (or value)
	PerFloor  float64   `json:"per_floor,omitempty"`
	PerDirect float64   `json:"per_direct,omitempty"`
	Met       *bool     `json:"met,omitempty"` // bridges only
	Note      string    `json:"note,omitempty"`
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// report takes the medians. A ratio is the median of the rounds' ratios:
// both sides of one were measured in turns, in the same round.
func (f *figures) report() []Figure {
	var out []Figure
	for _, name := range f.order {
		fig := Figure{Name: name, Unit: f.units[name], Note: f.notes[name][""]}
		t, hasTarget := targetOf(name)
		if hasTarget {
			fig.Target = t.text
		}
		rounds := slices.Sorted(maps.Keys(f.samples[name]))
		for _, subject := range f.subjects {
			var p50, p99, perFloor, perDirect []float64
			for _, r := range rounds {
				s, ok := f.samples[name][r][subject]
				if !ok {
					continue
				}
				p50, p99 = append(p50, s.P50), append(p99, s.P99)
				if fl, ok := f.samples[name][r][floor]; ok && fl.P50 != 0 {
					perFloor = append(perFloor, s.P50/fl.P50)
				}
				if d, ok := f.samples[name][r][direct]; ok && d.P50 != 0 {
					perDirect = append(perDirect, s.P50/d.P50)
				}
			}
			if len(p50) == 0 {
				continue
			}
			row := Row{Subject: subject, P50: median(p50), P99: median(p99), Rounds: p50,
				PerFloor: median(perFloor), PerDirect: median(perDirect), Note: f.notes[name][subject]}
			if hasTarget && subject != direct && subject != floor {
				ok := t.ok(row)
				row.Met = &ok
			}
			fig.Rows = append(fig.Rows, row)
		}
		out = append(out, fig)
	}
	return out
}

// Print writes the report as a table for people.
func Print(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "mcp-bridge bench, %s: %d CPUs (%s), %s, %s, base %s; medians of %d rounds\n", rep.Date, rep.CPUs, rep.CPUModel, rep.GoVersion, rep.OS, rep.Base, rep.Rounds)
	if rep.Bridge != "" {
		fmt.Fprintf(w, "bridge: %s\n", rep.Bridge)
	}
	fmt.Fprintf(w, "floor: %s\n", rep.Floor)
	if rep.LoadBefore != "" {
		fmt.Fprintf(w, "load average: %s before, %s after\n", rep.LoadBefore, rep.LoadAfter)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FIGURE\tp50 / p99 (or value)\t÷ FLOOR\t÷ DIRECT\tTARGET\tMET")
	for _, f := range rep.Figures {
		fmt.Fprintf(tw, "%s\t\t\t\t%s\t%s\n", f.Name, f.Target, f.Note)
		for _, r := range f.Rows {
			ok := ""
			if r.Met != nil {
				ok = map[bool]string{true: "yes", false: "NO"}[*r.Met]
			}
			if r.Note != "" {
				ok = strings.TrimSpace(ok + " (" + r.Note + ")")
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t\t%s\n", r.Subject, value(r, f.Unit), ratio(r.PerFloor), ratio(r.PerDirect), ok)
		}
	}
	tw.Flush()
	if rep.Account != "" {
		fmt.Fprintf(w, "\n%s", rep.Account)
	} else if rep.AccountNote != "" {
		fmt.Fprintf(w, "\nidle RSS account: %s\n", rep.AccountNote)
	}
}

func value(r Row, unit string) string {
	switch unit {
	case "µs":
		return fmtUs(r.P50) + " / " + fmtUs(r.P99)
	case "calls/s":
		return fmt.Sprintf("%.0f calls/s", r.P50)
	case "MiB":
		return fmt.Sprintf("%.1f MiB", r.P50)
	}
	return fmt.Sprintf("%.2f", r.P50)
}

func ratio(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

func fmtUs(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2f s", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.2f ms", v/1e3)
	}
	return fmt.Sprintf("%.0f µs", v)
}
