package permission

import (
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/agent/mode"
	"github.com/coder-agent/coder/internal/tools"
)

// Preset names, in order of trust. "build" and "plan" are accepted as
// preset names too: they switch the mode and use the balanced preset.
const (
	PresetStrict   = "strict"
	PresetBalanced = "balanced"
	PresetAutoEdit = "auto-edit"
	PresetYolo     = "yolo"
)

// Presets lists the preset names in order of trust.
var Presets = []string{PresetStrict, PresetBalanced, PresetAutoEdit, PresetYolo}

// ParsePreset resolves a preset name from config, --permissions or
// /permissions. m is set when the name is "build" or "plan" (the caller
// switches the mode too), "" otherwise. An empty name is the default,
// balanced.
func ParsePreset(name string) (preset string, m agent.Mode, err error) {
	if m = mode.OfPreset(name); m != "" {
		return PresetBalanced, m, nil
	}
	switch n := strings.ToLower(strings.TrimSpace(name)); n {
	case "":
		return PresetBalanced, "", nil
	case PresetStrict, PresetBalanced, PresetAutoEdit, PresetYolo:
		return n, "", nil
	case "auto_edit", "autoedit":
		return PresetAutoEdit, "", nil
	}
	return "", "", fmt.Errorf("unknown permission preset %q (want strict, balanced, auto-edit, yolo, build or plan)", name)
}

// defaultsSource names the catch-all rule every ruleset starts with.
const defaultsSource = "defaults"

// devCommands: balanced's allowlist beyond the read-only whitelist. These
// build, test and lint the project; they write only build output.
var devCommands = []string{
	"go test*", "go build*", "go vet*", "go mod download*", "go mod verify*", "go mod why*",
	"go mod graph*", "gofmt -l*", "gofmt -d*", "golangci-lint run*", "staticcheck*",
	"npm test*", "npm run test*", "npm run lint*", "npm run build*", "npm run typecheck*",
	"npm ls*", "yarn test*", "pnpm test*", "npx tsc --noEmit*", "tsc --noEmit*", "eslint*",
	"pytest*", "python -m pytest*", "python3 -m pytest*", "ruff check*", "mypy*",
	"cargo test*", "cargo build*", "cargo check*", "cargo clippy*",
	"make*", "mvn test*", "gradle test*", "./gradlew test*", "shellcheck*",
}

// autoEditCommands: auto-edit also allows commands that change files in
// the workspace the way an edit would (formatters, dependency updates,
// file moves, staging and committing). rm stays an ask: an edit can be
// undone, a deleted untracked file cannot.
var autoEditCommands = []string{
	"go mod tidy*", "go get*", "go generate*", "go fmt*", "go run*", "gofmt*", "goimports*",
	"npm install*", "npm ci*", "npm run*", "pnpm install*", "pnpm run*", "yarn install*",
	"yarn run*", "cargo fmt*", "cargo run*", "prettier*", "black*", "ruff format*",
	"mkdir*", "touch*", "cp*", "mv*", "sed -i*",
	"git add*", "git commit*", "git stash*", "git switch*", "git checkout -b*",
	"git restore --staged*", "git mv*",
}

// planGitDenied: git commands that change the repository are blocked in
// plan mode; their listing forms pass through the read-only whitelist.
var planGitDenied = []string{"git commit*", "git push*", "git pull*", "git fetch*", "git reset*",
	"git checkout*", "git switch*", "git merge*", "git rebase*", "git cherry-pick*",
	"git revert*", "git add*", "git rm*", "git mv*", "git clean*", "git restore*",
	"git stash*", "git apply*", "git am*", "git tag*", "git branch*", "git init*", "git clone*"}

// defaultRules come first: anything no later rule decides is asked.
func defaultRules() Ruleset {
	return Ruleset{{Tool: "*", Pattern: "*", Action: Ask, Source: defaultsSource}}
}

// presetRules returns a preset's ruleset over the known tools (their
// facts: what their calls change); the preset name must be valid.
func presetRules(preset string, known []knownTool) Ruleset {
	src := preset + " preset"
	if preset == PresetYolo {
		return Ruleset{{Tool: "*", Pattern: "*", Action: Allow, Source: src}}
	}
	var rs Ruleset
	add := func(tool, pattern string, a Action) {
		rs = append(rs, Rule{Tool: tool, Pattern: pattern, Action: a, Source: src})
	}
	trusted := Allow
	if preset == PresetStrict {
		trusted = Ask
	}
	for _, t := range known {
		switch {
		case t.facts.Effect == tools.EffectNone:
			add(t.name, "*", Allow)
		case t.facts.Effect.Changes():
			add(t.name, "*", trusted)
		}
	}
	// fetch reaches the network: balanced asks per site ("always"
	// remembers the host); auto-edit lets the model browse.
	fetch := Ask
	if preset == PresetAutoEdit {
		fetch = Allow
	}
	add(tools.Fetch, "*", fetch)
	add(tools.Bash, "*", Ask)
	add(tools.Bash, ReadOnlyPattern, Allow)
	if preset != PresetStrict {
		for _, p := range devCommands {
			add(tools.Bash, p, Allow)
		}
	}
	if preset == PresetAutoEdit {
		for _, p := range autoEditCommands {
			add(tools.Bash, p, Allow)
		}
	}
	return rs
}

const planSource = "plan mode"

// planRules is the plan agent's ruleset: nothing that changes the
// workspace runs without a person (the tools whose facts say they change it
// are denied); read-only commands run directly.
func planRules(known []knownTool) Ruleset {
	rs := Ruleset{}
	for _, t := range known {
		if t.facts.Effect.Changes() {
			rs = append(rs, Rule{Tool: t.name, Pattern: "*", Action: Deny, Source: planSource})
		}
	}
	rs = append(rs, Rule{Tool: tools.Bash, Pattern: "*", Action: Ask, Source: planSource})
	for _, p := range planGitDenied {
		rs = append(rs, Rule{Tool: tools.Bash, Pattern: p, Action: Deny, Source: planSource})
	}
	return append(rs, Rule{Tool: tools.Bash, Pattern: ReadOnlyPattern, Action: Allow, Source: planSource})
}
