package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/mcp-bridge/mcp-bridge/configs/loopback"
)

// Guard is how /metrics on --metrics-listen is served: behind the checks
// /mcp has (Wrap: the HTTP front end's Host, Origin and token checks;
// loopback is not private from a browser, whose pages reach it by DNS
// rebinding or a cross-site request), and only on loopback unless a
// token guards it or AllowRemote.
type Guard struct {
	Token       string // the bearer token /metrics requires; "" for none
	AllowRemote bool   // --allow-remote: serve other machines without a token
	// NoToken: the program has no token of its own to guard /metrics
	// with, nor --allow-remote (connect): loopback only.
	NoToken bool
	Wrap    func(listenAddr, token string, h http.Handler) http.Handler
}

// Start makes the telemetry cfg asks for (New; nil when off) and, with
// --metrics-listen, serves /metrics there behind g until the returned
// stop is called; stop then flushes what the exporters hold, for at most
// 5 s.
func Start(cfg Config, opt Options, g Guard) (*Telemetry, func(), error) {
	if addr := cfg.MetricsListen; addr != "" && !loopback.Addr(addr) && (g.NoToken || g.Token == "" && !g.AllowRemote) {
		return nil, nil, remoteErr(addr, g.NoToken)
	}
	tel, err := New(cfg, opt)
	if err != nil {
		return nil, nil, err
	}
	log := opt.Log
	var served chan struct{}
	ctx, cancel := context.WithCancel(context.Background())
	if cfg.MetricsListen != "" && tel != nil {
		ln, err := net.Listen("tcp", cfg.MetricsListen)
		if err != nil {
			_ = tel.Shutdown(context.Background())
			cancel()
			return nil, nil, fmt.Errorf("--metrics-listen: %w", err)
		}
		h := tel.MetricsHandler()
		if g.Wrap != nil {
			h = g.Wrap(ln.Addr().String(), g.Token, h)
		}
		log.Info().Str("url", "http://"+ln.Addr().String()+"/metrics").Bool("token", g.Token != "").Msg("serving metrics")
		served = make(chan struct{})
		go func() {
			defer close(served)
			if err := ServeMetrics(ctx, ln, h, log); err != nil {
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

// remoteErr is the refusal of a --metrics-listen that other machines
// reach without a token.
func remoteErr(addr string, noToken bool) error {
	what := fmt.Sprintf("--metrics-listen %s is reachable from other machines, and /metrics there shows the names of CAD's tools, how often each was called, how each failed, and whether CAD is up: ", addr)
	if noToken {
		return errors.New(what + "connect serves it on loopback only (e.g. 127.0.0.1:9464); scrape it from this machine")
	}
	return errors.New(what + "bind it to loopback, set a token (--token-file or CAD_MCP_TOKEN; the scraper sends it as a bearer token), or pass --allow-remote to serve it without one")
}
