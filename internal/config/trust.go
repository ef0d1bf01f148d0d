package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Workspace trust, bound to content. A repository can carry control files
// — .coder/config.json, .mcp.json, .claude/settings.json and
// .claude/settings.local.json — and so can a model that writes files.
// Settings there that widen what coder may do (looser permissions,
// unattended approvals, another workspace root, where the API key is sent,
// servers (MCP, language) and hooks that start programs, sandbox and fetch exceptions)
// apply only from a file whose content the person trusted: confirmed at
// the REPL's question (or coder's own write of the person's answer, see
// ProjectWriter), recorded by hash in the user config directory
// (trust.json), or trusted for one run with --trust. A control file that
// appears or changes later — by the model or anyone — loses those settings
// until the person confirms it again; a sub-directory's own control files
// are not covered by its parent's. Elsewhere the widening settings are
// dropped before merging, and named once. Settings that narrow (a stricter
// preset, deny and ask rules) always apply.
//
// trusted_workspaces, the older form (a directory the person trusts),
// still counts once: the first run in that very directory records its
// control files as they stand, and from then on it is content as above.

// controlFile is a control file of this run as Load read it.
type controlFile struct {
	key     string // absolute, through the canonical run directory
	rel     string // relative to the run directory, for people
	hash    string
	trusted bool
}

// UntrustedFile is a control file whose widening settings were ignored.
type UntrustedFile struct {
	Rel string
	// Changed: the person trusted another content of this file before.
	Changed  bool
	Settings []string
}

// controlNames are the control files that apply to a run, relative to
// the directory it starts in.
var controlNames = []string{
	filepath.Join(".coder", "config.json"), ".mcp.json",
	filepath.Join(".claude", "settings.json"), filepath.Join(".claude", "settings.local.json"),
}

// trustState is what Load knows of the person's trust.
type trustState struct {
	flag    bool // --trust: every control file, this run only
	records trustRecords
	dir     string // the run directory, canonical
	files   []controlFile
}

// key is path's record key: its directory made canonical.
func (ts *trustState) key(path string) string {
	return filepath.Join(canonical(filepath.Dir(path)), filepath.Base(path))
}

// judge decides whether data, just read from the control file at path, is
// content the person trusted, and remembers the file for the question and
// for TrustControlFiles.
func (l *Loaded) judge(path string, data []byte) bool {
	ts := &l.trust
	key, hash := ts.key(path), contentHash(data)
	trusted := ts.flag || ts.records.Files[key] == hash
	rel, err := filepath.Rel(ts.dir, key)
	if err != nil {
		rel = key
	}
	ts.files = append(ts.files, controlFile{key: key, rel: rel, hash: hash, trusted: trusted})
	return trusted
}

// ignore notes settings of the control file at path (judged already)
// that were dropped because its content is not trusted. Ignored keeps
// them as people read them alone (".mcp.json servers (x)"); Untrusted,
// under their file.
func (l *Loaded) ignore(path string, settings ...string) {
	l.Ignored = append(l.Ignored, settings...)
	key := l.trust.key(path)
	rel := key
	for _, f := range l.trust.files {
		if f.key == key {
			rel = f.rel
		}
	}
	short := make([]string, len(settings))
	for i, s := range settings {
		short[i] = strings.TrimPrefix(s, rel+" ")
	}
	_, recorded := l.trust.records.Files[key]
	l.Untrusted = append(l.Untrusted, UntrustedFile{Rel: rel, Changed: recorded, Settings: short})
}

// TrustsContent reports whether data, read from the control file at path
// (absolute), is content the person trusted for this run: --trust, or
// exactly what they confirmed. Whoever reads a control file of their own
// (project hooks) asks this of the bytes they read.
func (l *Loaded) TrustsContent(path string, data []byte) bool {
	return l.trust.flag || l.trust.records.Files[l.trust.key(path)] == contentHash(data)
}

// adoptListed records, once, the control files of a run directory listed
// in trusted_workspaces as they stand: the older, directory-wide trust
// becomes trust in this content.
func (l *Loaded) adoptListed() error {
	ts := &l.trust
	if ts.flag || slices.Contains(ts.records.Adopted, ts.dir) {
		return nil
	}
	listed := false
	for _, d := range l.Config.TrustedWorkspaces {
		listed = listed || canonical(d) == ts.dir
	}
	if !listed {
		return nil
	}
	hashes := map[string]string{}
	for _, name := range controlNames {
		data, err := readFile(filepath.Join(ts.dir, name))
		if err != nil {
			return err
		}
		if data != nil {
			hashes[filepath.Join(ts.dir, name)] = contentHash(data)
		}
	}
	err := updateTrustRecords(l.UserDir, func(r *trustRecords) {
		maps.Copy(r.Files, hashes)
		r.Adopted = append(r.Adopted, ts.dir)
	})
	if err != nil {
		return err
	}
	maps.Copy(ts.records.Files, hashes)
	ts.records.Adopted = append(ts.records.Adopted, ts.dir)
	return nil
}

// TrustControlFiles records the control files of this run as Load read
// them as trusted (the REPL's "yes"): the next start applies them in full,
// until one of them changes. A control file absent now loses any older
// record, so it needs the person again if it appears.
func (l *Loaded) TrustControlFiles() error {
	ts := &l.trust
	return updateTrustRecords(l.UserDir, func(r *trustRecords) {
		for _, name := range controlNames {
			delete(r.Files, filepath.Join(ts.dir, name))
		}
		for _, f := range ts.files {
			r.Files[f.key] = f.hash
		}
		r.Adopted = append(r.Adopted, ts.dir)
	})
}

// TrustFile is where the person's trust is recorded.
func (l *Loaded) TrustFile() string { return filepath.Join(l.UserDir, trustFileName) }

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
	drop("lsp", "servers", "lsp.servers")
	drop("fetch", "allow_hosts", "fetch.allow_hosts")
	dropped = append(dropped, dropLooserApproval(raw)...)
	dropped = append(dropped, dropLooserPermission(raw)...)
	dropped = append(dropped, dropLooserAgentPresets(raw)...)
	return dropped
}

// dropLooserAgentPresets drops a custom agent's preset looser than the
// default: switching to the agent puts it in force, as permission.preset.
func dropLooserAgentPresets(raw map[string]any) []string {
	a, _ := raw["agents"].(map[string]any)
	defs, _ := a["definitions"].([]any)
	var dropped []string
	for i, d := range defs {
		m, _ := d.(map[string]any)
		if s, ok := m["permission_preset"].(string); ok && slices.Contains(looserPresets, s) {
			delete(m, "permission_preset")
			dropped = append(dropped, fmt.Sprintf("agents.definitions[%d].permission_preset (%s)", i, s))
		}
	}
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

// UntrustedNotice says which control files are not trusted as they are
// and what they asked for and did not get, or "" when nothing was ignored.
func (l *Loaded) UntrustedNotice() string {
	if len(l.Untrusted) == 0 {
		return ""
	}
	return "these control files are not trusted as they are now, so their settings that widen what coder may do were ignored: " +
		strings.Join(l.UntrustedLines(), "; ") + ". Trust them with --trust, or answer yes when the interactive session asks."
}

// UntrustedLines describe each untrusted control file: its path, whether
// it changed since the person trusted it, and the settings ignored.
func (l *Loaded) UntrustedLines() []string {
	lines := make([]string, len(l.Untrusted))
	for i, u := range l.Untrusted {
		state := "not trusted yet"
		if u.Changed {
			state = "changed since you trusted it"
		}
		lines[i] = fmt.Sprintf("%s (%s): %s", u.Rel, state, strings.Join(u.Settings, ", "))
	}
	return lines
}

func canonical(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
