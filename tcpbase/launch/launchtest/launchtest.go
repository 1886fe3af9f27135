// Package launchtest is a fake CAD program for the tests of launching
// (package launch, the bridge, the command): the test binary re-executed
// (Main), or the program in fakecad/ (the Windows end-to-end run). Each
// start appends a line to a record file (its pid, session and process
// group, console window), then, told so, dies with a status and some
// stderr, or starts the simulated base after a delay or once a file
// appears, and serves until a stop file appears.
package launchtest

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// Arg, first on the command line, makes a test binary that calls Main the
// fake CAD program.
const Arg = "mcp-bridge-fake-cad"

// Main runs the fake CAD program and exits, when this process was started
// as one (os.Args[1] is Arg); otherwise it returns at once. Call it first
// in TestMain, with the process's own stdout and stderr: the program's
// output goes where its launcher sent them (the launch's output file).
func Main(stdout, stderr io.Writer) {
	if len(os.Args) < 2 || os.Args[1] != Arg {
		return
	}
	os.Exit(Run(os.Args[2:], stdout, stderr))
}

// Fake is what one fake CAD program does.
type Fake struct {
	Addr   string        // where its base listens
	Record string        // the file each start appends its Started line to
	Delay  time.Duration // before its base listens
	Hold   string        // when set, its base listens only once this file exists
	Exit   int           // > 0: it exits with this status instead of serving
	Cure   string        // when this file exists, Exit does not apply
	Stderr string        // written to stderr first (a line per \n)
	Stop   string        // once this file exists it exits (tests end it so)
	// Handover: it starts a copy of itself that does the rest, and exits
	// with status 0 at once (as a launcher such as macOS's open does).
	Handover bool
}

// Args are the program's arguments for f (after Arg, for a test binary).
func (f Fake) Args() []string {
	a := []string{"-addr", f.Addr, "-record", f.Record, "-delay", f.Delay.String(), "-exit", fmt.Sprint(f.Exit)}
	for k, v := range map[string]string{"-hold": f.Hold, "-stderr": f.Stderr, "-stop": f.Stop, "-cure": f.Cure} {
		if v != "" {
			a = append(a, k, v)
		}
	}
	if f.Handover {
		a = append(a, "-handover")
	}
	return a
}

// Command is the launch command that runs this test binary as f.
func (f Fake) Command() launch.Command {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return launch.Command{Path: exe, Args: append([]string{Arg}, f.Args()...)}
}

// Started is one start of the fake, as it recorded it.
type Started struct {
	Pid int `json:"pid"`
	// Handover: this start was the launcher that handed over (Fake.Handover).
	Handover bool `json:"handover,omitempty"`
	// Unix: its session and process group, and whether stdin is
	// /dev/null.
	Sid       int  `json:"sid,omitempty"`
	Pgid      int  `json:"pgid,omitempty"`
	StdinNull bool `json:"stdin_null,omitempty"`
	// Token: CAD_MCP_TOKEN was in its environment.
	Token bool `json:"token,omitempty"`
	// Windows: its console window (0: none).
	ConsoleWindow uint64 `json:"console_window"`
	HasConsole    bool   `json:"has_console"`
}

// Starts reads the record file: one Started per start, oldest first.
func Starts(path string) ([]Started, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Started
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var s Started
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("%s: %q: %v", path, sc.Text(), err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// life bounds a fake that nobody stops (a test that died): it does not
// outlive the run by much.
const life = 10 * time.Minute

// Run is the fake CAD program with its arguments, writing to stdout and
// stderr; it returns the exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakecad", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "", "")
	record := fs.String("record", "", "")
	delay := fs.Duration("delay", 0, "")
	hold := fs.String("hold", "", "")
	exit := fs.Int("exit", 0, "")
	stderrLine := fs.String("stderr", "", "")
	stop := fs.String("stop", "", "")
	handover := fs.Bool("handover", false, "")
	cure := fs.String("cure", "", "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *handover {
		return handOver(*record, args, stdout, stderr)
	}
	if *record != "" {
		me := self()
		me.Token = os.Getenv("CAD_MCP_TOKEN") != ""
		if err := appendRecord(*record, me); err != nil {
			fmt.Fprintln(stderr, "fakecad:", err)
			return 2
		}
	}
	fmt.Fprintln(stdout, "fake CAD program started") // to its output file, never a client's pipe
	if *stderrLine != "" {
		fmt.Fprintln(stderr, *stderrLine)
	}
	if *exit > 0 && !exists(*cure) {
		return *exit
	}
	time.Sleep(*delay) // the program's own start-up time: what a launch waits through
	deadline := time.Now().Add(life)
	for *hold != "" && !exists(*hold) {
		if time.Now().After(deadline) || exists(*stop) {
			return 0
		}
		time.Sleep(20 * time.Millisecond)
	}
	s, err := simbase.Start(*addr, simbase.Options{})
	if err != nil {
		fmt.Fprintln(stderr, "fakecad: its base:", err)
		return 3
	}
	fmt.Fprintf(stdout, "fake CAD base listening on %s\n", s.Addr())
	for !exists(*stop) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	s.Close()
	return 0
}

// handOver starts this program again without -handover, with the same
// output, and leaves it running.
func handOver(record string, args []string, stdout, stderr io.Writer) int {
	if record != "" {
		me := self()
		me.Handover = true
		if err := appendRecord(record, me); err != nil {
			return 2
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return 2
	}
	var rest []string
	if len(os.Args) > 1 && os.Args[1] == Arg {
		rest = append(rest, Arg)
	}
	for _, a := range args {
		if a != "-handover" {
			rest = append(rest, a)
		}
	}
	cmd := exec.Command(exe, rest...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "fakecad: handing over:", err)
		return 2
	}
	fmt.Fprintln(stdout, "fake CAD launcher: handed over to pid", cmd.Process.Pid)
	return 0
}

func exists(path string) bool {
	if path == "" {
		return false
	}
	_, err := os.Stat(path)
	return err == nil
}

// appendRecord appends one line: O_APPEND writes of a short line do not
// interleave between the fakes of one test.
func appendRecord(path string, s Started) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	line, _ := json.Marshal(s)
	_, err = io.WriteString(f, string(line)+"\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WaitStarts waits (polling, up to limit) until the record holds at least
// n starts, and returns them.
func WaitStarts(path string, n int, limit time.Duration) ([]Started, error) {
	deadline := time.Now().Add(limit)
	for {
		got, err := Starts(path)
		if err != nil || len(got) >= n {
			return got, err
		}
		if time.Now().After(deadline) {
			return got, fmt.Errorf("%d starts recorded in %s, want %d", len(got), path, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// FreeAddr is a loopback address where nothing listens, on a port outside
// the ephemeral ranges (Linux 32768–60999, Windows 49152–65535): the fake
// listens there only later, and meanwhile another test's listener on port
// 0 must not be handed the same port. Ports 20000–23999 are left to the
// bridge's fault soak, which stops and restarts its base on one port.
func FreeAddr() (string, error) {
	var err error
	for range 100 {
		addr := fmt.Sprintf("127.0.0.1:%d", 24000+rand.IntN(8000))
		var ln net.Listener
		if ln, err = net.Listen("tcp", addr); err == nil {
			ln.Close()
			return addr, nil
		}
	}
	return "", err
}

// Touch creates a file (Hold, Stop).
func Touch(path string) error { return os.WriteFile(path, nil, 0o600) }
