package streamable

import (
	"context"
	"errors"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/configs/setting"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Config configures Serve, the Streamable HTTP front end; the core has its
// own (bridge.Config). Zero values take the defaults below.
type Config struct {
	// AllowOrigins are Origin values allowed besides loopback ones
	// (http://localhost:*, http://127.0.0.1:*); "*" allows any.
	AllowOrigins []string
	// Token, when not empty, is the bearer token every request must carry.
	Token string
	// Hosts are names besides the listen address and loopback that the
	// Host header may carry: the names of the TLS certificate.
	Hosts []string
	// TrustProxy are the reverse proxies whose X-Forwarded-For names the
	// client (proxy.go); from other peers the header is ignored.
	TrustProxy []*net.IPNet

	SessionIdle       time.Duration // a legacy session without traffic ends; default DefaultSessionIdle
	UnusedIdle        time.Duration // a legacy session never used after initialize ends; default 10 s
	MaxSessions       int           // open legacy sessions (one remote address: half); default DefaultMaxSessions
	MaxStreams        int           // open GET and subscriptions/listen streams (one remote address: half); default DefaultMaxStreams
	KeepAlive         time.Duration // SSE comment on quiet streams; default 15 s
	ReadHeaderTimeout time.Duration // default 10 s
	ReadTimeout       time.Duration // the whole request body; default 60 s
	WriteTimeout      time.Duration // each write of a response; default 60 s
	IdleTimeout       time.Duration // keep-alive connections; default 120 s

	// Version and Started feed /healthz and the status page.
	Version string
	Started time.Time
	// Serving is how clients reach /mcp (its URL), for the status page;
	// default http://<listen address>/mcp.
	Serving string
	// Metrics, when not nil, is served at /metrics behind the checks /mcp
	// has (telemetry.MetricsHandler); nil when metrics are off or
	// --metrics-listen serves them alone.
	Metrics http.Handler

	// What ListenAndServe reads (flags.go); Serve, given its listener and
	// token, does not.
	Listen      string        // --listen: the address served
	TokenFrom   setting.Token // where Token comes from (ReadToken)
	AllowRemote bool          // serve an address other machines reach without a token
	TLS         TLS           // its zero value serves http://
	origin      setting.Origin
}

func (h *Config) setDefaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&h.SessionIdle, DefaultSessionIdle)
	def(&h.UnusedIdle, 10*time.Second)
	def(&h.KeepAlive, 15*time.Second)
	def(&h.ReadHeaderTimeout, 10*time.Second)
	def(&h.ReadTimeout, time.Minute)
	def(&h.WriteTimeout, time.Minute)
	def(&h.IdleTimeout, 2*time.Minute)
	if h.MaxSessions <= 0 {
		h.MaxSessions = DefaultMaxSessions
	}
	if h.MaxStreams <= 0 {
		h.MaxStreams = DefaultMaxStreams
	}
	if h.Started.IsZero() {
		h.Started = time.Now()
	}
}

// httpFront is the Streamable HTTP front end: it serves /mcp in both eras
// and /healthz, and feeds the one worker through the shared scheduler.
type httpFront struct {
	core  *bridge.Core
	cfg   bridge.Config // the core's, its defaults set
	log   zerolog.Logger
	hc    Config
	guard guard

	sessions *sessions
	streams  *streamTable // open long-lived streams

	modernMu sync.Mutex
	modern   map[string]*modernGroup // by httpClientKey

	stopping chan struct{} // closed when shutdown starts: streams end
}

// modernGroup is the stateless clients the front end takes for one
// program (httpClientKey): one turn in the worker's rotation, kept while
// a request of theirs is in progress.
type modernGroup struct {
	key  string
	turn *bridge.Turn
	busy int
}

// Serve serves MCP Streamable HTTP on ln until ctx is done, then shuts
// down: it stops accepting, lets the call in flight finish within Grace,
// answers the queued ones with the shutdown error unsent, ends the streams,
// and returns nil. It returns an error only when the listener fails.
func Serve(ctx context.Context, cfg bridge.Config, hc Config, ln net.Listener) error {
	hc.setDefaults()
	core := bridge.Start(cfg, "http")
	f := &httpFront{
		core:     core,
		cfg:      core.Config(),
		log:      core.Config().Log,
		hc:       hc,
		sessions: newSessions(hc.MaxSessions, hc.SessionIdle, hc.UnusedIdle),
		streams:  newStreamTable(hc.MaxStreams),
		modern:   map[string]*modernGroup{},
		stopping: make(chan struct{}),
	}
	f.guard = newGuard(ln.Addr().String(), hc.Hosts, hc.AllowOrigins, hc.Token)
	janitorDone := make(chan struct{})
	janitorCtx, stopJanitor := context.WithCancel(context.Background())
	go f.runJanitor(janitorCtx, janitorDone)
	defer func() { stopJanitor(); <-janitorDone }()

	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", f.serveMCP)
	serving := hc.Serving
	if serving == "" {
		serving = "http://" + ln.Addr().String() + "/mcp"
	}
	f.mountPages(mux, serving)
	srv := &http.Server{
		Handler:           trustedProxies(hc.TrustProxy, mux),
		ReadHeaderTimeout: hc.ReadHeaderTimeout,
		ReadTimeout:       hc.ReadTimeout,
		WriteTimeout:      hc.WriteTimeout,
		IdleTimeout:       hc.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          log.New(serverLog{f.log}, "", 0),
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()

	var result error
	select {
	case <-ctx.Done():
		f.log.Info().Msg("signal received: finishing the request in flight, dropping the queue")
	case err := <-serveErr:
		if !errors.Is(err, http.ErrServerClosed) {
			result = err
			f.log.Error().Err(err).Msg("HTTP listener failed: stopping")
		}
	}
	// Stop accepting; the handlers still running get their answers from
	// the core's stop, then the streams and sessions end.
	shutDone := make(chan struct{})
	shutCtx, cancelShut := context.WithTimeout(context.Background(), f.cfg.Grace+5*time.Second)
	defer cancelShut()
	go func() {
		defer close(shutDone)
		_ = srv.Shutdown(shutCtx)
	}()
	core.Stop()
	close(f.stopping)
	for _, s := range f.sessions.all() {
		f.endSession(s, "the bridge stopped")
	}
	<-shutDone
	_ = srv.Close()
	return result
}

// serverLog takes what net/http reports itself into the bridge's log (its
// format, its file), not Go's standard logger on stderr. A failed TLS
// handshake (a scanner, plain http://, a client that refused the
// certificate) is logged at debug level: anyone who reaches the port can
// cause one. Anything else (a handler's panic, accept failures) is a
// warning.
type serverLog struct{ log zerolog.Logger }

func (s serverLog) Write(p []byte) (int, error) {
	msg := strings.TrimSpace(string(p))
	ev := s.log.Warn()
	if strings.Contains(msg, "TLS handshake error") {
		ev = s.log.Debug()
	}
	ev.Str("from", "net/http").Msg(msg)
	return len(p), nil
}

// runJanitor ends idle sessions.
func (f *httpFront) runJanitor(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	every := min(f.hc.SessionIdle/4, f.hc.UnusedIdle/4, time.Minute)
	t := time.NewTicker(max(every, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			for _, s := range f.sessions.takeExpired(now) {
				f.endSession(s, "idle timeout")
			}
		}
	}
}

// sessionEndKind is why a session ended, as telemetry's error.type
// names it: "" for a client's DELETE.
func sessionEndKind(why string) string {
	switch {
	case why == "DELETE":
		return ""
	case why == "the bridge stopped":
		return "shutdown"
	}
	return "session_ended" // idle timeout, eviction
}

// refuse answers with an HTTP error status and a JSON-RPC error without id
// (legacy codes only: a refusal says nothing about the era).
func (f *httpFront) refuse(w http.ResponseWriter, status int, msg string) {
	f.errorStatus(w, status, rpc.ID{}, clienterr.HTTPRefused.New(msg))
}

// errorStatus answers with an HTTP status and one JSON-RPC error.
func (f *httpFront) errorStatus(w http.ResponseWriter, status int, id rpc.ID, e *rpc.WireError) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="mcp-bridge"`)
	}
	w.WriteHeader(status)
	_ = rpc.NewWriter(w).Write(rpc.EncodeError(id, e))
}

// endSession is the one way a legacy session ends, whatever the reason
// (DELETE, the idle timeout, eviction, shutdown), once, whoever took it
// out of the table (eviction does, in sessions.open, to make room in the
// same step): it leaves the table and the core's clients, its POSTs
// waiting for answers and its GET stream end, what it has queued is
// dropped unsent, what runs is stopped (but for calls answered with a job:
// they go on, bridge/jobs.go), a question still out is withdrawn
// (its call refused as cancelled), and telemetry counts it closed. It
// reports whether this call ended it.
func (f *httpFront) endSession(s *session, why string) bool {
	f.sessions.remove(s) // already out when evicted
	first := false
	s.endOnce.Do(func() { first = true })
	if !first {
		return false
	}
	f.core.RemoveClient(s.client)
	// Its requests first, then its POSTs and stream: a question whose
	// stream closes is withdrawn, which lets the worker take the calls
	// behind it, and those must be cancelled by then.
	s.client.End()
	close(s.ended)
	s.tel.End(sessionEndKind(why))
	f.log.Debug().Str("session", s.id).Str("why", why).Msg("session ended")
	return true
}

// isModernVersion: a version string of the stateless era (2026-07-28 and
// later; versions are dates, so they order as strings).
func isModernVersion(v string) bool {
	return len(v) == len("2006-01-02") && v >= lifecycle.ModernVersions[0]
}
