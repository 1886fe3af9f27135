// Package simbase is a simulated CAD base: a TCP server that behaves like
// the base a CAD program embeds (one JSON-RPC frame per connection, only
// tools/list and tools/call), with 26 drawing tools acting on an in-memory
// drawing, optional fault tools that make it misbehave on demand, and
// optional tools that test clients' limits (a slow call, a picture, a long
// listing).
//
// The demo, the tests and `mcp-bridge verify` run against it.
package simbase
