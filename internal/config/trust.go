package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Workspace trust. A repository can carry a .coder/config.json and a
// .mcp.json, and so can a model that writes files: settings there that widen
// what coder may do — looser permissions, unattended approvals, another
// workspace root, where the API key is sent, servers and hooks that start
// programs, sandbox and fetch exceptions — apply only in a workspace the
// person trusts (trusted_workspaces in the user config, the REPL's question,
// or --trust). Elsewhere they are dropped before merging, and named once.
// Settings that narrow (a stricter preset, deny and ask rules) always apply.

// Trusted reports whether dir is a trusted workspace: it is, or is inside,
// one of the user config's trusted_workspaces.
func Trusted(trusted []string, dir string) bool {
	dir = canonical(dir)
	for _, t := range trusted {
		t = canonical(t)
		if rel, err := filepath.Rel(t, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

func canonical(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// dropWidening removes from raw, a project config file, every setting that
// widens what coder may do, and returns them as people read them.
func dropWidening(raw map[string]any) []string {
	var dropped []string
	drop := func(section, key, shown string) {
		if m, ok := raw[section].(map[string]any); ok {
			if _, ok := m[key]; ok {
				delete(m, key)
				dropped = append(dropped, shown)
			}
		}
	}
	// telemetry: where a session's prompts and output may be sent.
	for _, whole := range []string{"sandbox", "hooks", "trusted_workspaces", "telemetry"} {
		if _, ok := raw[whole]; ok {
			delete(raw, whole)
			dropped = append(dropped, whole)
		}
	}
	drop("runtime", "workspace_root", "runtime.workspace_root")
	for _, k := range []string{"base_url", "headers", "api_key_env", "profiles"} {
		drop("provider", k, "provider."+k)
	}
	drop("mcp", "servers", "mcp.servers")
	drop("fetch", "allow_hosts", "fetch.allow_hosts")
	dropped = append(dropped, dropLooserApproval(raw)...)
	dropped = append(dropped, dropLooserPermission(raw)...)
	return dropped
}

// dropLooserApproval drops approval values that approve without a person.
func dropLooserApproval(raw map[string]any) []string {
	ap, ok := raw["approval"].(map[string]any)
	if !ok {
		return nil
	}
	var dropped []string
	for key, loose := range map[string]bool{"allow_danger": true, "auto_approve_ask": true, "interactive": false} {
		if v, ok := ap[key].(bool); ok && v == loose {
			delete(ap, key)
			dropped = append(dropped, fmt.Sprintf("approval.%s (%v)", key, v))
		}
	}
	sort.Strings(dropped)
	return dropped
}

// dropLooserPermission drops a preset looser than the default, an allow
// default, and every allow rule and allowlist entry; asks and denies stay.
func dropLooserPermission(raw map[string]any) []string {
	p, ok := raw["permission"].(map[string]any)
	if !ok {
		return nil
	}
	var dropped []string
	// Only the exact names validate, so a variant of a looser one fails
	// loading instead of slipping through.
	if s, ok := p["preset"].(string); ok && slices.Contains(looserPresets, s) {
		delete(p, "preset")
		dropped = append(dropped, "permission.preset ("+s+")")
	}
	if s, ok := p["default"].(string); ok && s == "allow" {
		delete(p, "default")
		dropped = append(dropped, "permission.default (allow)")
	}
	if tools, ok := p["tools"].(map[string]any); ok {
		for name, action := range tools {
			if action == "allow" {
				delete(tools, name)
				dropped = append(dropped, "permission.tools."+name+" (allow)")
			}
		}
	}
	if rules, ok := p["bash"].([]any); ok {
		kept := rules[:0:0]
		for _, r := range rules {
			if m, ok := r.(map[string]any); ok && m["action"] == "allow" {
				dropped = append(dropped, fmt.Sprintf("permission.bash %v (allow)", m["pattern"]))
				continue
			}
			kept = append(kept, r)
		}
		p["bash"] = kept
	}
	if list, ok := p["command_allowlist"].([]any); ok && len(list) > 0 {
		delete(p, "command_allowlist")
		dropped = append(dropped, fmt.Sprintf("permission.command_allowlist (%d commands)", len(list)))
	}
	slices.Sort(dropped)
	return dropped
}

// UntrustedNotice says what an untrusted workspace's project files asked
// for and did not get, or "" when nothing was ignored.
func (l *Loaded) UntrustedNotice() string {
	if l.Trusted || len(l.Ignored) == 0 {
		return ""
	}
	return "this workspace is not trusted, so its project settings that widen what coder may do were ignored: " +
		strings.Join(l.Ignored, ", ") + ". Trust it with --trust, or answer yes when the interactive session asks."
}

// TrustWorkspace adds dir to the user config's trusted_workspaces (the
// REPL's "yes" to its trust question).
func (l *Loaded) TrustWorkspace(dir string) error {
	return AppendProjectList(filepath.Join(l.UserDir, "config.json"), []string{"trusted_workspaces"}, canonical(dir))
}
