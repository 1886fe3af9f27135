package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// TestTrimKeepsRelocatedPages: a position-independent build (what Linux
// distributions package Go programs as) has a read-only mapping that the
// loader wrote to (its relocated data, RELRO). Dropping it would map the
// file's unrelocated bytes back and crash the bridge at its next use of
// them: the bridge built that way drops its clean mappings after its first
// answer, keeps that one (kept_kib > 0), and goes on answering. A first
// version dropped every read-only mapping and died there.
func TestTrimKeepsRelocatedPages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "mcp-bridge-pie")
	build := exec.Command("go", "build", "-buildmode=pie", "-o", bin, ".")
	build.Env = append(build.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -buildmode=pie: %v\n%s", err, out)
	}
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	_, port, _ := net.SplitHostPort(sim.Addr())
	cmd := exec.Command(bin, "--port", port, "--log-level", "debug", "--cache-dir", t.TempDir())
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	dropped := make(chan string, 1)
	var log strings.Builder
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "dropped the binary's clean mappings") {
				dropped <- sc.Text()
			}
		}
	}()
	answers := bufio.NewScanner(stdout)
	answers.Buffer(nil, 1<<20)
	call := func(id int, method, params string) map[string]any {
		t.Helper()
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		if !answers.Scan() {
			stdin.Close()
			<-logDone
			t.Fatalf("no answer to %s (the bridge died?): %v\n%s", method, cmd.Wait(), log.String())
		}
		var m map[string]any
		if err := json.Unmarshal(answers.Bytes(), &m); err != nil || m["result"] == nil {
			t.Fatalf("%s: %s", method, answers.Bytes())
		}
		return m
	}
	call(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)
	var line string
	select {
	case line = <-dropped:
	case <-logDone:
		t.Fatalf("the bridge died after its first answer: %v\n%s", cmd.Wait(), log.String())
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-logDone
		t.Fatalf("the mappings were not dropped after the first answer:\n%s", log.String())
	}
	kept := regexp.MustCompile(`kept_kib=(\d+)`).FindStringSubmatch(line)
	if n, _ := strconv.Atoi(kept[1]); n == 0 {
		t.Errorf("the relocated mapping was dropped too: %s", line)
	}
	for id := 2; id < 5; id++ {
		call(id, "tools/list", `{}`)
	}
	call(5, "tools/call", `{"name":"get_drawing_info","arguments":{}}`)
	stdin.Close()
	io.Copy(io.Discard, stdout)
}
