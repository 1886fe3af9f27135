package bridge

import (
	"bytes"
	"sync"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// batch gathers the answers to the requests of one batch line and writes
// them as one array when the last is in. Each queued request or open listen
// holds a reference, and so does the reader until it has handled the line.
type batch struct {
	out   *rpc.Writer
	mu    sync.Mutex
	refs  int
	parts [][]byte
}

func newBatch(out *rpc.Writer) *batch { return &batch{out: out, refs: 1} }

func (bt *batch) add() {
	bt.mu.Lock()
	bt.refs++
	bt.mu.Unlock()
}

// put adds an answer written by fn. Answers given inline need no reference:
// the reader's own reference keeps the batch open while it handles the line.
func (bt *batch) put(fn func(w *rpc.Writer) error) {
	var buf bytes.Buffer
	_ = fn(rpc.NewWriter(&buf))
	bt.mu.Lock()
	bt.parts = append(bt.parts, bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	bt.mu.Unlock()
}

// done drops a reference; the last one writes the array, if it holds any
// answer (a batch of notifications gets nothing back).
func (bt *batch) done() {
	bt.mu.Lock()
	bt.refs--
	last := bt.refs == 0
	parts := bt.parts
	bt.mu.Unlock()
	if !last || len(parts) == 0 {
		return
	}
	line := append([]byte{'['}, bytes.Join(parts, []byte{','})...)
	_ = bt.out.WriteLine(append(line, ']'))
}
