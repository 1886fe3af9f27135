package bridge

import (
	"sync"

	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// batch gathers the answers to the requests of one batch line and writes
// them as one array when the last is in. Each request of the batch holds it
// until its reply ends, and so does the reader until it has handled the
// line.
//
// The array is one line, and no line may pass --max-message. An answer
// that would push the array past it is replaced by a short -32603 "answer
// too large for a batch" error for that request (the request has run; sent
// on its own, its answer may fit). Should even that error not fit, the
// request's answer is left out, and one last element without an id says
// how many were; room for it is kept from the start. So a batch never
// holds more than --max-message of answers, whatever its length.
type batch struct {
	out Stream
	max int

	mu      sync.Mutex
	refs    int
	parts   []rpc.Encoded
	size    int // of the array so far: brackets, commas and parts
	omitted int // answers that did not fit at all
}

// omittedRoom is kept free in every batch answer for the omitted note.
const omittedRoom = 256

func newBatch(out Stream, max int) *batch { return &batch{out: out, max: max, refs: 1, size: 2} }

func (bt *batch) hold() {
	bt.mu.Lock()
	bt.refs++
	bt.mu.Unlock()
}

// put adds one answer; when it does not fit, the error tooLarge(its size)
// returns; when that does not fit either, nothing.
func (bt *batch) put(m rpc.Encoded, tooLarge func(size int) rpc.Encoded) {
	bt.mu.Lock()
	defer bt.mu.Unlock()
	room := bt.max - bt.size - omittedRoom
	if len(bt.parts) > 0 {
		room-- // the comma
	}
	if m.Len() > room {
		m = tooLarge(m.Len())
	}
	if m.Len() > room {
		bt.omitted++
		return
	}
	bt.parts = append(bt.parts, m)
	bt.size += m.Len() + min(len(bt.parts)-1, 1)
}

// release drops a hold; the last one writes the array, if it holds any
// answer (a batch of notifications gets nothing back).
func (bt *batch) release() {
	bt.mu.Lock()
	bt.refs--
	last := bt.refs == 0
	parts := bt.parts
	if last {
		bt.parts = nil
		if bt.omitted > 0 {
			parts = append(parts, rpc.EncodeError(rpc.ID{}, clienterr.BatchOmitted.New(bt.omitted, bt.max)))
		}
	}
	bt.mu.Unlock()
	if last && len(parts) > 0 {
		_ = bt.out.WriteBatch(parts)
	}
}
