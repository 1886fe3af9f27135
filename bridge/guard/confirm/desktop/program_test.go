package desktop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// fakeEnv, set in a dialog program's environment, makes this test binary
// that program (TestMain): it writes the stdout and stderr the variable
// says and exits with its code, as a dialog program ends (a choice, or a
// toolkit losing its display).
const fakeEnv = "MCP_BRIDGE_FAKE_DIALOG"

// fakeDialog is what the fake writes and how it exits.
type fakeDialog struct {
	Code   int
	Stdout string
	// Stderr is written after Warnings bytes of toolkit warnings (lines
	// of Qt's "QStandardPaths: …" kind).
	Warnings int
	Stderr   string
	// Helper, when not "", is a FIFO: the fake first starts a helper
	// process of its own that inherits its stdout and stderr (as a
	// toolkit's session helper may), writes its process id to Helper+".pid"
	// and lives until the FIFO is opened for writing and closed; the fake
	// then waits for that too (a dialog still open) when Code is -1.
	Helper string
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(fakeEnv); spec != "" {
		var f fakeDialog
		if err := json.Unmarshal([]byte(spec), &f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(125)
		}
		if f.Helper != "" {
			if os.Getenv(fakeEnv+"_HELPER") == "1" {
				if os.WriteFile(f.Helper+".tmp", []byte(strconv.Itoa(os.Getpid())), 0o600) != nil || os.Rename(f.Helper+".tmp", f.Helper+".pid") != nil {
					os.Exit(123)
				}
				waitFIFO(f.Helper)
				os.Exit(0)
			}
			exe, _ := os.Executable()
			h := exec.Command(exe)
			h.Env = append(os.Environ(), fakeEnv+"_HELPER=1")
			h.Stdout, h.Stderr = os.Stdout, os.Stderr
			if err := h.Start(); err != nil {
				os.Exit(124)
			}
			if f.Code == -1 {
				waitFIFO(f.Helper)
				os.Exit(0)
			}
		}
		line := "QStandardPaths: XDG_RUNTIME_DIR not set, defaulting to '/tmp/runtime-root'\n"
		w := strings.Repeat(line, f.Warnings/len(line)+1)[:f.Warnings]
		os.Stderr.WriteString(w + f.Stderr)
		os.Stdout.WriteString(f.Stdout)
		os.Exit(f.Code)
	}
	os.Exit(m.Run())
}

// fake is a dialog program of kind k that ends as f says.
func fake(t *testing.T, k kind, f fakeDialog) *program {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := json.Marshal(f)
	return &program{kind: k, path: exe, env: append(os.Environ(), fakeEnv+"="+string(spec))}
}

// TestOnlyRunRuns: each program's one answer that means Run, and nothing
// else, runs the call, whatever the program wrote to stderr before and
// however much: the toolkit's warnings one byte either side of what the
// bridge keeps of them (4 KiB), then the toolkit's last words when it
// lost its display (Qt's "connection broke", exit 1). Before, kdialog's
// exit 1 was "Run" unless its kept stderr, the first 4 KiB only, held
// "connection broke": past 4 KiB of warnings, a lost display ran the call.
func TestOnlyRunRuns(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no dialog program runs on Windows: its message box is asked in-process (TestMessageBoxAnswer)")
	}
	const qtGone = "The X11 connection broke (error 1). Did the X11 server die?\n"
	const gtkGone = "Gdk-Message: 10:01:02.003: zenity: Fatal IO error 11 (Resource temporarily unavailable) on X server :0.\n"
	runs := map[kind]fakeDialog{
		zenity:    {Code: 0},
		kdialog:   {Code: 0, Stdout: kdialogRun + "\n"},
		yad:       {Code: yadRun},
		osascript: {Code: 0, Stdout: "run\n"},
	}
	// Where the last words fit whole in the first 4 KiB, and just not;
	// where the warnings alone fill them.
	fits := maxOutput - len(qtGone)
	edges := []int{0, fits - 1, fits, fits + 1, maxOutput - 1, maxOutput, maxOutput + 1, 3 * maxOutput}
	for _, k := range []kind{zenity, kdialog, yad, osascript} {
		t.Run(k.String(), func(t *testing.T) {
			t.Parallel() // each case starts a process: slow under -race
			testOnlyRunRuns(t, k, runs[k], edges, qtGone, gtkGone)
		})
	}
}

func testOnlyRunRuns(t *testing.T, k kind, run fakeDialog, edges []int, qtGone, gtkGone string) {
	for _, n := range edges {
		for _, c := range []struct {
			name  string
			f     fakeDialog
			want  Answer
			err   bool
			edges bool // at every edge; else with no warnings and past the cap only
		}{
			{"its Run answer", run, Run, false, true},
			{"Qt lost its display", fakeDialog{Code: 1, Stderr: qtGone}, DontRun, k != zenity && k != yad, true},
			{"GTK lost its display", fakeDialog{Code: 1, Stderr: gtkGone}, DontRun, k == osascript, false},
			{"killed", fakeDialog{Code: 137}, DontRun, true, false},
			{"Run answer with more output", fakeDialog{Code: run.Code, Stdout: run.Stdout + "x\n"}, DontRun, k == kdialog || k == osascript, false},
		} {
			if !c.edges && n != 0 && n != edges[len(edges)-1] {
				continue
			}
			if (k == zenity || k == yad) && c.name == "Run answer with more output" {
				continue // their answer is the exit code alone
			}
			f := c.f
			f.Warnings = n
			a, err := fake(t, k, f).show(context.Background(), TitlePrefix+"t", "body", 0)
			if a != c.want || (err != nil) != c.err {
				t.Errorf("%s, %s after %d bytes of warnings: %v, %v; want %v (an error: %v)", k, c.name, n, a, err, c.want, c.err)
			}
			if err != nil && strings.Contains(c.f.Stderr, "connection broke") && !strings.HasSuffix(err.Error(), strings.TrimSpace(c.f.Stderr)) {
				t.Errorf("%s, %s after %d bytes of warnings: the error does not end with why: %v", k, c.name, n, err)
			}
			if err != nil && len(err.Error()) > 400 {
				t.Errorf("%s, %s after %d bytes of warnings: an error of %d bytes", k, c.name, n, len(err.Error()))
			}
		}
	}
}

// waitFIFO returns once the FIFO at path has been opened for writing and
// closed.
func waitFIFO(path string) {
	f, err := os.Open(path) // blocks until a writer opens it
	if err == nil {
		_, _ = f.Read(make([]byte, 1))
		f.Close()
	}
}
