package main

import (
	"io"
	"sync"
)

// afterFirstWrite is w, which starts f in a goroutine of its own once the
// first write to it has returned: the bridge's first answer (initialize)
// is out before f runs, so that f costs the client's start-up nothing.
func afterFirstWrite(w io.Writer, f func()) io.Writer {
	return &firstWrite{w: w, f: f}
}

type firstWrite struct {
	w    io.Writer
	once sync.Once
	f    func()
}

func (fw *firstWrite) Write(p []byte) (int, error) {
	n, err := fw.w.Write(p)
	fw.once.Do(func() { go fw.f() })
	return n, err
}
