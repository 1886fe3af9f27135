// Package streamable is the bridge's Streamable HTTP front end: /mcp in both
// eras (handshake-era sessions with their GET streams, and the stateless
// 2026-07-28 requests) and /healthz, in front of the core (package bridge),
// which it drives through bridge.Core. Serve starts the core, serves until
// its context ends, and stops both.
//
// The core never writes to a client's connection: each response has its
// own writer (out.go) to which the core hands messages, and the handler's
// goroutine writes them, so that a slow reader delays only itself.
//
// Files by role:
//   - serve.go: Serve and Config, start-up, shutdown, the janitor, /healthz,
//     a session's end.
//   - handler.go: /mcp requests in both eras: decoded once by the core, the
//     transport's rules checked, dispatched; wait, the response's writer.
//   - out.go: httpOut, a response as the core's Stream (JSON body or SSE).
//   - session.go, streams.go: the session and stream tables, with their
//     limits and per-address shares.
//   - guard.go: Origin, Host and bearer token checks, and the header readers.
//   - proxy.go: X-Forwarded-For from the proxies the user trusts.
package streamable
