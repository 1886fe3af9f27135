package telemetry

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/health"
)

// durationBuckets are the convention's bucket boundaries for MCP
// durations, in seconds.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Metric names: the convention's, then the bridge's own (mcp_bridge.*).
const (
	MetricOperationDuration = "mcp.server.operation.duration"
	MetricSessionDuration   = "mcp.server.session.duration"
	MetricCADDuration       = "mcp.client.operation.duration" // the bridge as the base's client: the CAD round trip
	MetricQueueDuration     = "mcp_bridge.queue.duration"
	MetricInFlight          = "mcp_bridge.calls.in_flight"
	MetricQueued            = "mcp_bridge.calls.queued"
	MetricSessions          = "mcp_bridge.sessions"
	MetricStreams           = "mcp_bridge.streams"
	MetricReachable         = "mcp_bridge.cad.reachable"
	MetricToolsListAge      = "mcp_bridge.cad.tools_list.age"
	MetricAsked             = "mcp_bridge.confirmations.asked"
	MetricAnswered          = "mcp_bridge.confirmations.answered"
	MetricRefusals          = "mcp_bridge.policy.refusals"
)

// instruments are the meters' instruments; all nil while metrics are off.
type instruments struct {
	on                                               bool
	opDuration, sessDuration, cadDuration, queueWait metric.Float64Histogram
	inFlight, queued, sessions, streams              metric.Int64UpDownCounter
	asked, answered, refusals                        metric.Int64Counter
	reachable                                        metric.Int64ObservableGauge
	listAge                                          metric.Float64ObservableGauge
	registration                                     metric.Registration
	healthState                                      *health.State
	lastListNanos                                    func() int64
}

func (in *instruments) create(m metric.Meter, t *Telemetry) error {
	var errs []error
	hist := func(name, desc string) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc), metric.WithExplicitBucketBoundaries(durationBuckets...))
		errs = append(errs, err)
		return h
	}
	updown := func(name, unit, desc string) metric.Int64UpDownCounter {
		c, err := m.Int64UpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	counter := func(name, unit, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	in.opDuration = hist(MetricOperationDuration, "MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.")
	in.sessDuration = hist(MetricSessionDuration, "The duration of the MCP session as observed on the MCP server.")
	in.cadDuration = hist(MetricCADDuration, "The CAD round trip: from sending a request to the base until its answer (or failure).")
	in.queueWait = hist(MetricQueueDuration, "Time a request waited in the queue for the one worker that calls the base.")
	in.inFlight = updown(MetricInFlight, "{call}", "Requests sent to the CAD base and not yet answered.")
	in.queued = updown(MetricQueued, "{call}", "Requests waiting in the queue for the worker.")
	in.sessions = updown(MetricSessions, "{session}", "Open MCP sessions (stdio, or Streamable HTTP legacy sessions).")
	in.streams = updown(MetricStreams, "{stream}", "Open long-lived streams (SSE GET streams, subscriptions/listen).")
	in.asked = counter(MetricAsked, "{question}", "Confirmation questions asked (elicitation, desktop dialog, input_required).")
	in.answered = counter(MetricAnswered, "{answer}", "Confirmation answers, by answer.")
	in.refusals = counter(MetricRefusals, "{call}", "Tool calls the policy refused, by kind.")
	var err error
	in.reachable, err = m.Int64ObservableGauge(MetricReachable, metric.WithDescription("1 while the CAD base answered its last probe or call, 0 while it could not be reached; absent before the first."))
	errs = append(errs, err)
	in.listAge, err = m.Float64ObservableGauge(MetricToolsListAge, metric.WithUnit("s"), metric.WithDescription("Time since the base last answered tools/list well; absent before the first."))
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return err
	}
	in.healthState = t.health
	in.lastListNanos = t.lastList.Load
	in.registration, err = m.RegisterCallback(in.observe, in.reachable, in.listAge)
	in.on = err == nil
	return err
}

// observe reports the gauges read at collection time.
func (in *instruments) observe(_ context.Context, o metric.Observer) error {
	if in.healthState != nil {
		switch in.healthState.Status().Base {
		case health.Up:
			o.ObserveInt64(in.reachable, 1)
		case health.Down:
			o.ObserveInt64(in.reachable, 0)
		}
	}
	if n := in.lastListNanos(); n != 0 {
		o.ObserveFloat64(in.listAge, time.Since(time.Unix(0, n)).Seconds())
	}
	return nil
}
