package permission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// What a rule's pattern is matched against, per tool.

var fileTools = set("read", "write", "edit", "patch", "list", "glob", "grep")

func isFileTool(tool string) bool { return fileTools[tool] }

// bashVerdicts judges every simple command of the command line; an
// unparseable line is one command whose name is unknown, so only
// catch-all rules match it.
func (e *Engine) bashVerdicts(c Call, rs, guard []compiledRule) []verdict {
	var args struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(c.Args, &args); err != nil {
		return []verdict{{action: Ask, subject: "", rule: compiledRule{Rule: Rule{Source: "arguments could not be read"}}}}
	}
	a := newAnalyzer(AnalyzeOptions{Workspace: e.workspace})
	a.source(args.Command, ctx{}, 0)
	cmds := a.cmds
	if a.parseErr != "" || len(cmds) == 0 {
		cmds = []simpleCmd{{words: []word{unknownWord(args.Command)}, writes: a.writes}}
		if a.parseErr == "" && !a.writes { // "", "x=1", comments: nothing runs
			cmds[0].words = nil
		}
	}
	whole := normalize(args.Command)
	vs := make([]verdict, 0, len(cmds))
	for _, cmd := range cmds {
		match := func(r compiledRule) bool { return r.matchCommand(cmd, whole) }
		subject := joinWords(cmd.words)
		if len(cmds) == 1 {
			subject = strings.TrimSpace(args.Command)
		}
		vs = append(vs, judge("bash", subject, rs, guard, match))
	}
	return vs
}

// pathVerdicts judges every path a file tool touches.
func (e *Engine) pathVerdicts(c Call, rs, guard []compiledRule) []verdict {
	paths := filePaths(c.Tool, c.Args)
	if len(paths) == 0 {
		paths = []string{""}
	}
	vs := make([]verdict, 0, len(paths))
	for _, p := range paths {
		rel, abs := e.relAbs(p)
		match := func(r compiledRule) bool {
			if p == "" {
				return r.anyPattern()
			}
			return r.matchPath(rel, abs)
		}
		vs = append(vs, judge(c.Tool, p, rs, guard, match))
	}
	return vs
}

// relAbs returns p relative to the workspace ("" when outside it) and
// absolute, both cleaned.
func (e *Engine) relAbs(p string) (rel, abs string) {
	if p == "" {
		return "", ""
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = home + p[1:]
		}
	}
	abs = p
	if !filepath.IsAbs(p) {
		abs = filepath.Join(e.workspace, p)
	}
	abs = filepath.Clean(abs)
	if r, err := filepath.Rel(e.workspace, abs); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
		rel = filepath.ToSlash(r)
	}
	return rel, abs
}

// filePaths reads the paths a file tool's arguments name. Search tools
// without a path work on the workspace root.
func filePaths(tool string, raw json.RawMessage) []string {
	var args map[string]any
	if json.Unmarshal(raw, &args) != nil {
		return nil
	}
	var out []string
	for _, k := range []string{"path", "file_path", "filePath"} {
		if s, ok := args[k].(string); ok && s != "" {
			out = append(out, s)
		}
	}
	if tool == "patch" {
		for _, k := range []string{"patch", "input", "patch_text", "patchText"} {
			if s, ok := args[k].(string); ok {
				out = append(out, patchPaths(s)...)
			}
		}
	}
	if len(out) == 0 && (tool == "list" || tool == "glob" || tool == "grep") {
		out = []string{"."}
	}
	return out
}

// patchPaths lists the files of a "*** Begin Patch" envelope.
func patchPaths(patch string) []string {
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimSpace(line)
		for _, pre := range []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"} {
			if strings.HasPrefix(line, pre) {
				out = append(out, strings.TrimSpace(strings.TrimPrefix(line, pre)))
			}
		}
	}
	return out
}

// otherSubject is what a non-file tool's patterns match: its URL, name
// or agent.
func otherSubject(raw json.RawMessage) string {
	var args map[string]any
	if json.Unmarshal(raw, &args) != nil {
		return ""
	}
	for _, k := range []string{"url", "name", "skill", "agent", "subagent_type"} {
		if s, ok := args[k].(string); ok {
			return s
		}
	}
	return ""
}
