//go:build unix

package desktop

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestHelperHoldingOutputs: a dialog program that left a process of its
// own behind holding its stdout and stderr (a toolkit's session or
// accessibility helper, a wrapper script's background job) must not hold
// the question. Cancelled (the client cancelled, its session ended, stdin
// closed), the dialog is killed and Ask returns at once; answered, Ask
// returns once the program has exited (Run, or an error: not run).
// Before, Ask waited for the program's outputs to close (exec.Cmd.Wait
// without WaitDelay, and <-done after Kill), which the helper never does:
// the question, its client's later calls and its dialogs queued behind it
// waited as long as the helper lived.
func TestHelperHoldingOutputs(t *testing.T) {
	for _, c := range []struct {
		name string
		code int // -1: the dialog stays open until cancelled
	}{
		{"cancelled while open", -1},
		{"answered Run", 0},
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
			p := fake(t, zenity, fakeDialog{Code: c.code, Helper: fifo})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type result struct {
				a   Answer
				err error
			}
			done := make(chan result, 1)
			go func() { a, err := p.show(ctx, TitlePrefix+"t", "body", 0); done <- result{a, err} }()
			if c.code == -1 {
				openWriter() // the helper runs, the dialog is open
				cancel()
			}
			select {
			case r := <-done:
				if c.code == -1 && r.a != Cancelled || c.code == 0 && r.a != Run && r.err == nil {
					t.Errorf("%v, %v", r.a, r.err)
				}
			case <-time.After(20 * time.Second): // a guard against the hang only
				t.Fatalf("Ask has not returned 20 s after the dialog program ended or was cancelled: it waits for the helper holding its outputs")
			}
		})
	}
}
