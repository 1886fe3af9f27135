package journal

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// The soak's writer processes are this test binary, run again with
// JOURNAL_SOAK_WRITER set: each appends its share of entries.
func TestMain(m *testing.M) {
	if spec := os.Getenv("JOURNAL_SOAK_WRITER"); spec != "" {
		var path string
		var who, n int
		var max int64
		fmt.Sscanf(spec, "%d %d %d", &who, &n, &max)
		path = os.Getenv("JOURNAL_SOAK_PATH")
		w, err := Open(path, max, 100000)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for i := range n {
			e := &Entry{Time: time.Now(), PID: os.Getpid(), Transport: "stdio", Era: "legacy", Method: "tools/call",
				Tool: fmt.Sprintf("w%d", who), ID: strconv.Itoa(i), Outcome: OK,
				// padding makes lines long enough that a torn or mixed write would show
				Message: strings.Repeat(string(rune('a'+who)), 200+i%300)}
			if err := w.Write(e); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		w.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSoakThreeProcesses: three processes append 10,000 entries at once to
// one journal with a small cap, so that it rotates about a hundred times.
// Every line must be a whole entry of one writer, and every entry of every
// writer must be there exactly once.
func TestSoakThreeProcesses(t *testing.T) {
	path := filepath.Join(testdir.New(t), "journal.jsonl")
	const writers, total = 3, 10000
	per := []int{3334, 3333, 3333}
	var cmds []*exec.Cmd
	for who := range writers {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("JOURNAL_SOAK_WRITER=%d %d %d", who, per[who], 64<<10), "JOURNAL_SOAK_PATH="+path)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
	seen := make([]map[string]bool, writers)
	for i := range seen {
		seen[i] = map[string]bool{}
	}
	lines := 0
	err := Each(path, func(l Line) bool {
		lines++
		e := l.Entry
		if e == nil {
			t.Fatalf("%s:%d is not a whole entry: %.120q", l.File, l.N, l.Text)
		}
		who := int(e.Tool[1] - '0')
		if e.Message != strings.Repeat(string(rune('a'+who)), len(e.Message)) {
			t.Fatalf("%s:%d mixes writers: %.120q", l.File, l.N, l.Text)
		}
		if seen[who][e.ID] {
			t.Fatalf("entry %s of writer %d twice", e.ID, who)
		}
		seen[who][e.ID] = true
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if lines != total {
		t.Errorf("%d lines in the journal; %d were written", lines, total)
	}
	for who := range writers {
		if len(seen[who]) != per[who] {
			t.Errorf("writer %d: %d of its %d entries found", who, len(seen[who]), per[who])
		}
	}
	files := Files(path)
	if len(files) < 10 {
		t.Errorf("only %d files: the journal did not rotate as the cap asks", len(files))
	}
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > 64<<10 {
			t.Errorf("%s is %d bytes, over the 64 KiB cap", f, fi.Size())
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v; want 0600", f, fi.Mode().Perm())
		}
	}
	t.Logf("%d entries from %d processes in %d files", lines, writers, len(files))
}

func TestRotationKeepsNewestFiles(t *testing.T) {
	path := filepath.Join(testdir.New(t), "j")
	w, err := Open(path, 100, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 10 {
		if err := w.WriteLine(fmt.Appendf(nil, "%060d\n", i)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	_ = Each(path, func(l Line) bool { got = append(got, strings.TrimLeft(string(l.Text), "0")); return true })
	// one 61-byte line per file: j.2, j.1, j
	if strings.Join(got, ",") != "7,8,9" {
		t.Errorf("lines kept: %v; want the three newest", got)
	}
}

func TestExistingFileTightened(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes are not access control on Windows")
	}
	path := filepath.Join(testdir.New(t), "j")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Open(path, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v; want 0600", fi.Mode().Perm())
	}
}
