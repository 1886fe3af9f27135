// Package otlp exports the SDK's spans and metrics over OTLP/HTTP in
// binary protobuf (https://opentelemetry.io/docs/specs/otlp/), encoded by
// hand (the wire format in otlp/internal/wire). The official exporters link the OTLP message
// packages with their gRPC gateway and the protobuf registries, which
// nearly doubled the bridge's binary; the messages themselves are a few
// fixed shapes, written here field by field (field numbers from
// opentelemetry-proto, checked in the tests by decoding with the official
// Go definitions).
package otlp

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/otlp/internal/wire"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// appendMsg appends field num holding the message fn writes. The message
// is written in place, then moved up by the size of its length prefix:
// one copy instead of a second pass that measures first.
func appendMsg(b []byte, num wire.Number, fn func([]byte) []byte) []byte {
	b = wire.AppendTag(b, num, wire.BytesType)
	start := len(b)
	b = fn(b)
	n := len(b) - start
	sz := wire.SizeVarint(uint64(n))
	b = append(b, make([]byte, sz)...)
	copy(b[start+sz:], b[start:start+n])
	wire.AppendVarint(b[start:start], uint64(n))
	return b
}

// appendString writes a string field; proto3 strings must be UTF-8, and a
// receiver refuses the whole request when one is not, so invalid bytes
// (which a hostile client or base could have put in a name) become U+FFFD.
func appendString(b []byte, num wire.Number, s string) []byte {
	if s == "" {
		return b
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	b = wire.AppendTag(b, num, wire.BytesType)
	return wire.AppendString(b, s)
}

func appendBytes(b []byte, num wire.Number, v []byte) []byte {
	b = wire.AppendTag(b, num, wire.BytesType)
	return wire.AppendBytes(b, v)
}

func appendVarint(b []byte, num wire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = wire.AppendTag(b, num, wire.VarintType)
	return wire.AppendVarint(b, v)
}

func appendFixed64(b []byte, num wire.Number, v uint64) []byte {
	b = wire.AppendTag(b, num, wire.Fixed64Type)
	return wire.AppendFixed64(b, v)
}

func appendDouble(b []byte, num wire.Number, v float64) []byte {
	return appendFixed64(b, num, math.Float64bits(v))
}

// appendKeyValues writes attributes as repeated KeyValue (common.proto:
// key 1, value 2).
func appendKeyValues(b []byte, num wire.Number, kvs []attribute.KeyValue) []byte {
	for _, kv := range kvs {
		b = appendMsg(b, num, func(b []byte) []byte {
			b = appendString(b, 1, string(kv.Key))
			return appendMsg(b, 2, func(b []byte) []byte { return appendAnyValue(b, kv.Value) })
		})
	}
	return b
}

// appendAnyValue writes the AnyValue oneof (common.proto: string 1, bool 2,
// int 3, double 4, array 5, kvlist 6, bytes 7).
func appendAnyValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.BOOL:
		b = wire.AppendTag(b, 2, wire.VarintType)
		return wire.AppendVarint(b, wire.EncodeBool(v.AsBool()))
	case attribute.INT64:
		b = wire.AppendTag(b, 3, wire.VarintType)
		return wire.AppendVarint(b, uint64(v.AsInt64()))
	case attribute.FLOAT64:
		return appendDouble(b, 4, v.AsFloat64())
	case attribute.STRING:
		s := v.AsString()
		if !utf8.ValidString(s) {
			s = strings.ToValidUTF8(s, "\uFFFD")
		}
		b = wire.AppendTag(b, 1, wire.BytesType)
		return wire.AppendString(b, s)
	case attribute.BYTESLICE:
		return appendBytes(b, 7, v.AsByteSlice())
	case attribute.BOOLSLICE, attribute.INT64SLICE, attribute.FLOAT64SLICE, attribute.STRINGSLICE, attribute.SLICE:
		return appendMsg(b, 5, func(b []byte) []byte {
			for _, e := range sliceValues(v) {
				b = appendMsg(b, 1, func(b []byte) []byte { return appendAnyValue(b, e) })
			}
			return b
		})
	case attribute.MAP:
		return appendMsg(b, 6, func(b []byte) []byte { return appendKeyValues(b, 1, v.AsMap()) })
	}
	return b // EMPTY: an AnyValue with no field set
}

func sliceValues(v attribute.Value) []attribute.Value {
	var out []attribute.Value
	switch v.Type() {
	case attribute.BOOLSLICE:
		for _, e := range v.AsBoolSlice() {
			out = append(out, attribute.BoolValue(e))
		}
	case attribute.INT64SLICE:
		for _, e := range v.AsInt64Slice() {
			out = append(out, attribute.Int64Value(e))
		}
	case attribute.FLOAT64SLICE:
		for _, e := range v.AsFloat64Slice() {
			out = append(out, attribute.Float64Value(e))
		}
	case attribute.STRINGSLICE:
		for _, e := range v.AsStringSlice() {
			out = append(out, attribute.StringValue(e))
		}
	case attribute.SLICE:
		out = v.AsSlice()
	}
	return out
}

// appendResource writes a Resource (resource.proto: attributes 1).
func appendResource(b []byte, num wire.Number, r *resource.Resource) []byte {
	return appendMsg(b, num, func(b []byte) []byte {
		if r != nil {
			b = appendKeyValues(b, 1, r.Attributes())
		}
		return b
	})
}

// appendScope writes an InstrumentationScope (common.proto: name 1,
// version 2, attributes 3).
func appendScope(b []byte, num wire.Number, s instrumentation.Scope) []byte {
	return appendMsg(b, num, func(b []byte) []byte {
		b = appendString(b, 1, s.Name)
		b = appendString(b, 2, s.Version)
		return appendKeyValues(b, 3, s.Attributes.ToSlice())
	})
}

// Span flags (trace.proto SpanFlags): the low byte is the W3C trace flags;
// then whether the parent's remoteness is known, and whether it is remote.
const (
	spanFlagsHasIsRemote = 0x100
	spanFlagsIsRemote    = 0x200
)

// AppendTraces appends an ExportTraceServiceRequest holding spans, grouped
// by resource and scope in the order they first appear.
func AppendTraces(b []byte, spans []sdktrace.ReadOnlySpan) []byte {
	type group struct {
		res   *resource.Resource
		scope instrumentation.Scope
		spans []sdktrace.ReadOnlySpan
	}
	var groups []*group
	for _, s := range spans {
		var g *group
		for _, x := range groups {
			if x.res == s.Resource() && x.scope.Name == s.InstrumentationScope().Name && x.scope.Version == s.InstrumentationScope().Version {
				g = x
				break
			}
		}
		if g == nil {
			g = &group{res: s.Resource(), scope: s.InstrumentationScope()}
			groups = append(groups, g)
		}
		g.spans = append(g.spans, s)
	}
	for _, g := range groups {
		// ExportTraceServiceRequest.resource_spans = 1
		b = appendMsg(b, 1, func(b []byte) []byte {
			b = appendResource(b, 1, g.res)             // ResourceSpans.resource = 1
			b = appendMsg(b, 2, func(b []byte) []byte { // ResourceSpans.scope_spans = 2
				b = appendScope(b, 1, g.scope)
				for _, s := range g.spans {
					b = appendMsg(b, 2, func(b []byte) []byte { return appendSpan(b, s) })
				}
				return appendString(b, 3, g.scope.SchemaURL)
			})
			if g.res != nil {
				b = appendString(b, 3, g.res.SchemaURL())
			}
			return b
		})
	}
	return b
}

// appendSpan writes a Span's fields (trace.proto).
func appendSpan(b []byte, s sdktrace.ReadOnlySpan) []byte {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b = appendBytes(b, 1, tid[:])
	b = appendBytes(b, 2, sid[:])
	b = appendString(b, 3, sc.TraceState().String())
	flags := uint32(sc.TraceFlags()) | spanFlagsHasIsRemote
	if p := s.Parent(); p.IsValid() {
		psid := p.SpanID()
		b = appendBytes(b, 4, psid[:])
		if p.IsRemote() {
			flags |= spanFlagsIsRemote
		}
	}
	b = appendString(b, 5, s.Name())
	b = appendVarint(b, 6, uint64(s.SpanKind()))
	b = appendFixed64(b, 7, uint64(s.StartTime().UnixNano()))
	b = appendFixed64(b, 8, uint64(s.EndTime().UnixNano()))
	b = appendKeyValues(b, 9, s.Attributes())
	b = appendVarint(b, 10, uint64(s.DroppedAttributes()))
	for _, e := range s.Events() {
		b = appendMsg(b, 11, func(b []byte) []byte {
			b = appendFixed64(b, 1, uint64(e.Time.UnixNano()))
			b = appendString(b, 2, e.Name)
			b = appendKeyValues(b, 3, e.Attributes)
			return appendVarint(b, 4, uint64(e.DroppedAttributeCount))
		})
	}
	b = appendVarint(b, 12, uint64(s.DroppedEvents()))
	for _, l := range s.Links() {
		b = appendMsg(b, 13, func(b []byte) []byte {
			ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			b = appendBytes(b, 1, ltid[:])
			b = appendBytes(b, 2, lsid[:])
			b = appendString(b, 3, l.SpanContext.TraceState().String())
			b = appendKeyValues(b, 4, l.Attributes)
			b = appendVarint(b, 5, uint64(l.DroppedAttributeCount))
			lflags := uint32(l.SpanContext.TraceFlags()) | spanFlagsHasIsRemote
			if l.SpanContext.IsRemote() {
				lflags |= spanFlagsIsRemote
			}
			b = wire.AppendTag(b, 6, wire.Fixed32Type)
			return wire.AppendFixed32(b, lflags)
		})
	}
	b = appendVarint(b, 14, uint64(s.DroppedLinks()))
	if st := s.Status(); st.Code != codes.Unset {
		b = appendMsg(b, 15, func(b []byte) []byte {
			b = appendString(b, 2, st.Description)
			// OTLP numbers the codes otherwise than the Go API: OK 1, ERROR 2.
			code := uint64(1)
			if st.Code == codes.Error {
				code = 2
			}
			return appendVarint(b, 3, code)
		})
	}
	b = wire.AppendTag(b, 16, wire.Fixed32Type)
	return wire.AppendFixed32(b, flags)
}

// OTLP's AggregationTemporality values.
const (
	temporalityDelta      = 1
	temporalityCumulative = 2
)

func temporality(t sdkmetric.Temporality) uint64 {
	if t == sdkmetric.DeltaTemporality {
		return temporalityDelta
	}
	return temporalityCumulative
}

// AppendMetrics appends an ExportMetricsServiceRequest holding rm. Data
// the bridge's instruments never produce (exponential histograms,
// summaries) is left out.
func AppendMetrics(b []byte, rm *sdkmetric.ResourceMetrics) []byte {
	// ExportMetricsServiceRequest.resource_metrics = 1
	return appendMsg(b, 1, func(b []byte) []byte {
		b = appendResource(b, 1, rm.Resource)
		for _, sm := range rm.ScopeMetrics {
			b = appendMsg(b, 2, func(b []byte) []byte { // ResourceMetrics.scope_metrics = 2
				b = appendScope(b, 1, sm.Scope)
				for _, m := range sm.Metrics {
					b = appendMetric(b, m)
				}
				return appendString(b, 3, sm.Scope.SchemaURL)
			})
		}
		if rm.Resource != nil {
			b = appendString(b, 3, rm.Resource.SchemaURL())
		}
		return b
	})
}

// appendMetric writes ScopeMetrics.metrics = 2 for one metric (metrics.proto:
// name 1, description 2, unit 3, gauge 5, sum 7, histogram 9).
func appendMetric(b []byte, m sdkmetric.Metrics) []byte {
	var data func([]byte) []byte
	num := wire.Number(0)
	switch d := m.Data.(type) {
	case sdkmetric.Gauge[int64]:
		num, data = 5, func(b []byte) []byte { return appendNumberPoints(b, d.DataPoints) }
	case sdkmetric.Gauge[float64]:
		num, data = 5, func(b []byte) []byte { return appendNumberPoints(b, d.DataPoints) }
	case sdkmetric.Sum[int64]:
		num, data = 7, func(b []byte) []byte { return appendSum(b, d.DataPoints, d.Temporality, d.IsMonotonic) }
	case sdkmetric.Sum[float64]:
		num, data = 7, func(b []byte) []byte { return appendSum(b, d.DataPoints, d.Temporality, d.IsMonotonic) }
	case sdkmetric.Histogram[int64]:
		num, data = 9, func(b []byte) []byte { return appendHistogram(b, d) }
	case sdkmetric.Histogram[float64]:
		num, data = 9, func(b []byte) []byte { return appendHistogram(b, d) }
	default:
		return b
	}
	return appendMsg(b, 2, func(b []byte) []byte {
		b = appendString(b, 1, m.Name)
		b = appendString(b, 2, m.Description)
		b = appendString(b, 3, m.Unit)
		return appendMsg(b, num, data)
	})
}

func appendSum[N int64 | float64](b []byte, pts []sdkmetric.DataPoint[N], t sdkmetric.Temporality, mono bool) []byte {
	b = appendNumberPoints(b, pts)
	b = appendVarint(b, 2, temporality(t))
	if mono {
		b = wire.AppendTag(b, 3, wire.VarintType)
		b = wire.AppendVarint(b, 1)
	}
	return b
}

// appendNumberPoints writes data_points = 1 of a Gauge or Sum
// (NumberDataPoint: start 2, time 3, as_double 4, as_int 6, attributes 7).
func appendNumberPoints[N int64 | float64](b []byte, pts []sdkmetric.DataPoint[N]) []byte {
	for _, p := range pts {
		b = appendMsg(b, 1, func(b []byte) []byte {
			if !p.StartTime.IsZero() {
				b = appendFixed64(b, 2, uint64(p.StartTime.UnixNano()))
			}
			b = appendFixed64(b, 3, uint64(p.Time.UnixNano()))
			switch v := any(p.Value).(type) {
			case int64:
				b = wire.AppendTag(b, 6, wire.Fixed64Type)
				b = wire.AppendFixed64(b, uint64(v))
			case float64:
				b = appendDouble(b, 4, v)
			}
			return appendKeyValues(b, 7, p.Attributes.ToSlice())
		})
	}
	return b
}

// appendHistogram writes a Histogram (data_points 1, temporality 2;
// HistogramDataPoint: start 2, time 3, count 4, sum 5, bucket_counts 6,
// explicit_bounds 7, attributes 9, min 11, max 12).
func appendHistogram[N int64 | float64](b []byte, h sdkmetric.Histogram[N]) []byte {
	for _, p := range h.DataPoints {
		b = appendMsg(b, 1, func(b []byte) []byte {
			b = appendFixed64(b, 2, uint64(p.StartTime.UnixNano()))
			b = appendFixed64(b, 3, uint64(p.Time.UnixNano()))
			b = appendFixed64(b, 4, p.Count)
			b = appendDouble(b, 5, float64(p.Sum))
			b = appendMsg(b, 6, func(b []byte) []byte {
				for _, c := range p.BucketCounts {
					b = wire.AppendFixed64(b, c)
				}
				return b
			})
			b = appendMsg(b, 7, func(b []byte) []byte {
				for _, x := range p.Bounds {
					b = wire.AppendFixed64(b, math.Float64bits(x))
				}
				return b
			})
			b = appendKeyValues(b, 9, p.Attributes.ToSlice())
			if v, ok := p.Min.Value(); ok {
				b = appendDouble(b, 11, float64(v))
			}
			if v, ok := p.Max.Value(); ok {
				b = appendDouble(b, 12, float64(v))
			}
			return b
		})
	}
	return appendVarint(b, 2, temporality(h.Temporality))
}
