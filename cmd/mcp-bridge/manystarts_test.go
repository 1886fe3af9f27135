package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch/launchtest"
	"github.com/mcp-bridge/mcp-bridge/verify"
)

// Claude Desktop's many starts (issue 40; punkpeye/mcp-remote#245, #251):
// it starts 2–4 copies of a stdio server within seconds and kills the
// first one during initialize. Here four bridge processes start at once on
// one base that is down, with one journal and one tool cache; the first is
// killed (SIGKILL, the hardest end) just after its initialize is sent; the
// other three each call a tool and list the tools while CAD starts. CAD is
// started once; every call of the three is answered; the journal holds one
// whole line per call of theirs; the tool cache is one whole tool list and
// nothing else (no temporary file left); every bridge has ended once its
// client closed stdin, and no second CAD is left running.
//
// The same with the first killed later, while it is starting CAD (the
// launch lock's holder gone mid-launch): the others wait for that CAD
// rather than start another.
func TestDesktopManyStarts(t *testing.T) {
	for _, killed := range []string{"initialize", "launch"} {
		t.Run("killed during "+killed, func(t *testing.T) { manyStarts(t, killed == "launch") })
	}
}

func manyStarts(t *testing.T, midLaunch bool) {
	f, dir := fakeCAD(t)
	f.Hold = filepath.Join(dir, "hold")
	t.Cleanup(func() { _ = launchtest.Touch(f.Stop) })
	jfile := filepath.Join(dir, "journal.jsonl")
	args := append(launchArgsFor(f, dir), "--journal", jfile)
	const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-ai","version":"0.1.0"}}}`
	var bridges []*verify.Bridge
	for range 4 {
		bridges = append(bridges, bridgeProcess(t, args...))
	}
	first := bridges[0]
	if err := first.Send(initialize); err != nil {
		t.Fatal(err)
	}
	if midLaunch {
		if err := first.Send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"draw_line","arguments":{"start":{"x":0,"y":0},"end":{"x":9,"y":0}},"_meta":{"progressToken":1}}}`); err != nil {
			t.Fatal(err)
		}
		for {
			line := recvLine(t, first)
			if msg, _ := verify.Get(line, "params.message").(string); strings.HasPrefix(msg, "starting ") {
				break
			}
			if verify.Get(line, "id") != float64(0) {
				t.Fatalf("the first bridge before CAD started: %s", line)
			}
		}
	}
	first.Kill()
	if _, err := first.Wait(30 * time.Second); err != nil {
		t.Fatalf("the first bridge after its kill: %v", err)
	}
	for i, b := range bridges[1:] {
		for _, l := range []string{initialize, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"draw_line","arguments":{"start":{"x":0,"y":0},"end":{"x":%d,"y":0}},"_meta":{"progressToken":1}}}`, i+1),
			`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`} {
			if err := b.Send(l); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Each one's first call reports the start, or the wait for another
	// bridge's start: all three wait for CAD, which waits for the test.
	for i, b := range bridges[1:] {
		for {
			line := recvLine(t, b)
			if verify.Get(line, "method") == "notifications/progress" {
				break
			}
			if verify.Get(line, "id") != float64(0) {
				t.Fatalf("bridge %d before CAD started: %s", i+1, line)
			}
		}
	}
	if err := launchtest.Touch(f.Hold); err != nil {
		t.Fatal(err)
	}
	for i, b := range bridges[1:] {
		answered := map[float64]string{}
		for len(answered) < 2 {
			line := recvLine(t, b)
			if verify.Get(line, "method") == "notifications/progress" {
				continue
			}
			id, _ := verify.Get(line, "id").(float64)
			answered[id] = line
		}
		if verify.Get(answered[1], "result.isError") != false || verify.Get(answered[2], "result.tools") == nil {
			t.Errorf("bridge %d: %s\n%.300s", i+1, answered[1], answered[2])
		}
		if bad := b.Impure(); bad != "" {
			t.Errorf("bridge %d's stdout carried something else than protocol messages: %s", i+1, bad)
		}
	}
	for i, b := range bridges[1:] {
		b.CloseStdin()
		if code, err := b.Wait(30 * time.Second); code != 0 || err != nil {
			t.Fatalf("bridge %d exited %d, %v; its log:\n%s", i+1, code, err, b.Stderr())
		}
	}

	starts, err := launchtest.Starts(f.Record)
	if err != nil || len(starts) != 1 {
		t.Fatalf("%d starts of CAD (%v), want 1", len(starts), err)
	}
	if !launchtest.Alive(starts[0].Pid) {
		t.Error("CAD ended with the bridges")
	}
	for i, b := range bridges {
		if launchtest.Alive(b.PID()) {
			t.Errorf("bridge %d (pid %d) is still running", i, b.PID())
		}
	}

	pids := map[int]int{}
	err = journal.Each(jfile, func(l journal.Line) bool {
		e := l.Entry
		if e == nil || e.Outcome == "" {
			t.Errorf("%s:%d is not one whole entry: %q", l.File, l.N, l.Text)
			return true
		}
		if e.Tool == "draw_line" {
			if e.Outcome != journal.OK || e.Client == nil || e.Client.Name != "claude-ai" {
				t.Errorf("%s:%d: %q", l.File, l.N, l.Text)
			}
			pids[e.PID]++
		}
		return true
	})
	if err != nil || len(pids) != 3 {
		t.Errorf("journal: calls by pid %v (%v), want one from each of the three bridges", pids, err)
	}
	for pid, n := range pids {
		if n != 1 || pid == first.PID() {
			t.Errorf("journal: %d calls from pid %d", n, pid)
		}
	}

	entries, err := os.ReadDir(filepath.Join(dir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	var cached []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "tools-") && strings.HasSuffix(e.Name(), ".json") {
			data, err := os.ReadFile(filepath.Join(dir, "cache", e.Name()))
			if err != nil || !rpc.Valid(data) || rpc.Kind(rpc.Field(data, "tools")) != rpc.KindArray {
				t.Errorf("tool cache %s: not one whole tool list (%v): %.200s", e.Name(), err, data)
			}
			cached = append(cached, e.Name())
		} else if !strings.HasSuffix(e.Name(), ".lock") && !strings.HasSuffix(e.Name(), ".log") { // the launch lock, and the CAD program's output
			t.Errorf("left in the cache folder: %s", e.Name())
		}
	}
	if len(cached) != 1 {
		t.Errorf("tool caches %v, want one", cached)
	}
}
