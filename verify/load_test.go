//go:build linux

package verify

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

func fdCount(t *testing.T, pid int) int {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// settledFDCount is fdCount once the bridge's one passing file is closed:
// after its first answer a stdio bridge reads /proc/self/smaps once (to
// drop the binary's clean mappings), and a count taken while that file is
// open would be one above the bridge's own.
func settledFDCount(t *testing.T, pid int) int {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	for deadline := time.Now().Add(time.Minute); ; {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		passing := false
		for _, e := range ents {
			if target, _ := os.Readlink(dir + "/" + e.Name()); strings.HasSuffix(target, "/smaps") {
				passing = true
			}
		}
		if !passing {
			return len(ents)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the bridge still holds its smaps open a minute after its first answer")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestLoad sends 100,000 pipelined tools/call through the binary: all are
// answered in order, each ran once at the base, memory stays flat and no
// file descriptor is left open.
func TestLoad(t *testing.T) {
	n := 100000
	if testing.Short() {
		n = 10000
	}
	simCmd, addr, err := StartSim(bridgeBin)
	if err != nil {
		t.Fatal(err)
	}
	defer simCmd.Process.Kill()
	_, port, _ := net.SplitHostPort(addr)

	const window = 256 // requests in flight; the queue holds 512
	b, err := Start(bridgeBin, []string{"--port", port, "--queue", "512", "--log-level", "warn", "--no-cache"}, Options{Stderr: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pid := b.PID()
	if err := b.Send(Initialize("0", "2025-06-18")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Recv(time.Minute); err != nil {
		t.Fatal(err)
	}
	fdsBefore := settledFDCount(t, pid)

	credit := make(chan struct{}, window)
	for range window {
		credit <- struct{}{}
	}
	writeErr := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(b.stdin)
		for i := 1; i <= n; i++ {
			select {
			case <-credit:
			default:
				if err := w.Flush(); err != nil {
					writeErr <- err
					return
				}
				<-credit
			}
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"measure_distance","arguments":{"from":{"x":0,"y":0},"to":{"x":%d,"y":0}}}}`+"\n", i, i)
		}
		writeErr <- w.Flush()
	}()
	var rssMid []float64
	start := time.Now()
	for i := 1; i <= n; i++ {
		line, err := b.Recv(time.Minute)
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		credit <- struct{}{}
		prefix := `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"result":{"content":[{"type":"text","text":"Distance ` + strconv.Itoa(i) + `,`
		if !strings.HasPrefix(line, prefix) {
			t.Fatalf("answer %d out of order or failed: %.200s", i, line)
		}
		if i%(n/10) == 0 {
			rss, _ := ProcStatus(pid, "VmRSS")
			rssMid = append(rssMid, rss/1024)
		}
	}
	took := time.Since(start)
	if err := <-writeErr; err != nil {
		t.Fatal(err)
	}
	fdsAfter := fdCount(t, pid)
	hwm, _ := ProcStatus(pid, "VmHWM")
	b.CloseStdin()
	if code, err := b.Wait(time.Minute); err != nil || code != 0 {
		t.Fatalf("bridge exit %d: %v", code, err)
	}

	// Exactly once, asked of the base itself.
	base := &tcpbase.Client{Addr: addr, ConnectTimeout: 3 * time.Second}
	ans, err := base.Call(context.Background(), []byte(ToolCall(`"stats"`, "sim_stats", `{}`)))
	if err != nil {
		t.Fatal(err)
	}
	var stats struct{ Calls, Ids, Repeated int }
	if err := json.Unmarshal([]byte(FirstText(string(ans))), &stats); err != nil {
		t.Fatalf("sim_stats: %s", ans)
	}
	if stats.Ids != n+1 || stats.Repeated != 0 || stats.Calls != n+1 { // + the sim_stats call
		t.Errorf("the base ran %d calls for %d ids, %d ids more than once; want %d, %d, 0", stats.Calls, stats.Ids, stats.Repeated, n+1, n+1)
	}
	if fdsAfter != fdsBefore {
		t.Errorf("file descriptors: %d before, %d after", fdsBefore, fdsAfter)
	}
	// Flat: the last tenth uses no more than the first tenth plus a margin.
	if len(rssMid) >= 2 && rssMid[len(rssMid)-1] > rssMid[0]+8 {
		t.Errorf("RSS grew from %.1f MiB to %.1f MiB over the run", rssMid[0], rssMid[len(rssMid)-1])
	}
	t.Logf("%d calls in %v (%.0f/s), all in order, each ran once; RSS per tenth %v MiB, peak %.1f MiB; fds %d before, %d after",
		n, took.Round(time.Millisecond), float64(n)/took.Seconds(), roundAll(rssMid), hwm/1024, fdsBefore, fdsAfter)
}

func roundAll(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(int(x*10)) / 10
	}
	return out
}
