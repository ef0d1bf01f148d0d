package otlp

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The messages of opentelemetry/proto/collector/trace/v1 and trace/v1.

// encodeTraces is an ExportTraceServiceRequest (resource_spans = 1): the
// spans grouped by resource, then by instrumentation scope.
func encodeTraces(json bool, spans []sdktrace.ReadOnlySpan) []byte {
	groups := groupSpans(spans)
	return encode(json, func(w writer) {
		w.messages(1, "resourceSpans", len(groups), func(i int) {
			g := groups[i]
			// ResourceSpans: resource = 1, scope_spans = 2, schema_url = 3.
			resourceField(w, 1, g.res)
			w.messages(2, "scopeSpans", len(g.scopes), func(j int) {
				s := g.scopes[j]
				// ScopeSpans: scope = 1, spans = 2, schema_url = 3.
				scopeField(w, 1, s.scope)
				w.messages(2, "spans", len(s.spans), func(k int) { span(w, s.spans[k]) })
				optStr(w, 3, "schemaUrl", s.scope.SchemaURL)
			})
			optStr(w, 3, "schemaUrl", g.res.SchemaURL())
		})
	})
}

type resourceSpans struct {
	res    *resource.Resource
	scopes []scopeSpans
}

type scopeSpans struct {
	scope instrumentation.Scope
	spans []sdktrace.ReadOnlySpan
}

// groupSpans groups spans by resource and scope, in the order they came.
func groupSpans(spans []sdktrace.ReadOnlySpan) []resourceSpans {
	var out []resourceSpans
	for _, s := range spans {
		ri := -1
		for i := range out {
			if out[i].res.Equivalent() == s.Resource().Equivalent() {
				ri = i
				break
			}
		}
		if ri < 0 {
			out = append(out, resourceSpans{res: s.Resource()})
			ri = len(out) - 1
		}
		g := &out[ri]
		si := -1
		for i := range g.scopes {
			if sameScope(g.scopes[i].scope, s.InstrumentationScope()) {
				si = i
				break
			}
		}
		if si < 0 {
			g.scopes = append(g.scopes, scopeSpans{scope: s.InstrumentationScope()})
			si = len(g.scopes) - 1
		}
		g.scopes[si].spans = append(g.scopes[si].spans, s)
	}
	return out
}

func sameScope(a, b instrumentation.Scope) bool {
	return a.Name == b.Name && a.Version == b.Version && a.SchemaURL == b.SchemaURL &&
		a.Attributes.Equivalent() == b.Attributes.Equivalent()
}

// span writes a Span: trace_id = 1, span_id = 2, trace_state = 3,
// parent_span_id = 4, name = 5, kind = 6, start/end_time_unix_nano = 7/8,
// attributes = 9, dropped_attributes_count = 10, events = 11,
// dropped_events_count = 12, links = 13, dropped_links_count = 14,
// status = 15, flags = 16.
func span(w writer, s sdktrace.ReadOnlySpan) {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	w.id(1, "traceId", tid[:])
	w.id(2, "spanId", sid[:])
	optStr(w, 3, "traceState", sc.TraceState().String())
	if p := s.Parent(); p.SpanID().IsValid() {
		psid := p.SpanID()
		w.id(4, "parentSpanId", psid[:])
	}
	w.fixed32(16, "flags", spanFlags(sc.TraceFlags(), s.Parent()))
	w.str(5, "name", s.Name())
	// trace.SpanKind numbers its kinds as OTLP's SpanKind does.
	w.uint32(6, "kind", uint32(s.SpanKind()))
	w.fixed64(7, "startTimeUnixNano", unixNano(s.StartTime()))
	w.fixed64(8, "endTimeUnixNano", unixNano(s.EndTime()))
	keyValues(w, 9, "attributes", s.Attributes())
	optCount(w, 10, "droppedAttributesCount", s.DroppedAttributes())
	events := s.Events()
	w.messages(11, "events", len(events), func(i int) {
		// Event: time_unix_nano = 1, name = 2, attributes = 3,
		// dropped_attributes_count = 4.
		e := events[i]
		w.fixed64(1, "timeUnixNano", unixNano(e.Time))
		w.str(2, "name", e.Name)
		keyValues(w, 3, "attributes", e.Attributes)
		optCount(w, 4, "droppedAttributesCount", e.DroppedAttributeCount)
	})
	optCount(w, 12, "droppedEventsCount", s.DroppedEvents())
	links := s.Links()
	w.messages(13, "links", len(links), func(i int) { link(w, links[i].SpanContext, links[i].Attributes, links[i].DroppedAttributeCount) })
	optCount(w, 14, "droppedLinksCount", s.DroppedLinks())
	if st := s.Status(); st.Code != codes.Unset {
		// Status: message = 2, code = 3 (OTLP: 1 ok, 2 error; the Go
		// codes are numbered the other way round).
		w.message(15, "status", func() {
			optStr(w, 2, "message", st.Description)
			code := uint32(2)
			if st.Code == codes.Ok {
				code = 1
			}
			w.uint32(3, "code", code)
		})
	}
}

// link writes a Link: trace_id = 1, span_id = 2, trace_state = 3,
// attributes = 4, dropped_attributes_count = 5, flags = 6.
func link(w writer, sc trace.SpanContext, attrs []attribute.KeyValue, dropped int) {
	tid, sid := sc.TraceID(), sc.SpanID()
	w.id(1, "traceId", tid[:])
	w.id(2, "spanId", sid[:])
	optStr(w, 3, "traceState", sc.TraceState().String())
	keyValues(w, 4, "attributes", attrs)
	optCount(w, 5, "droppedAttributesCount", dropped)
	w.fixed32(6, "flags", spanFlags(sc.TraceFlags(), sc))
}

// spanFlags are SpanFlags: the W3C trace flags in bits 0–7, bit 8 set
// ("whether the parent is remote is known") and bit 9 if it is remote.
func spanFlags(tf trace.TraceFlags, parent trace.SpanContext) uint32 {
	f := uint32(tf) | 0x100
	if parent.IsRemote() {
		f |= 0x200
	}
	return f
}
