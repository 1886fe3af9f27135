// Package prom writes the SDK's metrics in the Prometheus text exposition
// format 0.0.4, named as OpenTelemetry's Prometheus compatibility rules
// name them (dots to underscores, the unit as a suffix, _total on
// counters, target_info for the resource), so that what a Prometheus
// server scrapes and what an OTLP collector receives are the same
// metrics. It replaces the official Prometheus exporter, which brings
// prometheus/client_golang and the protobuf registries with it.
package prom

import (
	"bufio"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// ContentType is the text format's media type.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Write writes rm. Metrics are written in the order given, data points
// sorted by their labels, so that the output is stable from scrape to
// scrape.
func Write(w io.Writer, rm *metricdata.ResourceMetrics) error {
	bw := bufio.NewWriter(w)
	if rm.Resource != nil && rm.Resource.Len() > 0 {
		bw.WriteString("# HELP target_info Target metadata\n# TYPE target_info gauge\ntarget_info")
		writeLabels(bw, rm.Resource.Attributes(), "", "")
		bw.WriteString(" 1\n")
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			writeMetric(bw, m)
		}
	}
	return bw.Flush()
}

func writeMetric(w *bufio.Writer, m metricdata.Metrics) {
	name := MetricName(m.Name, m.Unit)
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		writeNumbers(w, name, m.Description, d.IsMonotonic, d.DataPoints)
	case metricdata.Sum[float64]:
		writeNumbers(w, name, m.Description, d.IsMonotonic, d.DataPoints)
	case metricdata.Gauge[int64]:
		writeNumbers(w, name, m.Description, false, d.DataPoints)
	case metricdata.Gauge[float64]:
		writeNumbers(w, name, m.Description, false, d.DataPoints)
	case metricdata.Histogram[int64]:
		writeHistogram(w, name, m.Description, d.DataPoints)
	case metricdata.Histogram[float64]:
		writeHistogram(w, name, m.Description, d.DataPoints)
	}
}

func writeHeader(w *bufio.Writer, name, help, typ string) {
	w.WriteString("# HELP ")
	w.WriteString(name)
	w.WriteByte(' ')
	w.WriteString(escapeHelp(help))
	w.WriteString("\n# TYPE ")
	w.WriteString(name)
	w.WriteByte(' ')
	w.WriteString(typ)
	w.WriteByte('\n')
}

// writeNumbers writes a counter (monotonic sum) or a gauge (anything else:
// an up-down counter is a gauge to Prometheus).
func writeNumbers[N int64 | float64](w *bufio.Writer, name, help string, counter bool, pts []metricdata.DataPoint[N]) {
	typ := "gauge"
	if counter {
		typ = "counter"
		if !strings.HasSuffix(name, "_total") {
			name += "_total"
		}
	}
	writeHeader(w, name, help, typ)
	for _, p := range sortedPoints(pts, func(p metricdata.DataPoint[N]) attribute.Set { return p.Attributes }) {
		w.WriteString(name)
		writeLabels(w, p.Attributes.ToSlice(), "", "")
		w.WriteByte(' ')
		w.WriteString(formatNumber(p.Value))
		w.WriteByte('\n')
	}
}

func writeHistogram[N int64 | float64](w *bufio.Writer, name, help string, pts []metricdata.HistogramDataPoint[N]) {
	writeHeader(w, name, help, "histogram")
	for _, p := range sortedPoints(pts, func(p metricdata.HistogramDataPoint[N]) attribute.Set { return p.Attributes }) {
		labels := p.Attributes.ToSlice()
		var cum uint64
		for i, c := range p.BucketCounts {
			cum += c
			le := "+Inf"
			if i < len(p.Bounds) {
				le = formatFloat(p.Bounds[i])
			}
			w.WriteString(name)
			w.WriteString("_bucket")
			writeLabels(w, labels, "le", le)
			w.WriteByte(' ')
			w.WriteString(strconv.FormatUint(cum, 10))
			w.WriteByte('\n')
		}
		if len(p.BucketCounts) == 0 { // no buckets configured: +Inf alone
			w.WriteString(name)
			w.WriteString("_bucket")
			writeLabels(w, labels, "le", "+Inf")
			w.WriteByte(' ')
			w.WriteString(strconv.FormatUint(p.Count, 10))
			w.WriteByte('\n')
		}
		w.WriteString(name)
		w.WriteString("_sum")
		writeLabels(w, labels, "", "")
		w.WriteByte(' ')
		w.WriteString(formatNumber(p.Sum))
		w.WriteString("\n")
		w.WriteString(name)
		w.WriteString("_count")
		writeLabels(w, labels, "", "")
		w.WriteByte(' ')
		w.WriteString(strconv.FormatUint(p.Count, 10))
		w.WriteByte('\n')
	}
}

// sortedPoints orders data points by their attribute sets' encoding.
func sortedPoints[P any](pts []P, set func(P) attribute.Set) []P {
	out := slices.Clone(pts)
	enc := attribute.DefaultEncoder()
	slices.SortStableFunc(out, func(a, b P) int {
		sa, sb := set(a), set(b)
		return strings.Compare(sa.Encoded(enc), sb.Encoded(enc))
	})
	return out
}

// writeLabels writes {k="v",…} with the attributes' keys as label names
// (sorted, as attribute sets are), and extra (le) last; nothing for no
// labels.
func writeLabels(w *bufio.Writer, kvs []attribute.KeyValue, extraKey, extraValue string) {
	if len(kvs) == 0 && extraKey == "" {
		return
	}
	// Keys that differ only in characters a label name cannot hold
	// (service.name, service_name) make one label, their values joined
	// with ";" in the keys' order (kvs are sorted), as the compatibility
	// rules ask: a label name twice makes Prometheus refuse the scrape.
	var buf [16][2]string
	labels := buf[:0]
next:
	for _, kv := range kvs {
		name, value := LabelName(string(kv.Key)), kv.Value.Emit()
		for i := range labels {
			if labels[i][0] == name {
				labels[i][1] += ";" + value
				continue next
			}
		}
		labels = append(labels, [2]string{name, value})
	}
	w.WriteByte('{')
	for i, l := range labels {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString(l[0])
		w.WriteString(`="`)
		w.WriteString(escapeValue(l[1]))
		w.WriteByte('"')
	}
	if extraKey != "" {
		if len(kvs) > 0 {
			w.WriteByte(',')
		}
		w.WriteString(extraKey)
		w.WriteString(`="`)
		w.WriteString(extraValue)
		w.WriteByte('"')
	}
	w.WriteByte('}')
}

// MetricName is an OpenTelemetry metric's Prometheus name: characters
// outside [a-zA-Z0-9_:] become "_", runs of "_" are one, and the unit is
// appended as a word (s → seconds; an annotation like {call} adds
// nothing). Counters get "_total" where they are written.
func MetricName(name, unit string) string {
	n := sanitize(name, true)
	if suffix := unitSuffix(unit); suffix != "" && !strings.HasSuffix(n, "_"+suffix) {
		n += "_" + suffix
	}
	return n
}

// LabelName is an attribute key's Prometheus label name: characters
// outside [a-zA-Z0-9_] become "_", and a leading digit gets "key_" before
// it.
func LabelName(key string) string {
	n := sanitize(key, false)
	if n != "" && n[0] >= '0' && n[0] <= '9' {
		n = "key_" + n
	}
	return n
}

func sanitize(s string, colon bool) string {
	var b strings.Builder
	lastUnderscore := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || (colon && c == ':')
		if !ok {
			c = '_'
		}
		if c == '_' && lastUnderscore {
			continue
		}
		lastUnderscore = c == '_'
		b.WriteByte(c)
	}
	out := b.String()
	if out == "" || (colon && out[0] >= '0' && out[0] <= '9') {
		out = "_" + out
	}
	return out
}

// unitSuffix follows the compatibility rules' table for the units this
// bridge uses and a few common ones; an annotation in braces names what is
// counted and adds nothing.
func unitSuffix(unit string) string {
	if strings.HasPrefix(unit, "{") && strings.HasSuffix(unit, "}") {
		return ""
	}
	switch unit {
	case "", "1":
		return ""
	case "s":
		return "seconds"
	case "ms":
		return "milliseconds"
	case "By":
		return "bytes"
	}
	return sanitize(unit, false)
}

// escapeValue escapes a label value (backslash, double quote, line feed),
// and makes it UTF-8: the format is UTF-8, and a scrape with one bad byte
// fails whole.
func escapeValue(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if !strings.ContainsAny(s, "\\\"\n") {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// escapeHelp escapes HELP text (backslash, line feed).
func escapeHelp(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(s)
}

func formatNumber[N int64 | float64](v N) string {
	switch x := any(v).(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return formatFloat(x)
	}
	return "0"
}

func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case math.IsNaN(f):
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
