package verify

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
)

// TestJournalThreeBridges: three mcp-bridge processes append 10,000 journal
// entries to one file at once, with a cap that makes it rotate. Every line
// is one whole entry, no line is lost or doubled, and each bridge's calls
// are all there.
func TestJournalThreeBridges(t *testing.T) {
	simCmd, addr, err := StartSim(bridgeBin)
	if err != nil {
		t.Fatal(err)
	}
	defer simCmd.Process.Kill()
	_, port, _ := net.SplitHostPort(addr)
	file := filepath.Join(testdir.New(t), "journal.jsonl")
	per := []int{3334, 3333, 3333}
	if runtime.GOOS == "windows" {
		// Under Wine 10,000 calls outlast the bridges' 30 s to finish
		// accepted requests after stdin ends (the calls left are dropped,
		// never journaled); the writer's own 10,000-line soak runs there
		// in bridge/guard/journal.
		per = []int{300, 300, 300}
	}
	total := per[0] + per[1] + per[2]
	var cmds []*exec.Cmd
	for who, n := range per {
		var in bytes.Buffer
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bridge-%d","version":"1"}}}`+"\n", who)
		for i := range n {
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"measure_distance","arguments":{"from":{"x":0,"y":0},"to":{"x":%d,"y":1}}}}`+"\n", i+1, i)
		}
		cmd := exec.Command(bridgeBin, "--port", port, "--no-cache", "--log-level", "error", "--queue", "4096",
			"--journal", file, "--journal-max", strconv.Itoa(60*total), "--journal-args")
		cmd.Stdin = &in
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("bridge: %v", err)
		}
	}
	seen := map[string]bool{}
	count := map[string]int{}
	lines, failed := 0, 0
	err = journal.Each(file, func(l journal.Line) bool {
		lines++
		e := l.Entry
		// Whole entries are the point; a call may still fail on a slow
		// machine (under Wine, a base connection can time out), and its
		// entry says so.
		if e == nil || e.Client == nil || e.Outcome == "" || !strings.HasPrefix(string(e.Args), `{"from":`) {
			t.Fatalf("%s:%d is not one whole entry of a call: %q", l.File, l.N, l.Text)
		}
		if e.Outcome != journal.OK {
			failed++
		}
		key := e.Client.Name + "/" + e.ID
		if seen[key] {
			t.Fatalf("%s twice", key)
		}
		seen[key] = true
		count[e.Client.Name]++
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if failed > 0 {
		t.Logf("%d of the calls failed at the base; their entries are whole", failed)
	}
	files := journal.Files(file)
	if lines != total || len(files) < 3 {
		t.Errorf("%d lines in %d files; want %d lines, rotated at least twice", lines, len(files), total)
	}
	for who, n := range per {
		if got := count[fmt.Sprintf("bridge-%d", who)]; got != n {
			t.Errorf("bridge-%d: %d of its %d calls in the journal", who, got, n)
		}
	}
	t.Logf("%d entries from 3 bridges in %d files", lines, len(files))
}
