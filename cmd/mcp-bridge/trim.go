package main

import (
	"io"
	"sync"
	"time"
)

// trimDelay is how long after its first answer a stdio bridge drops the
// binary's mappings: a process that ends sooner (a client's quick check:
// initialize, tools/list, stdin closed) never spends the time reading its
// smaps, which on a busy machine doubled the time from stdin's end to the
// process gone; one that stays is trimmed long before anyone looks at its
// memory.
const trimDelay = 25 * time.Millisecond

// afterFirstWrite is w, which starts f on a goroutine of its own delay
// after the first write to it has returned: the bridge's first answer
// (initialize) is out before f runs, so that f costs the client's start-up
// nothing.
func afterFirstWrite(w io.Writer, delay time.Duration, f func()) io.Writer {
	return &firstWrite{w: w, delay: delay, f: f}
}

type firstWrite struct {
	w     io.Writer
	delay time.Duration
	once  sync.Once
	f     func()
}

func (fw *firstWrite) Write(p []byte) (int, error) {
	n, err := fw.w.Write(p)
	fw.once.Do(func() { time.AfterFunc(fw.delay, fw.f) })
	return n, err
}
