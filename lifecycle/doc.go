// Package lifecycle is the MCP protocol the bridge speaks itself: the
// method table (methods.go: which method exists in which era, who answers
// it, how its params are read), the request decoder (request.go: each
// message's params read once, by exact keys, into the Request every other
// part of the bridge reads), protocol versions and the two eras (the
// handshake era, 2024-11-05 to 2025-11-25, and the stateless 2026-07-28),
// initialize, ping and server/discover answers, the per-request _meta
// checks of the modern era, and the decoration of results that come back
// from the CAD base (tool schemas are toolschema's concern).
//
// Everything here is a pure function of its input, so the bridge can call it
// from the reader and the worker alike.
package lifecycle
