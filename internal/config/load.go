package config

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// EnvFunc looks up an environment variable, like os.LookupEnv.
type EnvFunc = func(string) (string, bool)

// ProbeFunc asks a local Ollama server at baseURL (no /v1) which models it has;
// ok is false when nothing answers.
type ProbeFunc = func(ctx context.Context, baseURL string) (model string, ok bool)

// Options say where Load looks. Zero values mean the real environment.
type Options struct {
	// Cwd is the directory coder was started in; "" = os.Getwd. Flags.Cwd, when
	// set, is resolved against it.
	Cwd string
	// UserConfigDir holds the user config.json; "" = $XDG_CONFIG_HOME/coder or
	// ~/.config/coder.
	UserConfigDir string
	// Env looks up environment variables; nil = os.LookupEnv.
	Env EnvFunc
	// Flags are the command-line overrides, applied last.
	Flags Overrides
	// ProbeOllama is used by ResolveProvider when nothing is configured
	// (ollama.Probe); nil looks for none.
	ProbeOllama ProbeFunc
}

// Overrides are the per-run command-line flags. An empty string means not set.
type Overrides struct {
	Model       string // --model: wins over every file and CODER_MODEL
	Mode        string // --mode: agents.default
	Permissions string // --permissions: permission.preset
	Cwd         string // --cwd: the directory whose .coder/config.json is read
	// Trust trusts the workspace for this run (--trust).
	Trust bool
	// BudgetUSD is --max-budget-usd: budget.usd; 0 means not set.
	BudgetUSD float64
}

// Loaded is the effective configuration and where it came from.
type Loaded struct {
	Config Config
	// Provider is the zero value until ResolveProvider is called: resolving may
	// probe the network and fail, which `coder sessions` and friends never need.
	Provider ResolvedProvider
	// Files are the config files read, in merge order.
	Files []string
	// ProjectFile is <cwd>/.coder/config.json, whether or not it exists; /model
	// and the allowlist are saved there.
	ProjectFile string
	UserDir     string // the user config directory (rules files live there too)
	Cwd         string // absolute
	// Trusted: every control file of this run is trusted as it is (or
	// there is none), so its settings that widen what coder may do apply.
	// Ignored names the settings dropped; Untrusted, the files they came
	// from (trust.go).
	Trusted   bool
	Ignored   []string
	Untrusted []UntrustedFile

	trust   trustState
	env     EnvFunc
	probe   ProbeFunc
	origins map[string]origin
}

// origin is where a key's value came from: a file, or an env var / flag name.
type origin struct{ file, other string }

// Load merges defaults, the user file, the project's .mcp.json and
// .coder/config.json, environment variables and flags (later wins), then
// validates the result. Hooks add up instead, the project's (also those of
// .claude/settings.json and settings.local.json) only in a trusted workspace. A later layer that picks a different
// provider type or profile drops the earlier layers' endpoint, key and model
// (resetOnSwitch). runtime.workspace_root comes back absolute (default: Cwd).
func Load(opts Options) (*Loaded, error) {
	env := opts.Env
	if env == nil {
		env = os.LookupEnv
	}
	cwd, err := resolveCwd(opts.Cwd, opts.Flags.Cwd)
	if err != nil {
		return nil, err
	}
	userDir := opts.UserConfigDir
	if userDir == "" {
		userDir = defaultUserDir(env)
	}
	l := &Loaded{
		Config:      Defaults(),
		ProjectFile: filepath.Join(cwd, ".coder", "config.json"),
		UserDir:     userDir,
		Cwd:         cwd,
		env:         env,
		probe:       opts.ProbeOllama,
		origins:     map[string]origin{},
	}
	userErr := l.mergeFile(filepath.Join(userDir, "config.json"), false)
	// Trust is the user's to give: content they confirmed (trust.json, in
	// their config directory), or the --trust flag.
	records, recErr := readTrustRecords(userDir)
	l.trust = trustState{flag: opts.Flags.Trust, records: records, dir: canonical(cwd)}
	if userErr == nil && recErr == nil {
		recErr = l.adoptListed()
	}
	errs := []error{
		userErr, recErr,
		l.mergeMCPJSON(filepath.Join(cwd, ".mcp.json")),
		l.mergeFile(l.ProjectFile, true),
		l.mergeClaudeHooks(filepath.Join(cwd, ".claude", "settings.json")),
		l.mergeClaudeHooks(filepath.Join(cwd, ".claude", "settings.local.json")),
	}
	errs = append(errs, l.mergeClaudeUserHooks())
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	l.Trusted = !slices.ContainsFunc(l.trust.files, func(f controlFile) bool { return !f.trusted })
	if err := l.applyEnv(); err != nil {
		return nil, err
	}
	l.applyFlags(opts.Flags)
	l.Config.Runtime.WorkspaceRoot = absPath(l.Config.Runtime.WorkspaceRoot, cwd, env)
	if problems := validate(l.Config); len(problems) > 0 {
		return nil, l.attribute(problems)
	}
	return l, nil
}

// ResolveProvider resolves the provider (see the package-level ResolveProvider),
// stores it in l.Provider and names the file or variable that supplied the key.
func (l *Loaded) ResolveProvider(ctx context.Context) (ResolvedProvider, error) {
	rp, err := ResolveProvider(ctx, l.Config, l.env, l.probe)
	if err != nil {
		return rp, err
	}
	if o, ok := l.origins["provider.api_key"]; ok && rp.Source == "config" && l.Config.Provider.APIKey != "" {
		rp.Source = o.label()
	}
	l.Provider = rp
	return rp, nil
}

// Source says where key (dotted, e.g. "runtime.max_steps") got its value:
// "config <file>", "env <VAR>", "flag --<name>" or "default".
func (l *Loaded) Source(key string) string {
	if o, ok := l.originOf(key); ok {
		return o.label()
	}
	return "default"
}

// FromFlag says whether key was set on the command line.
func (l *Loaded) FromFlag(key string) bool {
	o, ok := l.originOf(key)
	return ok && o.file == "" && strings.HasPrefix(o.other, "-")
}

func (o origin) label() string {
	switch {
	case o.file != "":
		return "config " + o.file
	case strings.HasPrefix(o.other, "-"):
		return "flag " + o.other
	default:
		return "env " + o.other
	}
}

// mergeFile decodes one config file on top of l.Config: maps merge, lists and
// scalars replace. Unknown keys and wrongly typed values are errors. A
// project file whose content is not trusted loses its widening settings
// first (dropWidening).
func (l *Loaded) mergeFile(path string, project bool) error {
	data, err := readFile(path)
	if err != nil || data == nil {
		return err
	}
	untrusted := project && !l.judge(path, data)
	raw, err := parseObject(path, data)
	if err != nil {
		return err
	}
	c := &checker{file: path, strict: true, root: reflect.TypeFor[Config]()}
	c.walk("", raw, c.root)
	if len(c.errs) > 0 {
		return errors.Join(c.errs...)
	}
	if untrusted {
		if dropped := dropWidening(raw); len(dropped) > 0 {
			l.ignore(path, dropped...)
			if data, err = json.Marshal(raw); err != nil {
				return &FileError{File: path, Problem: err.Error()}
			}
		}
	}
	var keys []string
	(&checker{file: path, strict: true, root: c.root, seen: func(k string) { keys = append(keys, k) }}).walk("", raw, c.root)
	resetOnSwitch(&l.Config.Provider, raw)
	prevHooks, prevServers := l.Config.Hooks, l.Config.LSP.Servers
	l.Config.Hooks, l.Config.LSP.Servers = Hooks{}, nil
	if err := decodeInto(path, data, raw, &l.Config); err != nil {
		return err
	}
	l.addHooks(prevHooks, path)
	l.mergeLSPServers(prevServers, raw)
	for _, k := range keys {
		l.origins[k] = origin{file: path}
	}
	l.Files = append(l.Files, path)
	return nil
}

// readForeign reads another tool's JSON file (a .mcp.json, Claude Code's
// settings) into T: the keys T declares are checked, the rest skipped.
// found is false when there is no such file; data is what was read.
func readForeign[T any](path string) (f T, data []byte, found bool, err error) {
	data, err = readFile(path)
	if err != nil || data == nil {
		return f, nil, false, err
	}
	raw, err := parseObject(path, data)
	if err != nil {
		return f, nil, false, err
	}
	c := &checker{file: path, root: reflect.TypeFor[T]()}
	if c.walk("", raw, c.root); len(c.errs) > 0 {
		return f, nil, false, errors.Join(c.errs...)
	}
	err = decodeInto(path, data, raw, &f)
	return f, data, err == nil, err
}

// mcpJSON is the shape of a Claude Code style project .mcp.json.
type mcpJSON struct {
	MCPServers map[string]MCPServer `json:"mcpServers"`
}

// mergeMCPJSON adds the servers of a project .mcp.json. It is another tool's
// file, so keys we do not know are skipped rather than rejected.
func (l *Loaded) mergeMCPJSON(path string) error {
	f, data, found, err := readForeign[mcpJSON](path)
	if !found {
		return err
	}
	if !l.judge(path, data) && len(f.MCPServers) > 0 {
		names := slices.Sorted(maps.Keys(f.MCPServers))
		l.ignore(path, ".mcp.json servers ("+strings.Join(names, ", ")+")")
		return nil
	}
	if l.Config.MCP.Servers == nil && len(f.MCPServers) > 0 {
		l.Config.MCP.Servers = map[string]MCPServer{}
	}
	for name, s := range f.MCPServers {
		l.Config.MCP.Servers[name] = s
		l.origins["mcp.servers."+name] = origin{file: path}
	}
	l.Files = append(l.Files, path)
	return nil
}

// decodeInto decodes a checked file on top of dst. A whitespace-only file
// parsed as an empty object, but json.Unmarshal would call it EOF.
func decodeInto(path string, data []byte, raw map[string]any, dst any) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return &FileError{File: path, Problem: err.Error()}
	}
	return nil
}

// originOf finds who set key or its nearest parent ("permission.bash[2].action"
// → "permission.bash[2]" → "permission.bash" → "permission").
func (l *Loaded) originOf(key string) (origin, bool) {
	for key != "" {
		if o, ok := l.origins[key]; ok {
			return o, true
		}
		key = key[:max(strings.LastIndexAny(key, ".["), 0)]
	}
	return origin{}, false
}

// attribute names the file, variable or flag behind each validation problem.
func (l *Loaded) attribute(problems []*FileError) error {
	errs := make([]error, len(problems))
	for i, p := range problems {
		if o, ok := l.originOf(p.Key); ok {
			p.File, p.Source = o.file, o.other
		}
		errs[i] = p
	}
	return errors.Join(errs...)
}

func resolveCwd(base, flag string) (string, error) {
	if base == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("cannot determine the current directory: %w", err)
		}
		base = wd
	}
	dir := base
	if flag != "" {
		dir = flag
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(base, dir)
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--cwd %s: %w", flag, err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("working directory %s: not an existing directory", dir)
	}
	return dir, nil
}

func defaultUserDir(env EnvFunc) string {
	if x, ok := env("XDG_CONFIG_HOME"); ok && x != "" {
		return filepath.Join(x, "coder")
	}
	return filepath.Join(homeDir(env), ".config", "coder")
}

func homeDir(env EnvFunc) string {
	if h, ok := env("HOME"); ok && h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// absPath makes a configured path absolute: "" means dir itself, "~/" the home
// directory, and a relative path is relative to dir.
func absPath(p, dir string, env EnvFunc) string {
	switch {
	case p == "":
		return dir
	case p == "~" || strings.HasPrefix(p, "~/"):
		return filepath.Join(homeDir(env), p[1:])
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	default:
		return filepath.Join(dir, p)
	}
}
