//go:build unix

package desktop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAskEndsWhileAHelperHoldsOutputs: a dialog program that left a
// process of its own behind holding its stdout and stderr (a toolkit's
// session or accessibility helper, a wrapper script's background job)
// does not hold the question. Cancelled (the client cancelled, its
// session ended, stdin closed), the dialog and what it left in its
// process group are killed and Ask returns at once; answered, Ask returns
// the program's answer once the program has exited (its outputs read for
// at most outputsGrace more). Before, Ask waited for the program's outputs
// to close (exec.Cmd.Wait without WaitDelay, and <-done after Kill), which
// the helper never does: the question, its client's later calls and its
// dialogs queued behind it waited as long as the helper lived.
func TestAskEndsWhileAHelperHoldsOutputs(t *testing.T) {
	for _, c := range []struct {
		name string
		k    kind
		f    fakeDialog // Code -1: the dialog stays open until cancelled
		want Answer
	}{
		{"cancelled while open", zenity, fakeDialog{Code: -1}, Cancelled},
		{"zenity answered Run", zenity, fakeDialog{Code: 0}, Run},
		{"kdialog answered Run", kdialog, fakeDialog{Code: 0, Stdout: kdialogRun + "\n"}, Run},
		{"yad answered Don't run", yad, fakeDialog{Code: 1}, DontRun},
	} {
		t.Run(c.name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "helper")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			// The FIFO's writer: opened once the helper (or the open
			// dialog) reads it, closed at the end to let them go.
			var w *os.File
			openWriter := func() {
				var err error
				if w, err = os.OpenFile(fifo, os.O_WRONLY, 0); err != nil {
					t.Fatal(err)
				}
			}
			t.Cleanup(func() {
				if w == nil {
					openWriter()
				}
				w.Close()
			})
			f := c.f
			f.Helper = fifo
			p := fake(t, c.k, f)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type result struct {
				a   Answer
				err error
			}
			done := make(chan result, 1)
			go func() { a, err := p.show(ctx, TitlePrefix+"t", "body", 0); done <- result{a, err} }()
			helper := 0
			if f.Code == -1 {
				openWriter() // the helper runs, the dialog is open
				helper = helperPID(t, fifo)
				cancel()
			}
			select {
			case r := <-done:
				if r.a != c.want || r.err != nil {
					t.Errorf("Ask = %v, %v; want %v", r.a, r.err, c.want)
				}
			case <-time.After(20 * time.Second): // a guard against the hang only
				t.Fatalf("Ask has not returned 20 s after the dialog program ended or was cancelled: it waits for the helper holding its outputs")
			}
			if helper != 0 {
				// The dialog's process group went with it.
				deadline := time.Now().Add(10 * time.Second)
				for !gone(helper) {
					if time.Now().After(deadline) {
						t.Fatalf("the helper the cancelled dialog left (pid %d) still runs", helper)
					}
					time.Sleep(10 * time.Millisecond) // polling a process's end: no event to wait on
				}
			}
		})
	}
}

// helperPID is the process id the fake's helper wrote beside fifo, once
// it has (a condition waited on with a deadline).
func helperPID(t *testing.T, fifo string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(fifo + ".pid")
		if err == nil {
			pid, err := strconv.Atoi(string(b))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fake's helper wrote no process id: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// gone reports whether process pid has ended (a zombie nobody reaped
// included).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return strings.HasPrefix(rest, "Z")
}
