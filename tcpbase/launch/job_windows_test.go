//go:build windows

package launch_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch/launchtest"
)

// helperVar, set in its environment, makes this test binary a bridge that
// launches the program its value describes (helperSpec as JSON) once its
// stdin says "go", then says "up" and waits for stdin to end.
const helperVar = "MCP_BRIDGE_TEST_JOB_HELPER"

type helperSpec struct {
	Command   launch.Command
	Addr, Dir string
}

func jobHelper() {
	v := os.Getenv(helperVar)
	if v == "" {
		return
	}
	var h helperSpec
	if err := json.Unmarshal([]byte(v), &h); err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Scan()
	o := launch.Options{Command: h.Command, Addr: h.Addr, Dir: h.Dir, Wait: limit}
	if err := launch.New(o).Ensure(context.Background(), nil); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("up")
	for in.Scan() {
	}
	os.Exit(0)
}

// A client that runs its servers in a job object and kills the job when
// it quits (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE) kills the bridge, not CAD:
// the program left the job (CREATE_BREAKAWAY_FROM_JOB). A job that does
// not let it leave still gets CAD started (inside it, with a warning).
func TestLeavesTheClientsJob(t *testing.T) {
	t.Run("breakaway allowed", func(t *testing.T) { inJob(t, true) })
	t.Run("breakaway not allowed", func(t *testing.T) { inJob(t, false) })
}

func inJob(t *testing.T, breakaway bool) {
	s := newSetup(t)
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			windows.CloseHandle(job)
		}
	}()
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if breakaway {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_BREAKAWAY_OK
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		t.Fatal(err)
	}
	spec, err := json.Marshal(helperSpec{Command: s.fake.Command(), Addr: s.fake.Addr, Dir: s.dir})
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	bridge := exec.Command(exe)
	bridge.Env = append(os.Environ(), helperVar+"="+string(spec))
	stdin, _ := bridge.StdinPipe()
	stdout, _ := bridge.StdoutPipe()
	if err := bridge.Start(); err != nil {
		t.Fatal(err)
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(bridge.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	err = windows.AssignProcessToJobObject(job, h)
	windows.CloseHandle(h)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(stdin, "go")
	out := bufio.NewScanner(stdout)
	if !out.Scan() || strings.TrimSpace(out.Text()) != "up" {
		t.Fatalf("the bridge in the job: %q", out.Text())
	}
	cad := s.starts()[0].Pid
	if !breakaway {
		return // started inside the job: it goes with it
	}
	// The client quits: its job goes, and the bridge in it.
	closed = true
	windows.CloseHandle(job)
	ended := make(chan struct{})
	go func() { bridge.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(limit):
		bridge.Process.Kill()
		t.Skip("this Windows did not kill the job's processes when the job closed: nothing to see")
	}
	if !launchtest.Alive(cad) {
		t.Fatal("CAD ended with the client's job")
	}
}
