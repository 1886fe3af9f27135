package bridge

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"hash/maphash"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/toolcache"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/httpheader"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// toolState is what the bridge knows of the base's tool list and whether
// the base is up. The worker and the prober both update it.
type toolState struct {
	mu       sync.Mutex
	down     bool   // the last attempt found no base
	last     []byte // the last good tools/list result, nil before one
	lastHash uint64 // of last's tools, 0 before one
	// headers are last's x-mcp-header declarations (mirrored.go), read
	// once per list.
	headers *httpheader.Table
	// reread are the calls (rereadKey) the list was read again for since
	// the base last answered tools/list: each once per list (mirrored.go).
	reread map[uint64]struct{}
	seed   maphash.Seed
	cache  toolcache.Cache
	// cacheWarned: the log has said once why the cache was ignored.
	cacheWarned bool
	wake        chan struct{} // tells the prober the base went down
	// reading is held by whoever reads the base's list because none is
	// known yet (knownList): one at a time.
	reading chan struct{}
	// policy shapes the list the client sees: changes are detected on
	// that list, so a change in a denied tool is no news to the client.
	policy *policy.Policy
}

// lastList is the last good tool list (raw, as the base sent it) this
// process saw, or nil; the policy reads a tool's own annotations in it.
func (s *toolState) lastList() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// declared is what the last tool list says tool name mirrors into
// headers, and whether that list holds the tool (false too before any
// list).
func (s *toolState) declared(name string) (*httpheader.Tool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers.Lookup(name)
}

// maxRereads bounds the calls the tool list is read again for, per list
// (mirrored.go): the memory they take, and the reads a client can ask of
// CAD.
const maxRereads = 256

// settles is what a 2026-07-28 HTTP call of tool, with headers, is
// checked against now: the tool's declarations in the list the bridge
// holds, and whether that list settles the call. It does when the list
// holds the tool (EqualFold twins too: httpheader.Table.Lookup) and
// declares every Mcp-Param-* header the call sends; or, when it does not,
// once the list was read again for such a call (the same tool, the same
// undeclared headers) since the base last answered tools/list, or
// maxRereads calls were. key names the call for markReread.
func (s *toolState) settles(tool string, headers map[string][]string) (decl *httpheader.Tool, key uint64, settled bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.headers == nil {
		return nil, 0, false // no list yet: nothing to check against
	}
	decl, listed := s.headers.Lookup(tool)
	undeclared := decl.Undeclared(headers)
	if listed && undeclared == nil {
		return decl, 0, true
	}
	if s.seed == (maphash.Seed{}) {
		s.seed = maphash.MakeSeed() // per process: nobody picks two calls that share a key
	}
	var h maphash.Hash
	h.SetSeed(s.seed)
	h.WriteString(tool)
	for _, n := range undeclared {
		h.WriteByte(0) // not in a tool name's header names: no two calls share a key by their spelling
		h.WriteString(n)
	}
	key = h.Sum64()
	_, done := s.reread[key]
	return decl, key, done || len(s.reread) >= maxRereads
}

// markReread notes that the list was read again for the call key names.
func (s *toolState) markReread(key uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reread == nil {
		s.reread = map[uint64]struct{}{}
	}
	if len(s.reread) < maxRereads {
		s.reread[key] = struct{}{}
	}
}

// listSeen notes that the base answered tools/list (a page the client
// asked for, or a whole list): calls may have the list read again, once
// each.
func (s *toolState) listSeen() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.reread)
}

// wentDown records that the base could not be reached. It reports whether
// this is news, so that the bridge logs it once, not once per request.
func (s *toolState) wentDown() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return false
	}
	s.down = true
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return true
}

// cameBack records that the base answered; it reports whether it had been
// down.
func (s *toolState) cameBack() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	was := s.down
	s.down = false
	return was
}

// isDown is the base's state as the last call or probe found it: the
// health report reads it, and the prober asks it before each try.
func (s *toolState) isDown() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.down
}

// record keeps a fresh, complete tools/list result, writes it to the disk
// cache when it is news, and reports whether it differs from the previous
// list this process saw; headers are its x-mcp-header declarations when it
// is not the same list as before (nil when it is).
func (s *toolState) record(result []byte) (changed bool, headers *httpheader.Table, err error) {
	s.listSeen()
	s.mu.Lock()
	same := s.last != nil && bytes.Equal(result, s.last) // the usual case: no hashing again
	s.mu.Unlock()
	if same {
		return false, nil, nil
	}
	// Changes are judged on the tools as the client is shown them: a
	// change in a denied tool, or around the "tools" array, is no news.
	h := fnv.New64a()
	h.Write(rpc.Field(s.policy.ApplyList(result), "tools"))
	sum := h.Sum64() | 1 // never 0, which means "none yet"
	headers = httpheader.Read(result)
	s.mu.Lock()
	prev := s.lastHash
	s.lastHash, s.last, s.headers = sum, result, headers
	s.mu.Unlock()
	if sum == prev {
		return false, headers, nil
	}
	if cached, _ := s.cache.Load(); !bytes.Equal(cached, result) {
		err = s.cache.Store(result)
	}
	return prev != 0, headers, err
}

// fallback is the list to serve while the base is down: the last one seen
// by this process, or the one on disk if it can be trusted (the first time
// it cannot, log says why).
func (s *toolState) fallback(log zerolog.Logger) []byte {
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	if last != nil {
		return last
	}
	cached, err := s.cache.Load()
	if err != nil {
		s.mu.Lock()
		first := !s.cacheWarned
		s.cacheWarned = true
		s.mu.Unlock()
		if first {
			log.Warn().Err(err).Str("path", s.cache.Path()).Msg("tool list cache ignored")
		}
	}
	return cached
}

// probe runs while Run does: whenever the base goes down it asks for the
// tool list, with backoff from ProbeInterval up to a minute, until the base
// answers; while the base is up it does nothing. A probe is a tools/list,
// which changes nothing in CAD.
//
// Why probe at all: the client hears that the list changed as soon as CAD
// is back (sendListChanged), rather than when its next call happens to
// find it. Why only while down: a base that answers calls is known to be
// up, and each probe is a connection CAD must serve.
func (b *bridge) probe(ctx context.Context) {
	const maxWait = time.Minute
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.tools.wake:
		}
		wait := b.cfg.ProbeInterval
		for b.tools.isDown() {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			if !b.tools.isDown() {
				break // a request found it first
			}
			callCtx, cancel := context.WithTimeout(ctx, b.cfg.ListTimeout)
			ans, err := b.cfg.Base.Call(callCtx, listFrame)
			cancel()
			if err != nil && tcpbase.KindOf(err) == tcpbase.ErrUnreachable {
				b.baseDown(err) // the reason as it is now
			}
			if err == nil {
				b.cfg.Health.Up()
				d := rpc.DecodeValidMessage(ans)
				if r, ok := d.Msg.(*rpc.Response); ok && r.Error == nil && rpc.Kind(r.Result) == rpc.KindObject {
					if b.tools.cameBack() {
						b.log.Info().Str("base", b.cfg.BaseAddr).Msg("CAD base is back (noticed by the probe); telling the client to list tools again")
						pageCtx, cancel := context.WithTimeout(ctx, b.cfg.ListTimeout)
						if list, _, err := b.fetchList(pageCtx, r.Result); err == nil { // its other pages too
							b.recordList(list)
						}
						cancel()
						b.sendListChanged(true)
					}
					break
				}
			}
			b.log.Debug().Dur("next_ms", wait).Msg("CAD base still down")
			wait = min(2*wait, maxWait)
		}
	}
}

// baseResult updates the liveness state after a call: down on
// ErrUnreachable, up on any answer. It returns whether the client should
// hear that the tool list changed (the base came back).
func (b *bridge) baseResult(err error) (back bool) {
	if err != nil {
		if tcpbase.KindOf(err) == tcpbase.ErrUnreachable {
			b.baseDown(err)
			if b.tools.wentDown() {
				b.log.Warn().Err(err).Str("base", b.cfg.BaseAddr).Msg("CAD base is down; requests get an error until it is back")
			}
		}
		return false
	}
	b.cfg.Health.Up()
	if b.tools.cameBack() {
		b.log.Info().Str("base", b.cfg.BaseAddr).Msg("CAD base is back")
		return true
	}
	return false
}

// heartbeat sends notifications/progress for token, where r is answered, every
// ProgressInterval until the returned stop is called; stop returns once no
// heartbeat can follow, so none ever comes after the answer. Calling stop
// again does nothing.
//
// CAD says nothing while it works, and a drawing can take minutes: clients
// that reset their timeout on progress (the TypeScript SDK's
// resetTimeoutOnProgress) keep waiting, and the person sees how long it
// has been (docs/launch.md).
func (b *bridge) heartbeat(r *reply, token []byte, start time.Time) (stop func()) {
	if token == nil || b.cfg.ProgressInterval <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go b.runHeartbeat(r, token, start, done, &wg)
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
		})
	}
}

// runHeartbeat is heartbeat's goroutine, named for stack dumps; it ends
// when done closes, and wg tells stop so.
func (b *bridge) runHeartbeat(r *reply, token []byte, start time.Time, done <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	t := time.NewTicker(b.cfg.ProgressInterval)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		secs := int(time.Since(start).Round(time.Second) / time.Second)
		params := fmt.Sprintf(`{"progressToken":%s,"progress":%d,"message":%s}`, token, r.progress.Add(1),
			strconv.Quote(fmt.Sprintf("waiting for CAD (%d s)", secs)))
		r.notify(rpc.EncodeNotification("notifications/progress", []byte(params)))
	}
}
