package bridge

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// recordingWriter notes, at each write, whether f had run by then.
type recordingWriter struct {
	ran    *atomic.Int32
	seen   []int32
	failAt int
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.seen = append(w.seen, w.ran.Load())
	if len(w.seen) == w.failAt {
		return 1, errors.New("broken pipe")
	}
	return len(p), nil
}

// TestAfterFirstWrite: the mappings are dropped only once the first answer
// is written (the client's start-up waits for nothing more), once, and the
// writes pass through as they were.
func TestAfterFirstWrite(t *testing.T) {
	var ran atomic.Int32
	done := make(chan struct{}, 4)
	rw := &recordingWriter{ran: &ran, failAt: 3}
	w := afterFirstWrite(rw, 0, func() { ran.Add(1); done <- struct{}{} })
	if n, err := w.Write([]byte("first\n")); n != 6 || err != nil {
		t.Fatalf("first write: %d, %v", n, err)
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("f did not run after the first write")
	}
	w.Write([]byte("second\n"))
	if n, err := w.Write([]byte("third\n")); n != 1 || err == nil {
		t.Errorf("a failed write came back as %d, %v", n, err)
	}
	if rw.seen[0] != 0 {
		t.Errorf("f ran before the first write reached the writer")
	}
	if got := ran.Load(); got != 1 {
		t.Errorf("f ran %d times", got)
	}
}
