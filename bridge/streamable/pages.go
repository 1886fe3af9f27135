package streamable

import (
	"net/http"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/health"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/status"
)

// The pages besides /mcp: /healthz (the base's state: 200 up or not yet
// known, 503 with the reason while CAD cannot be reached), /livez (the
// process alone), /metrics (Prometheus text, when metrics are on and
// --metrics-listen does not serve them elsewhere) and / (the status page
// for a person). Each passes the guard /mcp has (Origin, Host, token)
// before anything is read.

// guarded serves h behind the guard.
func (f *httpFront) guarded(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if code, msg := f.guard.check(r); code != 0 {
			f.log.Warn().Int("status", code).Str("path", r.URL.Path).Str("remote", r.RemoteAddr).Str("host", r.Host).Msg("HTTP request refused")
			f.refuse(w, code, msg)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// mountPages adds the pages to mux.
func (f *httpFront) mountPages(mux *http.ServeMux, serving string) {
	mux.Handle("/healthz", f.guarded(health.Healthz(f.core.BaseHealth(), f.healthDetails)))
	mux.Handle("/livez", f.guarded(health.Livez()))
	if f.hc.Metrics != nil {
		mux.Handle("/metrics", f.guarded(f.hc.Metrics))
	}
	page := &status.Page{Snapshot: func() status.Snapshot {
		s := f.core.Status()
		s.Version, s.Started, s.Serving = f.hc.Version, f.hc.Started, serving
		s.Sessions, s.Streams = f.sessions.count(), f.streams.count()
		return s
	}}
	mux.Handle("/", f.guarded(page))
}

// healthDetails are the front end's and the core's figures in /healthz.
func (f *httpFront) healthDetails() map[string]any {
	core := f.core.Health()
	return map[string]any{
		"version":  f.hc.Version,
		"uptime_s": int(time.Since(f.hc.Started).Seconds()),
		"queue":    core.Queued,
		"sessions": f.sessions.count(),
		"streams":  f.streams.count(),
		// clients: stdio, each legacy session and each stateless request
		// being served.
		"clients": core.Clients,
		// statelessClients: the stateless programs with requests in
		// progress (each a turn in the worker's rotation).
		"statelessClients": f.modernCount(),
	}
}

// describe tells the core (for telemetry and the status page) how client
// c reached it.
func describe(c *bridge.Client, r *http.Request, session string) {
	c.Describe(bridge.Describe{Transport: telemetry.TransportTCP, SessionID: session, HTTPVersion: httpVersion(r), Addr: r.RemoteAddr})
}

// httpVersion is r's HTTP version as network.protocol.version writes it,
// without allocating: it is worked out for every stateless request.
func httpVersion(r *http.Request) string {
	switch {
	case r.ProtoMajor == 1 && r.ProtoMinor == 1:
		return "1.1"
	case r.ProtoMajor == 1 && r.ProtoMinor == 0:
		return "1.0"
	case r.ProtoMajor == 2:
		return "2"
	case r.ProtoMajor == 3:
		return "3"
	}
	return ""
}
