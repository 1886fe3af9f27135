package verify

import (
	"context"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// bridgeBin is the real bridge, built once for these tests.
var bridgeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "verify-test")
	if err != nil {
		panic(err)
	}
	bridgeBin, err = testBinary(dir, "mcp-bridge", "../cmd/mcp-bridge")
	if err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testBinary builds the command in pkg into dir and returns its path. When
// MCP_BRIDGE_TEST_BINDIR is set it returns the one already built there
// instead: `make test-windows` runs these tests under Wine, where there is
// no go command, and builds mcp-bridge.exe and naivebridge.exe beforehand.
func testBinary(dir, name, pkg string) (string, error) {
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if pre := os.Getenv("MCP_BRIDGE_TEST_BINDIR"); pre != "" {
		return filepath.Join(pre, name), nil
	}
	bin := filepath.Join(dir, name)
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}

func results(rep *Report) map[string]Result {
	m := map[string]Result{}
	for _, r := range rep.Results {
		m[r.Name] = r
	}
	return m
}

func TestVerifyPassesAgainstTheSim(t *testing.T) {
	rep, err := Run(context.Background(), Options{Bridge: bridgeBin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != Pass {
			t.Errorf("%s: %s %s", r.Name, r.Status, r.Detail)
		}
	}
	if len(rep.Results) < 40 || rep.Failed != 0 || rep.Skipped != 0 {
		t.Errorf("%d checks, %d failed, %d skipped; want >= 40, 0, 0", len(rep.Results), rep.Failed, rep.Skipped)
	}
}

func TestVerifyAgainstAClosedPort(t *testing.T) {
	dead, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Bridge: bridgeBin, Base: dead}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := results(rep)
	for _, name := range []string{"base down: -32603 naming the address, bridge alive", "base back: the next request is served", "ping answers {}"} {
		if got[name].Status != Pass {
			t.Errorf("%s: %s %s", name, got[name].Status, got[name].Detail)
		}
	}
	if got["tools/list identical to a direct base call"].Status != Fail {
		t.Errorf("tools/list against nothing should fail")
	}
	if got["fault: garbage answer"].Status != Skip {
		t.Errorf("fault checks should be skipped against a real base")
	}
	if rep.OK() || !strings.Contains(rep.Hint, "nothing answers at "+dead) {
		t.Errorf("OK=%v hint=%q", rep.OK(), rep.Hint)
	}
}

func TestVerifyCatchesABrokenBridge(t *testing.T) {
	naive, err := testBinary(tempDir(t), "naivebridge", "./testdata/naivebridge")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Bridge: naive}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := results(rep)
	for _, name := range []string{
		"stdout carries only protocol messages", // its banner
		"ping during a slow tool call",          // ping waits behind the call
		"-32700 for invalid JSON, without id",   // it stays silent
	} {
		if got[name].Status != Fail {
			t.Errorf("%s: %s, want FAIL", name, got[name].Status)
		}
	}
	if rep.OK() {
		t.Error("verify passed a broken bridge")
	}
}

// TestStdinClosed: the client closes stdin, the way clients stop a stdio
// server on every system: a final line without newline still gets its
// answer, and the bridge exits 0.
func TestStdinClosed(t *testing.T) {
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	_, port, _ := net.SplitHostPort(sim.Addr())
	for _, tc := range []struct{ tail, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{`{"jsonrpc":"2.0","id":1,"meth`, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the line is not valid JSON"}}`},
	} {
		s, err := StartSession(bridgeBin, []string{"--port", port, "--no-cache"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		s.SendRaw([]byte(tc.tail))
		s.CloseStdin()
		got, err := s.Recv(10 * time.Second)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q %v", tc.tail, got, err)
		}
		if code, err := s.Wait(10 * time.Second); err != nil || code != 0 {
			t.Errorf("exit %d %v", code, err)
		}
		s.Close()
	}
}

func TestCheckStdout(t *testing.T) {
	tests := []struct {
		out  string
		good bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n", true},
		{`[{"jsonrpc":"2.0","id":1,"result":{}}]` + "\n", true},
		{`{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}` + "\n", true},
		{"", true},
		{"starting\n", false},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, false}, // unterminated
		{`{"jsonrpc":"2.0","id":1,"result":{}}` + "\r\n", false},
		{`{"id":1,"result":{}}` + "\n", false},
		{"\n", false},
	}
	for _, tt := range tests {
		if bad := CheckStdout([]byte(tt.out)); (bad == "") != tt.good {
			t.Errorf("CheckStdout(%q) = %q, want good=%v", tt.out, bad, tt.good)
		}
	}
}

// TestProgressOnALongCall: a 12 s call with a progressToken gets heartbeats
// at the default 5 s interval (at 5 s and 10 s), none after its answer; a
// call without one gets none.
func TestProgressOnALongCall(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 12 s")
	}
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Faults: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	_, port, _ := net.SplitHostPort(sim.Addr())
	s, err := StartSession(bridgeBin, []string{"--port", port, "--no-cache"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fault_sleep","arguments":{"ms":12000},"_meta":{"progressToken":42}}}`)
	s.Send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fault_sleep","arguments":{"ms":6000}}}`)
	var lines []string
	for len(lines) < 4 {
		line, err := s.Recv(30 * time.Second)
		if err != nil {
			t.Fatalf("after %q: %v", lines, err)
		}
		lines = append(lines, line)
	}
	want := []string{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":42,"progress":1,"message":"waiting for CAD (5 s)"}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":42,"progress":2,"message":"waiting for CAD (10 s)"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"slept 12000 ms"}],"isError":false}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"slept 6000 ms"}],"isError":false}}`,
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d:\ngot  %s\nwant %s", i, lines[i], want[i])
		}
	}
}

// tempDir is t.TempDir, emptied with plain deletes before testing removes
// it. Under Wine 8 (make test-windows) Go's os.RemoveAll fails on anything
// but an empty directory ("Invalid function": Wine lacks the
// NtSetInformationFile class 64 Go deletes with, and Go falls back only on
// other statuses); os.Remove works there.
func tempDir(t *testing.T) string {
	dir := t.TempDir()
	t.Cleanup(func() {
		var paths []string
		filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
			paths = append(paths, p)
			return nil
		})
		for i := len(paths) - 1; i >= 0; i-- {
			os.Remove(paths[i])
		}
	})
	return dir
}
