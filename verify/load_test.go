//go:build linux

package verify

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func fdCount(t *testing.T, pid int) int {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestLoad sends 100,000 pipelined tools/call through the binary: all are
// answered in order, each ran once at the base, memory stays flat and no
// file descriptor is left open.
func TestLoad(t *testing.T) {
	n := 100000
	if testing.Short() {
		n = 10000
	}
	simCmd, addr, err := startSimProcess(bridgeBin)
	if err != nil {
		t.Fatal(err)
	}
	defer simCmd.Process.Kill()
	_, port, _ := net.SplitHostPort(addr)

	const window = 256 // requests in flight; the queue holds 512
	cmd := exec.Command(bridgeBin, "--port", port, "--queue", "512", "--log-level", "warn", "--no-cache")
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	out := bufio.NewReaderSize(stdout, 1<<20)
	if _, err := io.WriteString(stdin, initLine("0", "2025-06-18")+"\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := out.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	fdsBefore := fdCount(t, pid)

	credit := make(chan struct{}, window)
	for range window {
		credit <- struct{}{}
	}
	writeErr := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(stdin)
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
		line, err := out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		credit <- struct{}{}
		prefix := `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"result":{"content":[{"type":"text","text":"Distance ` + strconv.Itoa(i) + `,`
		if !strings.HasPrefix(string(line), prefix) {
			t.Fatalf("answer %d out of order or failed: %.200s", i, line)
		}
		if i%(n/10) == 0 {
			rss, _ := procStatus(pid, "VmRSS")
			rssMid = append(rssMid, rss/1024)
		}
	}
	took := time.Since(start)
	if err := <-writeErr; err != nil {
		t.Fatal(err)
	}
	fdsAfter := fdCount(t, pid)
	hwm, _ := procStatus(pid, "VmHWM")
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("bridge exit: %v", err)
	}

	// Exactly once, asked of the base itself.
	ans, err := directCall(addr, toolCall(`"stats"`, "sim_stats", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	var stats struct{ Calls, Ids, Repeated int }
	if err := json.Unmarshal([]byte(firstText(string(ans))), &stats); err != nil {
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

// TestSignals: SIGTERM with a call in flight finishes it and exits 0; a
// second SIGINT exits at once. (TestStdinClosed, on every system, covers
// the end of stdin.)
func TestSignals(t *testing.T) {
	simCmd, addr, err := startSimProcess(bridgeBin)
	if err != nil {
		t.Fatal(err)
	}
	defer simCmd.Process.Kill()
	_, port, _ := net.SplitHostPort(addr)

	t.Run("SIGTERM finishes the call in flight", func(t *testing.T) {
		s, err := StartSession(bridgeBin, []string{"--port", port, "--no-cache"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		s.Send(toolCall("1", "fault_sleep", `{"ms":500}`))
		s.Send(toolCall("2", "get_drawing_info", `{}`))
		time.Sleep(100 * time.Millisecond)
		s.cmd.Process.Signal(syscall.SIGTERM)
		first, err := s.Recv(5 * time.Second)
		if err != nil || !strings.Contains(first, "slept 500 ms") {
			t.Fatalf("in flight: %q %v", first, err)
		}
		second, err := s.Recv(5 * time.Second)
		if err != nil || !strings.Contains(second, "shutting down") || !strings.Contains(second, `"id":2`) {
			t.Fatalf("queued: %q %v", second, err)
		}
		if code, err := s.Wait(5 * time.Second); err != nil || code != 0 {
			t.Fatalf("exit %d %v", code, err)
		}
		if !strings.Contains(s.Stderr(), "dropped=1") {
			t.Errorf("the dropped request was not logged:\n%s", s.Stderr())
		}
	})

	t.Run("a second SIGINT exits at once", func(t *testing.T) {
		s, err := StartSession(bridgeBin, []string{"--port", port, "--no-cache"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		s.Send(toolCall("1", "fault_hang", `{}`))
		time.Sleep(100 * time.Millisecond)
		start := time.Now()
		s.cmd.Process.Signal(syscall.SIGINT)
		time.Sleep(50 * time.Millisecond)
		s.cmd.Process.Signal(syscall.SIGINT)
		if _, err := s.Wait(5 * time.Second); err != nil {
			t.Fatal(err)
		}
		// Without the second signal it would exit only after the 2 s grace.
		if d := time.Since(start); d > 1500*time.Millisecond {
			t.Errorf("took %v: the second signal should not wait for the 2 s grace", d)
		}
		if bad := CheckStdout(s.Stdout()); bad != "" {
			t.Errorf("stdout: %s", bad)
		}
	})

}
