package connect

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/httpheader"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Config configures Run. Zero values take the defaults below.
type Config struct {
	URL   string // the remote MCP endpoint, http:// or https://
	Token string // sent as "Authorization: Bearer <token>" when not empty
	// TokenFrom names where Token came from ("--token-file PATH",
	// "CAD_MCP_TOKEN"), for the message a refused token gets.
	TokenFrom string

	// Fingerprint pins the server's certificate by the SHA-256 of its DER
	// bytes (tlscert.ParseFingerprint); nil verifies the chain as usual
	// against RootCAs (nil: the system's roots).
	Fingerprint []byte
	RootCAs     *x509.CertPool

	MaxMessage    int           // bytes per message either way; default rpc.DefaultMaxMessage
	ProbeInterval time.Duration // first wait before probing an unreachable remote; default 1 s, doubling
	MaxProbe      time.Duration // longest wait between probes; default 1 min
	ExitGrace     time.Duration // after stdin ends, for answers still owed; default 30 s
	PingTimeout   time.Duration // a ping, a probe or a replayed handshake the remote has not answered by then counts as unreachable; default 10 s

	// ConfirmWith is who asks the user when the remote wants a call
	// confirmed, in order (policy.AskClient, policy.AskDesktop); default
	// client, then desktop. Desktop shows the question on this machine's
	// desktop (the client's: its user sits here); nil: none.
	ConfirmWith    []string
	Desktop        desktop.Asker
	ConfirmTimeout time.Duration // a desktop question closes itself after this long (not run); default guard.DefaultConfirmTimeout

	Log zerolog.Logger
	// Telemetry gets a span for each relayed request, and the round trip
	// to the remote (telemetry.Op.CallRemote), whose trace context goes to
	// the remote in params._meta; nil is off.
	Telemetry *telemetry.Telemetry

	// answerIdle replaces AnswerIdle in tests.
	answerIdle time.Duration
}

// AnswerIdle bounds the silence of a remote that owes an answer: no byte
// from it for this long (no answer, no progress, no keep-alive comment)
// while a request waits means it is gone (the machine died, the network
// drops everything: no FIN, no RST), and the request ends as lost. A
// remote mcp-bridge sends a keep-alive comment every 15 s while a call
// runs, so a live one is never cut off; three of them may be lost or late.
const AnswerIdle = 45 * time.Second

func (c *Config) setDefaults() {
	if c.MaxMessage <= 0 {
		c.MaxMessage = rpc.DefaultMaxMessage
	}
	if c.ProbeInterval <= 0 {
		c.ProbeInterval = time.Second
	}
	if c.MaxProbe <= 0 {
		c.MaxProbe = time.Minute
	}
	if c.ExitGrace <= 0 {
		c.ExitGrace = 30 * time.Second
	}
	if c.PingTimeout <= 0 {
		c.PingTimeout = 10 * time.Second
	}
	if c.ConfirmWith == nil {
		c.ConfirmWith = []string{policy.AskClient, policy.AskDesktop}
	}
	if c.ConfirmTimeout <= 0 {
		c.ConfirmTimeout = guard.DefaultConfirmTimeout
	}
	if c.answerIdle <= 0 {
		c.answerIdle = AnswerIdle
	}
}

// CheckURL refuses what cannot be an MCP endpoint, before anything starts.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http:// or https:// URL (e.g. https://workstation:8931/mcp)", raw)
	}
	if u.User != nil {
		return fmt.Errorf("%q carries a user name or password: give the token with --token-file or CAD_MCP_TOKEN instead", raw)
	}
	return nil
}

// Check refuses a configuration that cannot do what it says, before
// anything starts: CheckURL's refusals, and a certificate pin or CA with a
// plain http:// URL (there is no certificate to check: the pin would be
// ignored while the user believes the server is authenticated).
func (c *Config) Check() error {
	if err := CheckURL(c.URL); err != nil {
		return err
	}
	return CheckPinned(c.URL, c.Fingerprint != nil || c.RootCAs != nil)
}

// CheckPinned refuses a certificate pin or CA (pinned) with a plain
// http:// URL, which connect and install --url both take.
func CheckPinned(raw string, pinned bool) error {
	if u, err := url.Parse(raw); err == nil && u.Scheme == "http" && pinned {
		return fmt.Errorf("%q is plain http://, so no certificate is checked: --fingerprint and --ca need an https:// URL (start the remote bridge with --tls-self-signed or --tls-cert)", raw)
	}
	return nil
}

// errExit ends the relay's work at exit.
var errExit = errors.New("connect is exiting")

// Run relays the stdio client on stdin/stdout to the remote at cfg.URL
// until stdin ends (then the answers still owed get ExitGrace), ctx is
// done, or stdout fails. It ends the remote session with DELETE before it
// returns. The goroutine reading stdin ends when stdin does: the caller
// owns stdin.
func Run(ctx context.Context, cfg Config, stdin io.Reader, stdout io.Writer) error {
	cfg.setDefaults()
	if err := cfg.Check(); err != nil {
		return err
	}
	r := newRelay(cfg, stdout)
	writeFailed := make(chan error, 1)
	r.out.OnFail(func(err error) {
		select {
		case writeFailed <- err:
		default:
		}
	})
	readDone := make(chan error, 1)
	go func() { readDone <- r.readStdin(stdin) }()

	var result error
	select {
	case result = <-readDone:
		// Listen streams never end by themselves: the client that closed
		// stdin wants none; nobody is there to answer a question either.
		r.endListens()
		r.waitCalls(ctx, cfg.ExitGrace)
	case <-ctx.Done():
		r.log.Info().Msg("signal received: ending the remote session")
	case err := <-writeFailed:
		result = fmt.Errorf("writing to stdout: %w", err)
		r.log.Error().Err(err).Msg("stdout failed (the client went away): stopping")
	}
	r.shutdown()
	r.endSession()
	return result
}

// relay is one connect process's state.
type relay struct {
	cfg Config
	url string
	// remoteAddr is the URL's host:port, for the round trip's span.
	remoteAddr string
	hc         *http.Client
	out        *rpc.Writer
	log        zerolog.Logger

	// dialog is held by the desktop question on screen (ask): one dialog
	// at a time, the others wait their turn in the order they came.
	dialog chan struct{}

	// ctx ends every goroutine below; spawn refuses new ones once it is done.
	ctx      context.Context
	cancel   context.CancelCauseFunc
	spawnMu  sync.Mutex
	calls    sync.WaitGroup // one per message being sent or answered
	bg       sync.WaitGroup // the GET stream and the prober
	orderMu  sync.Mutex
	lastSent chan struct{} // closed once the previous message is on the wire

	sess sessionState

	pendingMu sync.Mutex
	pending   map[string]*pending // requests owed an answer, by id key

	down atomic.Bool // the last attempt could not reach the remote
	// noExpect: the remote, or a proxy in front of it, answered 417 to
	// "Expect: 100-continue"; calls go without it from then on.
	noExpect atomic.Bool

	// Confirmation asked here (ask.go): the handshake-era client's name,
	// the remote's serverInfo name, and whether connect asks for that
	// client.
	clientName atomic.Pointer[string]
	serverName atomic.Pointer[string]
	legacyOwn  atomic.Bool

	// tools are the x-mcp-header declarations of the last tool list
	// relayed (mirror.go); nil before one.
	toolsMu sync.Mutex
	tools   *httpheader.Table
}

// pending is a request owed an answer.
type pending struct {
	id        rpc.ID
	modern    bool
	listen    bool // a subscriptions/listen stream: ends only when cancelled
	ctx       context.Context
	cancel    context.CancelFunc
	cancelled atomic.Bool // the client cancelled it: nothing more is sent for it
	// asks ends the desktop questions about it: the client cancelled it,
	// stdin ended, or it ended (a child of ctx).
	asks     context.Context
	stopAsks context.CancelFunc
}

func newRelay(cfg Config, stdout io.Writer) *relay {
	hc := newHTTPClient(cfg)
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan struct{})
	close(done)
	return &relay{cfg: cfg, url: cfg.URL, remoteAddr: hostPort(cfg.URL), hc: hc, out: rpc.NewWriter(stdout), log: cfg.Log,
		ctx: ctx, cancel: cancel, lastSent: done, pending: map[string]*pending{}, dialog: make(chan struct{}, 1)}
}

// spawn runs fn on a goroutine counted in wg, unless the relay is
// stopping.
func (r *relay) spawn(wg *sync.WaitGroup, fn func()) bool {
	r.spawnMu.Lock()
	defer r.spawnMu.Unlock()
	if r.ctx.Err() != nil {
		return false
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		fn()
	}()
	return true
}

// shutdown stops every goroutine and waits for them.
func (r *relay) shutdown() {
	r.spawnMu.Lock()
	r.cancel(errExit)
	r.spawnMu.Unlock()
	r.calls.Wait()
	r.bg.Wait()
}

// waitCalls waits for the answers still owed, at most grace, or until ctx
// is done (a signal: what is in flight is abandoned, as it is when the
// signal comes before stdin ends).
func (r *relay) waitCalls(ctx context.Context, grace time.Duration) {
	done := make(chan struct{})
	go func() { r.calls.Wait(); close(done) }()
	t := time.NewTimer(grace)
	defer t.Stop()
	r.log.Debug().Msg("stdin ended: waiting for the answers still owed")
	select {
	case <-done:
	case <-t.C:
		r.log.Warn().Dur("grace", grace).Msg("answers still owed at exit were abandoned")
	case <-ctx.Done():
		r.log.Info().Msg("signal received while waiting for the answers still owed: abandoning them, ending the remote session")
	}
}

func (r *relay) write(m rpc.Encoded) { _ = r.out.Write(m) }

// readStdin reads the client's lines until EOF and hands each on.
func (r *relay) readStdin(stdin io.Reader) error {
	lr := rpc.NewLineReader(stdin, r.cfg.MaxMessage)
	for {
		line, err := lr.Next()
		var oe *rpc.OversizeError
		switch {
		case errors.As(err, &oe):
			r.write(rpc.EncodeError(rpc.ID{}, clienterr.ConnectTooLong.New(r.cfg.MaxMessage)))
			continue
		case err == io.EOF:
			return nil
		case err != nil:
			return fmt.Errorf("reading stdin: %w", err)
		}
		if r.ctx.Err() != nil {
			return nil
		}
		r.handle(line)
	}
}

// handle decides what one line is and sends it on in order.
func (r *relay) handle(line []byte) {
	msgs, isBatch := rpc.DecodeLine(line)
	if isBatch {
		r.handleBatch(line, msgs)
		return
	}
	d := msgs[0]
	if d.Err != nil {
		r.write(rpc.EncodeError(d.ID, d.Err))
		return
	}
	switch m := d.Msg.(type) {
	case *rpc.Request:
		// Read once, as the remote reads it (lifecycle.ReadRequest): the
		// era and version, the tool, what the client says of itself.
		req := lifecycle.ReadRequest(m.ID, m.Method, m.Params)
		o := &outgoing{body: line, req: req, method: m.Method, modern: req.Era == lifecycle.Modern, ids: []rpc.ID{m.ID}}
		o.op = r.startOp(req)
		if !o.modern && m.Method == "initialize" {
			o.body = r.legacyInitialize(req, line)
			r.sess.recordInitialize(o.body)
		}
		if o.modern && m.Method == "tools/call" {
			o.body, o.own = r.modernCall(req, line)
		}
		if !o.modern && m.Method == "ping" && r.down.Load() {
			// The remote is away: the client must not drop the server.
			o.op.End(telemetry.Result{}) // before the answer: counted once the client has it
			r.write(rpc.EncodeResult(m.ID, []byte("{}")))
			return
		}
		p, ok := r.track(m.ID, o.modern)
		if ok && o.modern && m.Method == "subscriptions/listen" {
			p.listen = true
		}
		if !ok {
			e := clienterr.IDInUse.New(m.ID)
			o.op.End(failure(e))
			r.write(rpc.EncodeError(m.ID, e))
			return
		}
		o.pending = []*pending{p}
		r.sendOrdered(func(sent func()) { r.request(o, sent) }, p.ctx)
	case *rpc.Notification:
		req := lifecycle.ReadRequest(rpc.ID{}, m.Method, m.Params)
		o := &outgoing{body: line, req: req, method: m.Method, modern: req.Era == lifecycle.Modern}
		if m.Method == "notifications/cancelled" {
			if id := req.Cancels; !id.IsZero() {
				if p := r.lookup(id); p != nil {
					p.cancelled.Store(true)
					p.stopAsks() // a dialog about it closes at once
					if p.modern {
						// The stateless transport cancels by closing the
						// response: the remote drops or stops the request.
						p.cancel()
						return
					}
				}
			}
		}
		if !o.modern && m.Method == "notifications/initialized" {
			r.sess.recordInitialized(line)
		}
		r.sendOrdered(func(sent func()) { r.notify(o, sent) }, r.ctx)
	case *rpc.Response:
		// The client's answer to the remote's question (elicitation).
		o := &outgoing{body: line}
		r.sendOrdered(func(sent func()) { r.notify(o, sent) }, r.ctx)
	}
}

// handleBatch sends a JSON-RPC batch (2025-03-26 sessions) as one POST.
func (r *relay) handleBatch(line []byte, msgs []rpc.Decoded) {
	o := &outgoing{body: line, batch: true}
	for _, d := range msgs {
		if req, ok := d.Msg.(*rpc.Request); ok {
			p, ok := r.track(req.ID, false)
			if !ok {
				r.untrack(o.pending)
				r.write(rpc.EncodeError(rpc.ID{}, clienterr.IDInUse.New(req.ID)))
				return
			}
			o.ids = append(o.ids, req.ID)
			o.pending = append(o.pending, p)
		}
	}
	r.sendOrdered(func(sent func()) { r.request(o, sent) }, r.ctx)
}

// sendOrdered runs send on a goroutine of its own once the message before
// it is on the wire (send calls sent when its own is), so that the remote
// receives messages in the order the client wrote them while answers come
// back as they are ready.
func (r *relay) sendOrdered(send func(sent func()), ctx context.Context) {
	r.orderMu.Lock()
	prev := r.lastSent
	mine := make(chan struct{})
	r.lastSent = mine
	r.orderMu.Unlock()
	var once sync.Once
	sent := func() { once.Do(func() { close(mine) }) }
	if !r.spawn(&r.calls, func() {
		defer sent()
		select {
		case <-prev:
		case <-ctx.Done():
		}
		send(sent)
	}) {
		sent()
	}
}

// track registers a request owed an answer; false when its id is in use.
func (r *relay) track(id rpc.ID, modern bool) (*pending, bool) {
	r.pendingMu.Lock()
	defer r.pendingMu.Unlock()
	if _, busy := r.pending[id.Key()]; busy {
		return nil, false
	}
	ctx, cancel := context.WithCancel(r.ctx)
	p := &pending{id: id, modern: modern, ctx: ctx, cancel: cancel}
	p.asks, p.stopAsks = context.WithCancel(ctx)
	r.pending[id.Key()] = p
	return p, true
}

// endListens cancels the open listen streams, and closes the desktop
// questions, at the end of stdin.
func (r *relay) endListens() {
	r.pendingMu.Lock()
	defer r.pendingMu.Unlock()
	for _, p := range r.pending {
		if p.listen {
			p.cancelled.Store(true)
			p.cancel()
		}
		p.stopAsks()
	}
}

func (r *relay) lookup(id rpc.ID) *pending {
	r.pendingMu.Lock()
	defer r.pendingMu.Unlock()
	return r.pending[id.Key()]
}

// release frees p's id just before its answer is written: a client may
// use the id again as soon as it reads the answer (the local bridge
// allows it), before the goroutine that wrote it has untracked it.
func (r *relay) release(p *pending) {
	r.pendingMu.Lock()
	defer r.pendingMu.Unlock()
	if r.pending[p.id.Key()] == p {
		delete(r.pending, p.id.Key())
	}
}

func (r *relay) untrack(ps []*pending) {
	for _, p := range ps {
		r.release(p)
		p.cancel()
	}
}
