package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/toolcache"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// job is one request for the base, from the moment the reader accepts it
// until its reply has ended.
type job struct {
	req   *lifecycle.Request // the request as decoded: what every rule reads
	frame []byte             // the request as the base gets it, encoded from req.Tool
	reply *reply

	rule guard.Call // what the user's rules decided of it so far (gate.go)
	sent bool       // the worker handed its frame to the base: it may have run
	// collect: it waits for a job CAD runs for another request of its
	// client (jobs.go): its answer is that job's, journaled once already.
	collect bool
	// detached: answered with a job while it was queued; its reply is the
	// job's (jobs.go). stopQueued stops the clock that would do that.
	detached   bool
	stopQueued func() bool
	// headers: a 2026-07-28 HTTP call of a tool the bridge's tool list
	// does not hold, its headers to be checked by the worker once it has
	// read the list (mirrored.go); nil when checked, or nothing to check.
	headers map[string][]string
	// askAfter and askDone: its place in its turn's line of desktop
	// questions (Turn.nextAsk); nil when it is not asked on the desktop.
	askAfter, askDone chan struct{}
}

// bridge is the core shared by the front end, the worker and the prober.
type bridge struct {
	cfg Config
	log zerolog.Logger

	transport string // the front end, for the journal: stdio or http
	queue     *jobQueue

	clientsMu sync.Mutex
	clients   map[*Client]bool // every client, for list changes and shutdown

	// dropping: shutting down on a signal or a dead stdout; the worker
	// answers the jobs still queued without sending them.
	dropping atomic.Bool
	abort    context.CancelCauseFunc // ends every call to the base at once
	// hardCtx is what abort cancels: the parent of every request's context.
	hardCtx context.Context
	// The core's goroutines (start, stop).
	workerDone, proberDone chan struct{}
	stopProbe              context.CancelFunc
	// askCtx is the parent of every confirmation question; stopAsking
	// withdraws them all (shutdown).
	askCtx     context.Context
	stopAsking context.CancelCauseFunc

	tools toolState // is the base up, and its last tool list

	warned map[string]bool // tools whose schema repair was logged (worker only)
	// lastShown is the last tool list and how the client is shown it
	// (worker only, shownList).
	lastShown struct{ raw, shown []byte }

	gate *guard.Gate // the user's rules: policy, confirmation, journal (gate.go)
	// onScreen holds the one desktop dialog this bridge shows at a time,
	// whichever client it asks for (askDesktop).
	onScreen chan struct{}

	jobs *jobTable // calls answered before CAD finished them (jobs.go)
}

var (
	// errShutdown is the cause given to in-flight calls abandoned at shutdown.
	errShutdown = errors.New("mcp-bridge is shutting down")
	// errOutFailed is the cause when stdout failed: nobody can read an answer.
	errOutFailed = errors.New("stdout failed")
	// errStdinClosed withdraws the stdio client's questions when it closed
	// stdin: it can answer none any more, and its user has left.
	errStdinClosed = errors.New("the client closed stdin")
)

// Run serves one client on stdin/stdout until stdin ends or ctx is done.
//
// At the end of stdin it stops reading, withdraws the confirmation
// questions still open (their calls are answered not run), finishes every
// other request already accepted (bounded by ShutdownTimeout) and returns
// nil. When ctx is done
// (a signal), it gives the in-flight request Grace to finish, answers the
// queued ones with an error without sending them, and returns nil. It
// returns an error only when stdout fails. When Run returns, its worker has
// ended and its reader has too, unless stdin is a reader that cannot be
// interrupted (then the reader ends at its next read).
func Run(ctx context.Context, cfg Config, stdin io.Reader, stdout io.Writer) error {
	out := rpc.NewWriter(stdout)
	b := start(cfg, "stdio")
	c := newClient(out, b.cfg.MaxMessage, b.log)
	c.Describe(Describe{Transport: telemetry.TransportPipe})
	b.addClient(c)
	// The stdio client is one session, from start to end.
	sess := b.cfg.Telemetry.SessionStart(telemetry.SessionInfo{Transport: telemetry.TransportPipe})
	// The first failed write, from whichever goroutine, stops the bridge:
	// nothing more goes to CAD, the call in flight is cancelled.
	outFailed := make(chan struct{})
	out.OnFail(func(error) {
		b.dropping.Store(true)
		b.abort(errOutFailed)
		close(outFailed) // OnFail runs once
	})
	readerDone := make(chan struct{})
	go b.runReader(c, stdin, readerDone)

	var why exit
	select {
	case <-readerDone:
		why = exitEOF
	case <-ctx.Done():
		why = exitSignal
	case <-outFailed:
		why = exitOutFailed
	}
	err := b.shutdown(why, stdin, out, readerDone)
	sess.End("")
	return err
}

// start is how every front end starts the core: the bridge with cfg's
// defaults set, its worker and its prober. transport names the front end
// in the journal. stop is the one way to end them.
func start(cfg Config, transport string) *bridge {
	cfg.setDefaults()
	hardCtx, abort := context.WithCancelCause(context.Background())
	b := newBridge(cfg, hardCtx, abort)
	b.transport = transport
	probeCtx, stopProbe := context.WithCancel(context.Background())
	b.stopProbe = stopProbe
	b.proberDone, b.workerDone = make(chan struct{}), make(chan struct{})
	go b.runProber(probeCtx, b.proberDone)
	go b.runWorker(hardCtx, b.workerDone)
	return b
}

// stop ends the core, in one order whatever the front end and the reason:
// no new jobs; the queued ones dropped (answered unsent) when drop is set;
// the worker gets allowance to finish, after which the queue is dropped
// anyway and the call in flight aborted; open listens are answered; the
// prober ends. The front end has stopped reading first.
func (b *bridge) stop(drop bool, allowance time.Duration) {
	b.queue.close()
	if drop {
		if n := b.dropQueued(); n > 0 {
			b.log.Warn().Int("dropped", n).Msg("queued requests dropped at shutdown, none sent to CAD")
		}
	}
	if allowance > 0 {
		t := time.NewTimer(allowance)
		select {
		case <-b.workerDone:
		case <-t.C:
			if n := b.dropQueued(); n > 0 || !drop {
				b.log.Warn().Int("dropped", n).Dur("after_ms", allowance).Msg("shutdown timeout: abandoning the remaining requests")
			}
		}
		t.Stop()
	}
	b.abort(errShutdown)
	<-b.workerDone
	b.jobs.waiters.Wait() // the abort ended them
	b.endListens()
	b.stopProbe()
	<-b.proberDone
}

// newBridge is the core every front end shares: the queue in front of the
// one worker, and what is known of the base. cfg has its defaults set.
func newBridge(cfg Config, hardCtx context.Context, abort context.CancelCauseFunc) *bridge {
	askCtx, stopAsking := context.WithCancelCause(hardCtx)
	return &bridge{
		askCtx:     askCtx,
		stopAsking: stopAsking,
		cfg:        cfg,
		log:        cfg.Log,
		queue:      newJobQueue(cfg.Queue),
		clients:    map[*Client]bool{},
		abort:      abort,
		hardCtx:    hardCtx,
		warned:     map[string]bool{},
		tools:      toolState{cache: toolcache.New(cfg.CacheDir, cfg.BaseAddr, cfg.MaxMessage), wake: make(chan struct{}, 1), reading: make(chan struct{}, 1), policy: cfg.Policy},
		gate:       newGate(&cfg),
		onScreen:   make(chan struct{}, 1),
		jobs:       newJobTable(),
	}
}

func (b *bridge) addClient(c *Client) {
	b.clientsMu.Lock()
	b.clients[c] = true
	b.clientsMu.Unlock()
}

func (b *bridge) removeClient(c *Client) {
	b.clientsMu.Lock()
	delete(b.clients, c)
	b.clientsMu.Unlock()
}

func (b *bridge) allClients() []*Client {
	b.clientsMu.Lock()
	defer b.clientsMu.Unlock()
	cs := make([]*Client, 0, len(b.clients))
	for c := range b.clients {
		cs = append(cs, c)
	}
	return cs
}

// The goroutines Run starts, named so that a stack dump says who is who.

func (b *bridge) runProber(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	if b.cfg.ProbeInterval > 0 {
		b.probe(ctx)
	}
}

func (b *bridge) runReader(c *Client, stdin io.Reader, done chan<- struct{}) {
	defer close(done)
	b.read(c, stdin)
}

func (b *bridge) runWorker(hardCtx context.Context, done chan<- struct{}) {
	defer close(done)
	b.work(hardCtx)
}

// exit is why Run is ending.
type exit int

const (
	exitEOF       exit = iota // stdin ended: finish what was accepted
	exitSignal                // ctx is done: finish the request in flight, drop the queue
	exitOutFailed             // stdout failed: stop at once
)

// shutdown is the one way out of Run, whatever the reason: stop reading,
// then stop the core (it drops the queue unless stdin simply ended, and
// gives the worker its allowance: ShutdownTimeout, Grace, or none), and
// wait briefly for the reader.
func (b *bridge) shutdown(why exit, stdin io.Reader, out *rpc.Writer, readerDone <-chan struct{}) error {
	var allowance time.Duration
	switch why {
	case exitEOF:
		b.log.Debug().Msg("stdin closed: finishing accepted requests; questions withdrawn")
		allowance = b.cfg.ShutdownTimeout
		// The calls it sent are finished, but none it was asked about:
		// whoever would answer for them is gone (a desktop dialog closes).
		b.stopAsking(errStdinClosed)
	case exitSignal:
		b.log.Info().Msg("signal received: finishing the request in flight, dropping the queue")
		allowance = b.cfg.Grace
	case exitOutFailed:
		b.log.Error().Err(out.Err()).Msg("writing to stdout failed (the client closed it?): stopping; nothing more is sent to CAD")
	}
	b.stopReading(stdin)
	b.stop(why != exitEOF, allowance)

	var result error
	if err := out.Err(); err != nil {
		// The reader or the worker may have ended because stdout failed;
		// say so whichever exit this was.
		result = fmt.Errorf("writing to stdout: %w", err)
	}
	select {
	case <-readerDone:
	case <-time.After(250 * time.Millisecond):
		b.log.Debug().Msg("stdin cannot be interrupted: its reader ends at its next read")
	}
	return result
}

// stopReading makes the reader stop: the queue is closed to new work, and
// stdin is closed when it can be (a pipe made pollable by the caller, or an
// io.Pipe in tests).
func (b *bridge) stopReading(stdin io.Reader) {
	b.queue.close()
	if c, ok := stdin.(io.Closer); ok {
		_ = c.Close()
	}
}

// dropQueued marks the bridge as dropping: the worker answers every job
// still queued with an error instead of sending it, and the questions still
// out are withdrawn. It returns how many jobs were queued.
func (b *bridge) dropQueued() int {
	b.dropping.Store(true)
	b.stopAsking(errShutdown)
	return b.queue.len()
}
