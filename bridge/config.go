package bridge

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/clientfit"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/health"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Base is the CAD base as the bridge sees it: one request frame in, one
// answer out. *tcpbase.Client implements it; tests may use fakes.
type Base interface {
	Call(ctx context.Context, frame []byte) ([]byte, error)
}

// Config configures Run. Zero durations and sizes take the defaults below.
type Config struct {
	Base     Base
	BaseAddr string // for messages: "CAD base at <addr> …"

	ListTimeout     time.Duration // tools/list, default DefaultListTimeout
	CallTimeout     time.Duration // tools/call, default DefaultCallTimeout
	ShutdownTimeout time.Duration // after stdin EOF, to finish accepted requests; default 30 s
	Grace           time.Duration // after a signal, for the in-flight request; default 2 s
	RetryBackoff    time.Duration // first wait before re-dialling a base that refused; default 100 ms
	Retries         int           // re-dials when no connection could be made; default 2, -1 for none

	Queue      int // requests waiting for the worker; default DefaultQueue
	MaxMessage int // bytes per input line; default 16 MiB

	// CacheDir keeps the last good tool list per base address; "" for none.
	CacheDir string
	// ProbeInterval is the first wait before probing a base that went down
	// (doubling up to a minute); 0 for no probing, as --probe-interval 0
	// (whose default is DefaultProbeInterval).
	ProbeInterval time.Duration
	// ProgressInterval spaces notifications/progress heartbeats for calls
	// that carry a progressToken; 0 for none, as --progress-interval 0
	// (whose default is DefaultProgressInterval).
	ProgressInterval time.Duration

	// Launch, when set, starts the CAD program when a call finds its base
	// down (launch.go); nil: such calls fail at once.
	Launch Launcher

	// Fit is the user's settings over the table of clients' limits
	// (--answer-within, --max-result-bytes: bridge/clientfit); its zero
	// value leaves each client the table's. A call still running when its
	// client's answer is due becomes a job (jobs.go); a result larger than
	// the client takes is fitted (fit.go).
	Fit clientfit.Config

	// NoSchemaRepair turns off the "type": "object" repair of tool schemas.
	NoSchemaRepair bool

	// Policy is the user's rules for the tools (nil: none, every tool as
	// the base describes it).
	Policy *policy.Policy
	// ConfirmTimeout is how long a confirmation question waits for the
	// user; default guard.DefaultConfirmTimeout.
	ConfirmTimeout time.Duration
	// ConfirmWith is who asks, in order: AskClient (the client shows an
	// elicitation), AskDesktop (a dialog on this machine's desktop). The
	// first that can ask a given call's user does; default both, client
	// first.
	ConfirmWith []string
	// Desktop shows questions on this machine's desktop; nil when it has
	// none, and DesktopWhyNot says why (and what would make it work).
	Desktop       desktop.Asker
	DesktopWhyNot string
	// Name is the bridge's --name, shown in desktop questions.
	Name string
	// Journal, when set, gets one line per tool request; JournalArgs adds
	// the call arguments to it.
	Journal     *journal.Writer
	JournalArgs bool
	// JournalRequired: while the journal cannot be written, tools/call is
	// refused and nothing is sent to CAD.
	JournalRequired bool

	// Telemetry gets each request's span and metrics (bridge/telemetry);
	// nil is telemetry off, and costs nothing.
	Telemetry *telemetry.Telemetry
	// Health is what the bridge last saw of the base (up, down and why),
	// for /healthz and the status page; the core makes one when nil.
	Health *health.State

	Server *lifecycle.Server
	Log    zerolog.Logger
}

func (c *Config) setDefaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.ListTimeout, DefaultListTimeout)
	def(&c.CallTimeout, DefaultCallTimeout)
	def(&c.ShutdownTimeout, 30*time.Second)
	def(&c.Grace, 2*time.Second)
	def(&c.RetryBackoff, 100*time.Millisecond)
	def(&c.ConfirmTimeout, guard.DefaultConfirmTimeout)
	if c.ConfirmWith == nil {
		c.ConfirmWith = []string{AskClient, AskDesktop}
	}
	switch {
	case c.Retries == 0:
		c.Retries = 2
	case c.Retries < 0:
		c.Retries = 0
	}
	if c.Queue <= 0 {
		c.Queue = DefaultQueue
	}
	if c.MaxMessage <= 0 {
		c.MaxMessage = rpc.DefaultMaxMessage
	}
	if c.Health == nil {
		c.Health = health.New()
	}
	if c.Server == nil {
		c.Server = lifecycle.NewServer("mcp-bridge", "dev", "", false)
	}
}
