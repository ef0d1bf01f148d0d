package tools

import (
	"errors"
	"fmt"

	"github.com/coder-agent/coder/internal/chat"
)

// Registry holds tools by name, in the order they were added.
type Registry struct {
	order []Tool
	index map[string]int
}

// NewRegistry returns a registry holding ts in order. It fails on a nil tool,
// an empty name or a name given twice.
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{index: map[string]int{}}
	for _, t := range ts {
		if err := r.Add(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Add appends t. A tool whose name is already taken is refused, never replaced.
func (r *Registry) Add(t Tool) error {
	if t == nil {
		return errors.New("tools: nil tool")
	}
	name := t.Name()
	if name == "" {
		return fmt.Errorf("tools: tool %T has an empty name", t)
	}
	if _, dup := r.index[name]; dup {
		return fmt.Errorf("tools: duplicate tool name %q", name)
	}
	r.index[name] = len(r.order)
	r.order = append(r.order, t)
	return nil
}

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	i, ok := r.index[name]
	if !ok {
		return nil, false
	}
	return r.order[i], true
}

// Names returns the tool names in order.
func (r *Registry) Names() []string {
	names := make([]string, len(r.order))
	for i, t := range r.order {
		names[i] = t.Name()
	}
	return names
}

// Tools returns the tools in order.
func (r *Registry) Tools() []Tool {
	return append([]Tool(nil), r.order...)
}

// Specs describes the tools for which enabled returns true (all when enabled
// is nil) to the model, in order.
func (r *Registry) Specs(enabled func(name string) bool) []chat.ToolSpec {
	var specs []chat.ToolSpec
	for _, t := range r.order {
		if enabled != nil && !enabled(t.Name()) {
			continue
		}
		specs = append(specs, chat.ToolSpec{
			Name:        t.Name(),
			Description: t.Description(),
			Parameters:  t.Schema(),
		})
	}
	return specs
}
