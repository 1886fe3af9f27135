package bridge

import (
	"context"
	"io"
	"sync"
	"time"
)

// ServeStdio is Run on the process's own stdin and stdout, as the
// mcp-bridge binary serves a client: stdin made interruptible (a signal
// ends the reader), stdout's pipe widened, and once the first answer is
// out, the binary's untouched mappings dropped (trim_linux.go).
func ServeStdio(ctx context.Context, cfg Config, stdin io.Reader, stdout io.Writer) error {
	widenPipe(stdout)
	return Run(ctx, cfg, Interruptible(stdin), afterFirstWrite(stdout, trimDelay, func() { unmapUntouched(cfg.Log) }))
}

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
