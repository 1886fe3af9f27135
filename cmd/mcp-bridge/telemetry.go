package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/streamable"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/health"
	"github.com/mcp-bridge/mcp-bridge/configs/loopback"
)

// The telemetry settings (bridge/telemetry's flags): each flag mirrors a
// standard OTEL_* variable and is read from it, not from CAD_MCP_<NAME>.

// telemetryFlagNames are the flags telemetry.AddFlags registers: settings
// whose variables are the standard OTEL_* ones (telemetry.ConfigFrom).
var telemetryFlagNames = func() map[string]bool {
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	telemetry.AddFlags(fs)
	names := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
	return names
}()

// checkTelemetry reads and checks the telemetry settings after parsing.
// listen is --listen ("" for a stdio bridge or connect).
func checkTelemetry(fs *pflag.FlagSet, getenv func(string) string, listen string) (telemetry.Config, error) {
	cfg, err := telemetry.ConfigFrom(fs, getenv)
	if err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	if cfg.Metrics && listen == "" && cfg.MetricsListen == "" {
		return cfg, errors.New("--metrics serves /metrics on --listen: a stdio bridge serves it with --metrics-listen ADDR (e.g. 127.0.0.1:9464)")
	}
	return cfg, nil
}

// metricsRemoteErr is the refusal of a --metrics-listen that other
// machines reach without a token.
// connect has no token of its own to guard it with, nor --allow-remote.
func metricsRemoteErr(addr string, connect bool) error {
	what := fmt.Sprintf("--metrics-listen %s is reachable from other machines, and /metrics there shows the names of CAD's tools, how often each was called, how each failed, and whether CAD is up: ", addr)
	if connect {
		return errors.New(what + "connect serves it on loopback only (e.g. 127.0.0.1:9464); scrape it from this machine")
	}
	return errors.New(what + "bind it to loopback, set a token (--token-file or CAD_MCP_TOKEN; the scraper sends it as a bearer token), or pass --allow-remote to serve it without one")
}

// startTelemetry makes the bridge's telemetry from cfg (nil when off) and,
// with --metrics-listen, serves /metrics there until the returned stop is
// called; stop then flushes what the exporters hold (bounded). token, when
// not "", guards /metrics there as it guards /mcp.
func startTelemetry(cfg telemetry.Config, st *health.State, baseAddr, token string, allowRemote bool, log zerolog.Logger) (*telemetry.Telemetry, func(), error) {
	tel, err := telemetry.New(cfg, telemetry.Options{Version: version, BaseAddr: baseAddr, Health: st, Log: log})
	if err != nil {
		return nil, nil, err
	}
	var served chan struct{}
	ctx, cancel := context.WithCancel(context.Background())
	if cfg.MetricsListen != "" && tel != nil {
		if !loopback.Addr(cfg.MetricsListen) && token == "" && !allowRemote {
			_ = tel.Shutdown(context.Background())
			cancel()
			return nil, nil, usageError{metricsRemoteErr(cfg.MetricsListen, false)}
		}
		ln, err := net.Listen("tcp", cfg.MetricsListen)
		if err != nil {
			_ = tel.Shutdown(context.Background())
			cancel()
			return nil, nil, fmt.Errorf("--metrics-listen: %w", err)
		}
		h := streamable.Guarded(ln.Addr().String(), token, tel.MetricsHandler())
		log.Info().Str("url", "http://"+ln.Addr().String()+"/metrics").Bool("token", token != "").Msg("serving metrics")
		served = make(chan struct{})
		go func() {
			defer close(served)
			if err := telemetry.ServeMetrics(ctx, ln, h, log); err != nil {
				log.Error().Err(err).Msg("--metrics-listen failed")
			}
		}()
	}
	stop := func() {
		cancel()
		if served != nil {
			<-served
		}
		flushCtx, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		if err := tel.Shutdown(flushCtx); err != nil {
			log.Warn().Err(err).Msg("telemetry: flushing at exit failed")
		}
	}
	return tel, stop, nil
}

// metricsOnListen is /metrics on --listen: when metrics are on and
// --metrics-listen does not serve them alone.
func metricsOnListen(f *bridgeFlags, cfg bridge.Config) http.Handler {
	if f.tel.MetricsListen != "" {
		return nil
	}
	return cfg.Telemetry.MetricsHandler()
}
