// Package bridge serves the CAD base to one MCP client over a pair of
// streams (stdin/stdout). A reader goroutine answers the protocol itself at
// once (initialize, ping, server/discover, errors); one ordered worker
// forwards tools/list and tools/call to the base, each on a fresh TCP
// connection, and answers with the client's id. Run wires it together and
// owns every goroutine it starts.
//
// Files by role: run.go (start-up and the one shutdown), reader.go (the
// reader: decode, dispatch, enqueue, cancel), worker.go (the worker: call
// the base, turn its answer into the client's), batch.go (answers to a
// batch line), listen.go, liveness.go, cache.go, failure.go.
package bridge
