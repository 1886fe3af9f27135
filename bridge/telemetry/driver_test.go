package telemetry

import (
	"context"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/health"
)

// core plays the bridge core's part, calling the package as the core will
// once it is wired (see doc.go): the tests drive telemetry through the
// same calls in the same order, with no core of their own.
type core struct {
	tel    *Telemetry
	health *health.State
}

// job is one request's life as the core sees it.
type job struct {
	req     Request
	refuse  string // the policy refuses it (a Refusal* kind): no base call
	ask     Answer // a confirmation question and its answer; "" for none
	queue   bool   // it waits in the worker's queue
	baseErr string // the base call's failure kind; "" for an answer
	result  Result // the answer the client gets
}

// run plays the job and returns what the core would put in the base's
// _meta (empty unless --otel-propagate-to-base).
func (c *core) run(j job) (traceparent, tracestate string) {
	op := c.tel.Start(j.req)
	if j.refuse != "" {
		op.Refused(j.refuse)
		op.End(j.result)
		return
	}
	if j.ask != "" {
		op.Asked()
		op.Answered(j.ask)
		if j.ask != Agreed {
			op.End(j.result)
			return
		}
	}
	if j.queue {
		op.Queued()
		op.Dequeued()
	}
	call := op.CallBase()
	traceparent, tracestate = call.TraceMeta()
	call.End(j.baseErr)
	if j.baseErr == "unreachable" {
		c.health.Down("CAD base at 127.0.0.1:8080 refused the connection")
	} else {
		c.health.Up()
	}
	op.End(j.result)
	return
}

// toolsList is a base's tools/list result naming these tools.
func toolsList(names ...string) []byte {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"` + n + `","inputSchema":{"type":"object"}}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// newCore starts telemetry with cfg against the CAD base 127.0.0.1:8080;
// it is shut down when the test ends.
func newCore(t *testing.T, cfg Config) *core {
	t.Helper()
	h := health.New()
	tel, err := New(cfg, Options{Version: "v0.test", BaseAddr: "127.0.0.1:8080", Health: h, Log: zerolog.Nop(),
		Hostname: func() (string, error) { return "cad-pc-12", nil }})
	if err != nil {
		t.Fatal(err)
	}
	if tel == nil {
		t.Fatal("New returned no telemetry for a config that asks for some")
	}
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	return &core{tel: tel, health: h}
}
