package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/plural"
	"github.com/coder-agent/coder/internal/tools"
)

// VerifyOptions are the workflow settings auto-verify follows.
type VerifyOptions struct {
	Enabled     bool
	MaxAttempts int
	// Commands are the configured verify commands; the first non-empty wins.
	Commands []string
}

// verifyWhitelist is every command auto-verify may run: the usual test
// commands of each ecosystem, nothing configurable into arbitrary code.
var verifyWhitelist = []string{
	"go test ./...",
	"pytest -q",
	"npm test -- --watch=false",
	"pnpm test -- --watch=false",
	"yarn test --watch=false",
	"cargo test",
	"mvn -q test",
	"gradle test",
	"./gradlew test",
}

// verifyDecision is whether to verify now, and if not, the line to report
// (empty when there is nothing worth saying, e.g. no edits).
type verifyDecision struct {
	run  bool
	line string
}

// verifyInput is what the trigger decision looks at.
type verifyInput struct {
	edited      []string
	enabled     bool
	bashEnabled bool
	mode        agent.Mode
	attempts    int
	maxAttempts int
}

// decideVerify is the trigger rule: this turn edited files with
// write/edit/patch, not only documentation, auto-verify is on, bash is
// available, the mode is build and attempts remain.
func decideVerify(in verifyInput) verifyDecision {
	switch {
	case len(in.edited) == 0 || allDocs(in.edited) || in.mode != agent.Build:
		return verifyDecision{}
	case !in.enabled:
		return verifyDecision{line: "not verified: auto-verify is off (workflow.auto_verify_after_edit)"}
	case !in.bashEnabled:
		return verifyDecision{line: "not verified: bash is not available in this mode"}
	case in.attempts >= in.maxAttempts:
		return verifyDecision{}
	}
	return verifyDecision{run: true}
}

// allDocs reports whether every path is documentation.
func allDocs(paths []string) bool {
	for _, p := range paths {
		p = filepath.ToSlash(p)
		ext := strings.ToLower(filepath.Ext(p))
		docExt := ext == ".md" || ext == ".mdx" || ext == ".txt" || ext == ".rst" || ext == ".adoc"
		if !docExt && !strings.HasPrefix(p, "docs/") && !strings.Contains(p, "/docs/") {
			return false
		}
	}
	return true
}

// chooseVerifyCommand picks the command: the first configured one, else one
// guessed from the project files. Only whitelisted commands may run; the
// error says why none will.
func chooseVerifyCommand(workspace string, configured []string) (string, error) {
	cmd := ""
	for _, c := range configured {
		if c = strings.TrimSpace(c); c != "" {
			cmd = c
			break
		}
	}
	if cmd == "" {
		cmd = guessVerifyCommand(workspace)
	}
	if cmd == "" {
		return "", fmt.Errorf("no verify command: none configured (workflow.verify_commands) and no known project file")
	}
	if !slices.Contains(verifyWhitelist, cmd) {
		return "", fmt.Errorf("verify command %q is not on the whitelist (%s)", cmd, strings.Join(verifyWhitelist, ", "))
	}
	return cmd, nil
}

func guessVerifyCommand(ws string) string {
	has := func(name string) bool { _, err := os.Stat(filepath.Join(ws, name)); return err == nil }
	switch {
	case has("go.mod"):
		return "go test ./..."
	case has("pyproject.toml"), has("pytest.ini"), has("requirements.txt"):
		return "pytest -q"
	case has("package.json"):
		return "npm test -- --watch=false"
	case has("Cargo.toml"):
		return "cargo test"
	case has("pom.xml"):
		return "mvn -q test"
	case has("gradlew"):
		return "./gradlew test"
	case has("build.gradle"), has("build.gradle.kts"):
		return "gradle test"
	}
	return ""
}

// trimOutput keeps the end of a long verify output (where failures are
// summarised) within max bytes.
func trimOutput(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := len(s) - max
	if i := strings.IndexByte(s[cut:], '\n'); i >= 0 && i < 200 {
		cut += i + 1
	}
	return "…(earlier output trimmed)\n" + s[cut:]
}

// autoVerifyStep runs after a model message without tool calls. It returns
// again=true when it injected a fix request and the loop must go on. The
// verification line it leaves in ts is written from what was observed, so
// the model cannot claim a pass that did not happen.
func (o *Orchestrator) autoVerifyStep(ctx context.Context, ts *turnState) (again bool, err error) {
	v := o.opts.Workflow.Verify
	_, hasBash := o.tools.Get(tools.Bash)
	d := decideVerify(verifyInput{
		edited: ts.edited, enabled: v.Enabled, bashEnabled: hasBash && o.enabled(tools.Bash),
		mode: o.agent.Mode, attempts: ts.verifyAttempts, maxAttempts: v.MaxAttempts,
	})
	if !d.run {
		if d.line != "" && v.Enabled {
			d.line = withLSP(d.line, o.lspLine(ctx, ts))
		}
		if d.line != "" {
			ts.verification = d.line
		}
		return false, nil
	}
	cmd, err := chooseVerifyCommand(o.opts.Workspace, v.Commands)
	if err != nil {
		ts.verification = withLSP("not verified: "+err.Error(), o.lspLine(ctx, ts))
		return false, nil
	}
	ts.verifyAttempts++
	o.emit(event.Notice{Text: fmt.Sprintf("auto-verify: %s (attempt %d of %d)", cmd, ts.verifyAttempts, v.MaxAttempts)})
	o.emit(event.Progress{Phase: event.PhaseVerifying, Detail: cmd, Attempt: ts.verifyAttempts})
	a := o.admit(ctx, ts, o.bashCall(fmt.Sprintf("verify_%s_%d", ts.runID, ts.verifyAttempts), cmd))
	if a.refused != nil {
		ts.verification = "not verified: " + a.refused.Summary
		return false, ctx.Err()
	}
	if err := o.execute(ctx, a, ts); err != nil {
		return false, err
	}
	if ctx.Err() != nil {
		ts.verification = "not verified: cancelled"
		return false, ctx.Err()
	}
	r := a.result.Bash
	if r == nil { // the call failed before running
		ts.verification = "not verified: " + a.result.Summary
		return false, nil
	}
	if r.ExitCode == 0 && r.Error == "" {
		ts.verification = withLSP(fmt.Sprintf("verified: %s (exit 0)", cmd), o.lspLine(ctx, ts))
		return false, nil
	}
	ts.verification = fmt.Sprintf("not verified: %s (exit %d) after %s", cmd, r.ExitCode, plural.Count(ts.verifyAttempts, "attempt", "attempts"))
	if ts.verifyAttempts >= v.MaxAttempts {
		ts.verification = withLSP(ts.verification, o.lspLine(ctx, ts))
		return false, nil
	}
	fix := fmt.Sprintf("[auto-verify] `%s` failed (exit %d). Fix the cause; verification runs again when you stop.\n\n%s",
		cmd, r.ExitCode, trimOutput(strings.TrimSpace(r.Stdout+"\n"+r.Stderr), 4000))
	return true, o.conv.append(ctx, chat.Message{Role: chat.RoleUser, Content: fix})
}

// withLSP adds the language servers' word (lspLine) to a verification
// line: "verified: go test ./... (exit 0), LSP clean". Errors they report
// do not fail a verification the tests passed (a server may lack the
// project's environment), but they are said.
func withLSP(line, lsp string) string {
	switch {
	case lsp == "":
		return line
	case lsp == "LSP clean" && verified(line):
		return line + ", " + lsp
	}
	return line + "; " + lsp
}
