package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/telemetry"
	"github.com/coder-agent/coder/internal/termsafe"
	"github.com/coder-agent/coder/internal/version"
)

// exportState is the process's OpenTelemetry export. It belongs to the process,
// not to a session (coder acp and coder mcp serve run many sessions, and
// all of them export through one pipeline), so it lives here, at the
// composition root: started by the first assembly whose configuration
// enables telemetry, shut down (flushed) when Run returns. Until then it
// is a zero value: with telemetry off nothing is built and nothing runs.
var exportState struct {
	mu       sync.Mutex
	tried    bool
	pipeline *telemetry.Pipeline
	warnings []string
}

// telemetrySink is the session's telemetry consumer, nil when telemetry
// is off or could not start; warnings say what to tell the person.
func telemetrySink(ctx context.Context, cfg config.Telemetry, price func(string, chat.Usage) (float64, bool)) (event.Sink, []string) {
	if !cfg.Enabled {
		return nil, nil
	}
	exportState.mu.Lock()
	defer exportState.mu.Unlock()
	var warnings []string
	if !exportState.tried {
		exportState.tried = true
		p, err := telemetry.Start(ctx, version.Version, os.LookupEnv)
		if err != nil {
			exportState.warnings = append(exportState.warnings, "telemetry is off: "+err.Error())
		}
		if p != nil {
			exportState.warnings = append(exportState.warnings, p.Warnings...)
		}
		exportState.pipeline = p
		warnings = exportState.warnings // told once, by the first session
	}
	if exportState.pipeline == nil {
		return nil, warnings
	}
	return exportState.pipeline.Sink(telemetry.SinkOptions{LogContent: cfg.LogContent, Price: price}), warnings
}

// closeTelemetry sends what the pipeline holds, within a bound, and says
// on errOut if exports failed.
func closeTelemetry(errOut io.Writer) {
	exportState.mu.Lock()
	p := exportState.pipeline
	exportState.pipeline = nil
	exportState.mu.Unlock()
	if p == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), telemetry.ShutdownTimeout)
	defer cancel()
	if err := p.Shutdown(ctx); err != nil {
		fmt.Fprintln(errOut, "coder: "+termsafe.Visible(err.Error()))
	}
}

// teeSink hands every event to the front end, then to telemetry.
type teeSink struct{ front, telemetry event.Sink }

func (t teeSink) Emit(e event.Event) {
	t.front.Emit(e)
	t.telemetry.Emit(e)
}
