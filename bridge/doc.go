// Package bridge is the core that serves the CAD base to MCP clients, and
// its stdio front end. A front end reads a client's messages and dispatches
// them: the protocol the bridge speaks itself is answered at once;
// tools/list and tools/call become jobs for the one ordered worker, which
// forwards each to the base on a fresh TCP connection and answers with the
// client's id. Run wires stdio to the core; the Streamable HTTP front end is
// package bridge/streamable, which meets the core through front.go. Each
// owns every goroutine it starts.
//
// Files by role:
//   - run.go: the core (bridge, job), stdio start-up, the named goroutines,
//     the one shutdown.
//   - front.go: what a front end in its own package sees of the core
//     (Start, Core: Decode, Dispatch, AsksFirst, its clients, Stop); a
//     Client, the Stream its messages go to, its Turn with the worker.
//   - reader.go: the stdio reader, decode (each message read once into a
//     lifecycle.Request, with the policy's say) and dispatch, routed by the
//     method table (lifecycle.Method); callable by any front end, it must
//     not block.
//   - client.go: a client as the core sees it (its stream, its requests in
//     progress by id) and reply, the exactly-once completion of a request.
//     A request's state (waiting, asking, running, ended) changes in one
//     place, client.update, under the client's lock; each request has its
//     context from its arrival, and whatever ends it (answer, cancel,
//     session end) cancels that context: reply.ended is where a request
//     ends, and reply.times has when it got where.
//   - queue.go: the jobs waiting for the worker, in turns per client.
//   - worker.go: the worker (invoked sequentially): call the base, turn its
//     answer into the client's. It never waits for a client.
//   - jobs.go: long calls answered in time: a call still running when its
//     client's answer is due (bridge/clientfit) is answered with a job,
//     collected with the bridge's wait_for_cad tool; CAD's call goes on.
//   - question.go: handshake-era confirmation questions, asked outside the
//     worker; only the asking client's later calls wait for the answer.
//   - batch.go: the one-line answer to a batch, within --max-message.
//   - listen.go, liveness.go, failure.go: subscriptions, base up/down and
//     heartbeats (the tool list kept on disk by sub-package toolcache),
//     client-facing errors.
//   - launch.go: a call that finds the base down starts the CAD program
//     (Config.Launch, tcpbase/launch) and waits for it.
//   - forward.go: the forwarding rule: the base's frame is built from the
//     request as decoded (lifecycle.ReadRequest: tool params read once, by
//     exact keys), nothing else.
//   - listed.go: under a policy, only names the base lists run; the base's
//     tool list is read at start.
//   - mirrored.go: a 2026-07-28 HTTP call's Mcp-Param-* headers must say
//     what its arguments say (x-mcp-header), checked against the base's
//     whole tool list (every page) before the queue or any question.
//   - gate.go: the user's rules on tool requests, decided by guard.Gate
//     (bridge/guard: the policy, confirmation by elicitation/create in
//     the handshake era or input_required with a signed requestState in
//     2026-07-28, the journal), called at three points: admitCall on
//     accept (the reader), beforeSend (the worker), record (settle).
//
// Sub-packages: streamable (the Streamable HTTP front end, and
// streamable/tlscert), connect (mcp-bridge connect), guard (the user's
// rules: guard/policy, guard/confirm, guard/journal), telemetry,
// clientfit (each client's limits), internal/toolcache; the errors a
// client can get are lifecycle/clienterr. internal/bridgetest is what the
// tests of the core and of its front ends share. The layers and the rule
// test that keeps imports pointing down: docs/development.md.
package bridge
