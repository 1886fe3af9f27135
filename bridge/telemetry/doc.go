// Package telemetry gives the bridge OpenTelemetry traces and metrics
// following the MCP semantic conventions (docs/telemetry.md names the
// version), exported by OTLP/HTTP and served at /metrics in the
// Prometheus text format. It is off unless configured: then New returns a
// nil *Telemetry, whose methods (and the nil handles they return) do
// nothing and allocate nothing, and no SDK object or goroutine exists.
//
// The core calls it at fixed points of a request's life:
//
//	tel, err := telemetry.New(cfg, telemetry.Options{…})  // at start; cfg from ConfigFrom
//	tel.ToolsListed(result)           // after each good tools/list from the base
//	op := tel.Start(telemetry.Request{…})  // a request read (TraceContext decodes the _meta trace context the decoder found)
//	op.Refused(telemetry.RefusalDenied)    // the policy refused it
//	op.Asked(); op.Answered(telemetry.Agreed)  // a confirmation question and its answer
//	op.Queued(); op.Dequeued()        // into the worker's queue, and out
//	call := op.CallBase()             // the frame goes to the base…
//	tp, ts := call.TraceMeta()        // …with these in its _meta if --otel-propagate-to-base
//	call.End(kind)                    // the base answered ("") or failed (tcpbase's kind)
//	op.End(telemetry.Result{…})       // the answer is written
//	s := tel.SessionStart(…); s.End("")    // a session opens and ends
//	st := tel.StreamOpened(); st.Closed()  // a long-lived stream
//	tel.Shutdown(ctx)                 // at exit: flushes
//
// connect calls Start for each relayed request and op.CallRemote(addr)
// for the hop, putting TraceMeta's values in the _meta it sends, so that
// the remote bridge's spans join the client's trace.
//
// Files: config.go (Config, the OTEL_* variables and flags), telemetry.go
// (New, /metrics, ServeMetrics), op.go (a request's span and metrics:
// Op, Call, Session, Stream), instruments.go (the metrics), names.go (the
// fixed sets attribute values come from: no value a client invents
// becomes a series). Sub-packages: tracecontext (W3C traceparent and
// tracestate, strictly), otlp (the OTLP/HTTP protobuf exporter), prom
// (the Prometheus text format), health (/healthz, /livez), status (the
// status page).
package telemetry
