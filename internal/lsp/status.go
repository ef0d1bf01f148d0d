package lsp

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// Describe is /lsp: each configured server and its state, the latest
// problems in the files the session showed them, and how to install the
// usual servers when none is there.
func (m *Manager) Describe() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	if len(m.opts.Servers) == 0 {
		return "no language servers are configured (lsp.servers)"
	}
	b.WriteString("Language servers (a server starts when a file it checks is first edited):\n")
	installed := false
	for _, spec := range m.opts.Servers {
		state := m.stateLocked(spec)
		if !strings.HasPrefix(state, "not installed") {
			installed = true
		}
		fmt.Fprintf(&b, "  %-16s %s  [%s]\n", spec.Name, state, strings.Join(spec.Patterns, " "))
	}
	if !installed {
		b.WriteString("\nNo language server is installed, so edits are not checked. Install one and start a new coder session:\n")
		for _, spec := range m.opts.Servers {
			if hint, ok := installHint(spec.Command); ok {
				fmt.Fprintf(&b, "  %-16s %s\n", spec.Name, hint)
			}
		}
	}
	m.describeFilesLocked(&b)
	return strings.TrimRight(b.String(), "\n")
}

// stateLocked words one server's state.
func (m *Manager) stateLocked(spec Spec) string {
	s := m.servers[spec.Name]
	if s == nil {
		if _, err := m.opts.LookPath(spec.Command); err != nil {
			hint := ""
			if h, ok := installHint(spec.Command); ok {
				hint = ": " + h
			}
			return fmt.Sprintf("not installed (%s not found on PATH%s)", spec.Command, hint)
		}
		return "not started"
	}
	switch s.state {
	case stateMissing:
		return "not installed (" + s.reason + ")"
	case stateStarting:
		return fmt.Sprintf("starting (for %s)", time.Since(s.started).Round(time.Second))
	case stateRunning:
		return fmt.Sprintf("running, %d open", len(s.docs)) + map[bool]string{true: " file", false: " files"}[len(s.docs) == 1]
	case stateFailed:
		return "failed: " + s.reason
	}
	return "stopped"
}

// describeFilesLocked lists the latest problems of the files shown to
// servers.
func (m *Manager) describeFilesLocked(b *strings.Builder) {
	type entry struct {
		rel   string
		probs []problem
		got   bool
	}
	var files []entry
	for _, s := range m.servers {
		for _, d := range s.docs {
			files = append(files, entry{d.rel, d.last, d.res.got})
		}
	}
	if len(files) == 0 {
		return
	}
	slices.SortFunc(files, func(a, b entry) int { return cmpString(a.rel, b.rel) })
	b.WriteString("\nLast diagnostics:\n")
	for _, f := range files {
		switch {
		case !f.got:
			fmt.Fprintf(b, "  %s: no answer yet\n", f.rel)
		case len(f.probs) == 0:
			fmt.Fprintf(b, "  %s: clean\n", f.rel)
		default:
			fmt.Fprintf(b, "  %s: %s\n", f.rel, count(f.probs, ""))
			for i, p := range f.probs {
				if i == maxPerFile {
					fmt.Fprintf(b, "    … and %d more\n", len(f.probs)-maxPerFile)
					break
				}
				fmt.Fprintf(b, "    %d:%d %s: %s\n", p.Line+1, column(p.Text, p.Col), severityWord(p), clip(strings.ReplaceAll(p.Message, "\n", " "), maxMessage))
			}
		}
	}
}

func severityWord(p problem) string {
	switch p.Severity {
	case protocol.SeverityError:
		return "error"
	case protocol.SeverityWarning:
		return "warning"
	case protocol.SeverityInformation:
		return "info"
	}
	return "hint"
}
