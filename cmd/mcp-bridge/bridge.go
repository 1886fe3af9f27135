package main

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/streamable"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/health"
	"github.com/mcp-bridge/mcp-bridge/configs/suggest"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
)

// runBridge is the bridge itself: over stdio, or Streamable HTTP with
// --listen.
func runBridge(ctx context.Context, e *env, args []string) error {
	f := newBridgeFlags(e.stderr)
	f.fs.Usage = func() { fmt.Fprint(e.stdout, rootHelp(f.fs)) }
	if err := f.parse(args, e.getenv); err != nil {
		if err == pflag.ErrHelp {
			return nil
		}
		return usageError{err}
	}
	switch {
	case f.fs.NArg() > 0:
		return usageError{fmt.Errorf("unknown command %q%s (see mcp-bridge help)", f.fs.Arg(0), suggest.DidYouMean(f.fs.Arg(0), commands))}
	case f.version:
		printVersion(e.stdout)
		return nil
	case f.printConfig:
		return printConfig(e, f)
	}
	log, closeLog, err := f.log.newLogger(e.stdout, e.stderr)
	if err != nil {
		return usageError{err}
	}
	defer closeLog()
	tuneRuntime(e.getenv, f.core.MaxMessage)
	cfg, stop, err := f.bridgeConfig(e, log)
	if err != nil {
		return usageError{err}
	}
	defer stop()
	go stopSignalsWhenDone(ctx, e)
	if f.http.Listen != "" {
		f.http.Version = version
		if f.tel.MetricsListen == "" {
			f.http.Metrics = cfg.Telemetry.MetricsHandler() // /metrics on --listen
		}
		err = streamable.ListenAndServe(ctx, cfg, f.http)
	} else {
		err = serveStdio(ctx, e, cfg)
	}
	log.Info().Msg("mcp-bridge stopped")
	return err
}

func serveStdio(ctx context.Context, e *env, cfg bridge.Config) error {
	if e.console {
		// A person started the bridge in a terminal: it would wait there
		// in silence for messages nobody types.
		fmt.Fprint(e.stderr, stdinNote(runtime.GOOS, e.argv0))
	}
	cfg.Log.Info().Str("base", cfg.BaseAddr).Str("version", version).Msg("mcp-bridge serving on stdio")
	return bridge.ServeStdio(ctx, cfg, e.stdin, e.stdout)
}

// tuneRuntime fits the Go runtime to the bridge. It holds at most about
// two copies of one message (an answer being read, and its joined form),
// so a soft memory limit a little above that keeps the garbage collector
// from letting a 15 MiB answer double the heap. Its work is sequential
// (one reader, one worker, microseconds of CPU per message); what costs is
// threads waking each other across CPUs: one P cut the bridged/direct
// latency ratio from about 1.8 to 1.5 and raised pipelined throughput
// from 0.75 to 0.9 of direct on the 2-core development machine (README,
// Performance). GOMEMLIMIT and GOMAXPROCS, when set, win.
func tuneRuntime(getenv func(string) string, maxMessage int) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(int64(2*maxMessage) + 16<<20)
	}
	if getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}

// stopSignalsWhenDone: once shutdown starts, a second signal kills the
// process at once.
func stopSignalsWhenDone(ctx context.Context, e *env) {
	<-ctx.Done()
	if e.stopSignals != nil {
		e.stopSignals()
	}
}

const instructions = "Tools of the CAD program that is open on this machine. Calls act on the open drawing and may change it; they run one at a time, in order."

// bridgeConfig wires the domains' settings into the core's Config: the
// base, telemetry, the launcher, the user's rules. stop ends what it
// started (the metrics server, the journal).
func (f *bridgeFlags) bridgeConfig(e *env, log zerolog.Logger) (bridge.Config, func(), error) {
	cfg := f.core
	cfg.Fit = f.fit
	addr := f.base.Addr()
	if !f.base.OnThisMachine() {
		log.Warn().Str("base", addr).Msg("the CAD base is not on this machine: its protocol has no authentication or encryption")
	}
	cfg.Base, cfg.BaseAddr = f.base.Client(cfg.MaxMessage), addr
	cfg.Server = lifecycle.NewServer("mcp-bridge", version, instructions, true)
	cfg.Name, cfg.Log, cfg.Health = f.name, log, health.New()
	g := telemetry.Guard{AllowRemote: f.http.AllowRemote, Wrap: streamable.Guarded}
	if f.tel.MetricsListen != "" {
		var err error
		if g.Token, _, err = f.http.ReadToken(log); err != nil {
			return cfg, nil, err
		}
	}
	tel, stopTel, err := telemetry.Start(f.tel, telemetry.Options{Version: version, BaseAddr: addr, Health: cfg.Health, Log: log}, g)
	if err != nil {
		return cfg, nil, err
	}
	cfg.Telemetry = tel
	// The launcher's lock and the program's output go beside the tool
	// cache (its folder, even with --no-cache: they are no cache).
	if l := f.launch.Launcher(addr, bridge.CacheFolder(f.fs), cfg.ProgressInterval, log); l != nil {
		cfg.Launch = l
		log.Info().Str("launch", l.Command().String()).Str("output", l.LogPath()).Msg("when a call finds the CAD base down, the CAD program is started")
	}
	closeJournal, err := f.rulesInto(&cfg, e.getenv)
	if err != nil {
		stopTel()
		return cfg, nil, err
	}
	return cfg, func() { closeJournal(); stopTel() }, nil
}

// rulesInto sets the user's rules in cfg: the policy, who asks for
// confirmation and the dialog on this desktop, the journal (the returned
// function closes it).
func (f *bridgeFlags) rulesInto(cfg *bridge.Config, getenv func(string) string) (func(), error) {
	log := cfg.Log
	p, err := f.rules.LoadPolicy()
	if err != nil {
		return nil, err
	}
	cfg.Policy, cfg.ConfirmTimeout, cfg.ConfirmWith = p, f.rules.ConfirmTimeout, f.rules.Askers(p)
	if p.AsksAny() && slices.Contains(cfg.ConfirmWith, policy.AskDesktop) {
		cfg.Desktop, cfg.DesktopWhyNot = findDesktop(getenv)
		if cfg.Desktop != nil {
			log.Info().Str("dialog", cfg.Desktop.Name()).Msg("confirmation questions that a client cannot ask are shown on this desktop")
		} else {
			log.Info().Str("why", cfg.DesktopWhyNot).Msg("no desktop dialog: confirmation that a client cannot ask is refused")
		}
	}
	if p != nil {
		log.Info().Str("policy", p.Summary()).Msg("tool policy in force")
	}
	w, err := f.rules.OpenJournal(log)
	if err != nil || w == nil {
		return func() {}, err
	}
	cfg.Journal, cfg.JournalArgs, cfg.JournalRequired = w, f.rules.JournalArgs, f.rules.JournalRequired
	return func() { w.Close() }, nil
}

// findDesktop is the dialog program of this machine's desktop (a variable
// so that tests can give another).
var findDesktop = func(getenv func(string) string) (desktop.Asker, string) {
	return desktop.Find(getenv, exec.LookPath)
}
