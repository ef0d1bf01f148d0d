package telemetry

import (
	"context"
	"sync"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
)

// SinkOptions configure one session's consumer.
type SinkOptions struct {
	// LogContent exports prompts, answers, tool arguments and output as
	// span attributes (telemetry.log_content).
	LogContent bool
	// Price prices a model call for coder.cost.usage; nil (or unknown
	// prices) records no cost.
	Price func(model string, u chat.Usage) (usd float64, ok bool)
}

// Sink is the consumer of one session's events: a span per turn, per model
// call under it and per tool call under the model call that asked for it,
// and the metrics. A subagent's model and tool calls go under the task
// call that started it.
func (p *Pipeline) Sink(o SinkOptions) event.Sink {
	return newSink(p.tracer, p.inst, o)
}

func newSink(tr trace.Tracer, inst instruments, o SinkOptions) *sink {
	return &sink{tr: tr, inst: inst, o: o, scopes: map[string]*scope{}}
}

// contentLimit bounds one exported piece of content (log_content).
const contentLimit = 8 << 10

type sink struct {
	tr   trace.Tracer
	inst instruments
	o    SinkOptions

	mu                  sync.Mutex
	session, agent, mod string // session id, agent and its mode
	model               string
	turn                trace.Span
	turnCtx             context.Context
	scopes              map[string]*scope // "" is the main agent, else a subagent's id
}

// scope is the open spans of the main agent or of one subagent.
type scope struct {
	parent    context.Context // what its model calls hang under
	call      trace.Span      // the running model call
	callCtx   context.Context // the latest model call, for its tool calls
	callStart time.Time
	tools     map[string]openTool
}

type openTool struct {
	name  string
	span  trace.Span
	start time.Time
}

// Emit implements event.Sink.
func (s *sink) Emit(e event.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emit("", e)
}

func (s *sink) emit(scopeID string, e event.Event) {
	switch e := e.(type) {
	case event.SessionStarted:
		s.session, s.model, s.agent, s.mod = e.SessionID, e.Model, e.Agent, e.Mode
		s.inst.sessions.Add(context.Background(), 1, metric.WithAttributes(attribute.Bool("resumed", e.Resumed)))
	case event.ModelChanged:
		s.model = e.Model
	case event.ModeChanged:
		s.agent, s.mod = e.Agent, e.Mode
	case event.TurnStarted:
		if scopeID == "" {
			s.startTurn(e)
		}
	case event.StateChanged:
		if e.To == event.StateModelRunning {
			s.startModelCall(s.scope(scopeID))
		}
	case event.AssistantMessage:
		s.endModelCall(s.scope(scopeID), e)
	case event.ToolStarted:
		s.startTool(s.scope(scopeID), e)
	case event.ToolFinished:
		s.endTool(s.scope(scopeID), e)
	case event.Subagent:
		s.emit("sub:"+e.ID, e.Event)
	case event.TurnFinished:
		if scopeID == "" {
			s.endTurn(e)
		}
	}
}

func (s *sink) startTurn(e event.TurnStarted) {
	attrs := []attribute.KeyValue{
		attribute.String("session.id", s.session), attribute.String("coder.run.id", e.RunID),
		attribute.String("coder.agent", s.agent), attribute.String("coder.mode", s.mod),
		attribute.String("gen_ai.request.model", s.model),
	}
	if s.o.LogContent {
		attrs = append(attrs, attribute.String("coder.prompt", clip(e.Input)))
	}
	s.turnCtx, s.turn = s.tr.Start(context.Background(), "coder.turn", trace.WithAttributes(attrs...))
	s.scopes = map[string]*scope{}
}

// scope is the open state of the main agent ("") or a subagent, made on
// first use: a subagent's calls hang under the running task call.
func (s *sink) scope(id string) *scope {
	if sc := s.scopes[id]; sc != nil {
		return sc
	}
	parent := s.turnCtx
	if parent == nil {
		parent = context.Background() // events outside a turn (a ! command)
	}
	if id != "" {
		if task := s.runningTask(); task != nil {
			parent = trace.ContextWithSpan(parent, task)
		}
	}
	sc := &scope{parent: parent, callCtx: parent, tools: map[string]openTool{}}
	s.scopes[id] = sc
	return sc
}

// runningTask is the main agent's running task call, when exactly one runs.
func (s *sink) runningTask() trace.Span {
	main := s.scopes[""]
	if main == nil {
		return nil
	}
	var found trace.Span
	for _, t := range main.tools {
		if t.name == "task" {
			if found != nil {
				return nil
			}
			found = t.span
		}
	}
	return found
}

func (s *sink) startModelCall(sc *scope) {
	if sc.call != nil {
		sc.call.End()
	}
	sc.callCtx, sc.call = s.tr.Start(sc.parent, "chat "+s.model, trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.request.model", s.model)))
	sc.callStart = time.Now()
}

func (s *sink) endModelCall(sc *scope, e event.AssistantMessage) {
	u := e.Usage
	model := attribute.String("model", s.model)
	ctx := context.Background()
	for typ, n := range map[string]int{"input": u.InputTokens, "output": u.OutputTokens,
		"cache_read": u.CacheReadTokens, "cache_creation": u.CacheWriteTokens} {
		if n > 0 {
			s.inst.tokens.Add(ctx, int64(n), metric.WithAttributes(attribute.String("type", typ), model))
		}
	}
	if s.o.Price != nil && !u.IsZero() {
		if usd, ok := s.o.Price(s.model, u); ok {
			s.inst.cost.Add(ctx, usd, metric.WithAttributes(model))
		}
	}
	if sc.call == nil {
		return
	}
	s.inst.latency.Record(ctx, time.Since(sc.callStart).Seconds(), metric.WithAttributes(model))
	sc.call.SetAttributes(
		attribute.Int("gen_ai.usage.input_tokens", u.PromptTokens()), attribute.Int("gen_ai.usage.output_tokens", u.OutputTokens),
		attribute.Int("coder.model_call.index", e.ModelCallIndex), attribute.Int("coder.tool_calls", len(e.Message.ToolCalls)))
	if e.StopReason != "" {
		sc.call.SetAttributes(attribute.StringSlice("gen_ai.response.finish_reasons", []string{e.StopReason}))
	}
	sc.call.End()
	sc.call = nil
}

func (s *sink) startTool(sc *scope, e event.ToolStarted) {
	_, span := s.tr.Start(sc.callCtx, e.Name, trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("gen_ai.tool.name", e.Name),
		attribute.String("gen_ai.tool.call.id", e.CallID)))
	if s.o.LogContent {
		span.SetAttributes(attribute.String("coder.tool.args", clip(e.Args)))
	}
	sc.tools[e.CallID] = openTool{name: e.Name, span: span, start: time.Now()}
}

func (s *sink) endTool(sc *scope, e event.ToolFinished) {
	outcome := "ok"
	t, started := sc.tools[e.CallID]
	delete(sc.tools, e.CallID)
	switch {
	case !started:
		outcome = "refused" // denied, malformed or not run: it never started
		_, t.span = s.tr.Start(sc.callCtx, e.Name, trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("gen_ai.tool.name", e.Name),
			attribute.String("gen_ai.tool.call.id", e.CallID)))
		t.start = time.Now()
	case !e.OK:
		outcome = "failed"
	}
	ctx := context.Background()
	tool := attribute.String("tool.name", e.Name)
	s.inst.toolCalls.Add(ctx, 1, metric.WithAttributes(tool, attribute.String("outcome", outcome)))
	if started {
		s.inst.toolTime.Record(ctx, time.Since(t.start).Seconds(), metric.WithAttributes(tool))
	}
	if e.SandboxRefused {
		s.inst.refusals.Add(ctx, 1, metric.WithAttributes(tool))
		t.span.SetAttributes(attribute.Bool("coder.sandbox.refused", true))
	}
	t.span.SetAttributes(attribute.String("coder.tool.outcome", outcome))
	if s.o.LogContent {
		if !started {
			t.span.SetAttributes(attribute.String("coder.tool.args", clip(e.Args)))
		}
		t.span.SetAttributes(attribute.String("coder.tool.result", clip(e.Result)))
	}
	if outcome != "ok" {
		t.span.SetStatus(codes.Error, e.Summary)
	}
	t.span.End()
}

func (s *sink) endTurn(e event.TurnFinished) {
	s.inst.turns.Add(context.Background(), 1, metric.WithAttributes(attribute.String("state", string(e.State))))
	// What the turn left open (a cancel mid-call) ends with it.
	for _, sc := range s.scopes {
		for id, t := range sc.tools {
			t.span.SetStatus(codes.Error, "interrupted")
			t.span.End()
			delete(sc.tools, id)
		}
		if sc.call != nil {
			sc.call.SetStatus(codes.Error, "interrupted")
			sc.call.End()
			sc.call = nil
		}
	}
	s.scopes = map[string]*scope{}
	if s.turn == nil {
		return
	}
	s.turn.SetAttributes(attribute.String("coder.turn.state", string(e.State)), attribute.Int("coder.turn.steps", e.Steps),
		attribute.Int("gen_ai.usage.input_tokens", e.Usage.PromptTokens()), attribute.Int("gen_ai.usage.output_tokens", e.Usage.OutputTokens))
	if s.o.LogContent {
		s.turn.SetAttributes(attribute.String("coder.result", clip(e.Result)))
	}
	if e.State != event.StateCompleted {
		s.turn.SetStatus(codes.Error, e.Reason)
	}
	s.turn.End()
	s.turn, s.turnCtx = nil, nil
}

// clip bounds exported content, cutting on a character boundary.
func clip(s string) string {
	if len(s) <= contentLimit {
		return s
	}
	cut := contentLimit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…[truncated]"
}
