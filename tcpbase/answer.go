package tcpbase

import (
	"bytes"
	"sync"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// answerReader collects an answer in chunks that double in size (16 KiB
// up to 1 MiB), scanning the current chunk for the value's end as it fills,
// and joins them once at the end. Compared with one growing buffer this
// copies each byte once instead of about twice and never holds three
// generations of a large answer, which keeps the bridge's peak memory near
// twice the largest answer.
//
// The first chunk is lent by a pool and the answer is always copied out
// of it (release gives it back): most answers are a few hundred bytes, and
// a fresh, zeroed 16 KiB for each call cost more than the call's relaying
// (garbage, and page faults once the runtime returned the freed pages).
type answerReader struct {
	done  [][]byte // full chunks
	cur   []byte   // the chunk being filled
	first *[]byte  // the pooled first chunk, until release
	size  int      // bytes kept in done and cur
	scan  rpc.ValueEnd
	seen  bool // a byte other than whitespace has arrived
}

const (
	firstChunk = 16 << 10
	maxChunk   = 1 << 20
)

var firstChunks = sync.Pool{New: func() any { b := make([]byte, firstChunk); return &b }}

// space returns room to read into.
func (r *answerReader) space() []byte {
	if r.cur == nil || len(r.cur) == cap(r.cur) {
		if r.cur == nil {
			r.first = firstChunks.Get().(*[]byte)
			r.cur = (*r.first)[:0:firstChunk]
		} else {
			r.done = append(r.done, r.cur)
			r.cur = make([]byte, 0, min(2*cap(r.cur), maxChunk))
		}
	}
	return r.cur[len(r.cur):cap(r.cur)]
}

// release gives the first chunk back to the pool. Nothing may refer to it
// after: bytes copies the answer out.
func (r *answerReader) release() {
	if r.first != nil {
		firstChunks.Put(r.first)
		r.first, r.cur, r.done = nil, nil, nil
	}
}

// filled records n new bytes and returns the current chunk and where the
// new bytes start in it. Whitespace before the answer is dropped as it
// arrives: it is neither kept nor counted.
func (r *answerReader) filled(n int) ([]byte, int) {
	start := len(r.cur)
	fresh := r.cur[start : start+n]
	if !r.seen {
		k := 0
		for k < len(fresh) && isSpace(fresh[k]) {
			k++
		}
		if k < len(fresh) {
			r.seen = true
		}
		n = copy(fresh, fresh[k:])
	}
	r.cur = r.cur[:start+n]
	r.size += n
	return r.cur, start
}

// bytes returns the answer: everything before offset end of the current
// chunk, as one slice.
func (r *answerReader) bytes(end int) []byte {
	if len(r.done) == 0 {
		return append([]byte(nil), r.cur[:end]...) // out of the pooled chunk
	}
	return bytes.Join(append(r.done, r.cur[:end]), nil)
}
