//go:build e2e

// Package e2e drives the built coder binary against the scripted fake LLM
// server over loopback, in temp workspaces, as a user's shell would.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// coderBin is the binary under test, built once in TestMain.
var coderBin string

// goCache and goModCache are the parent's Go caches.
var goCache, goModCache string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "coder-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	coderBin = filepath.Join(dir, "coder")
	build := exec.Command("go", "build", "-o", coderBin, "../cmd/coder")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as the README builds it
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building coder:", err)
		os.Exit(1)
	}
	// Tests swap HOME; keep Go's build cache so `go test` run by coder stays warm.
	if out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output(); err == nil {
		if f := strings.Fields(string(out)); len(f) == 2 {
			goCache, goModCache = f[0], f[1]
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testKey is the API key given to coder; it must never appear in any output.
const testKey = "sk-e2e-SECRET-7f3a9c1d"

// run is one invocation of the binary.
type run struct {
	args  []string
	env   map[string]string
	dir   string
	stdin string
}

type result struct {
	code           int
	stdout, stderr string
}

// baseEnv is the parent environment without anything that could configure a
// provider, with HOME and XDG_CONFIG_HOME pointed at an empty temp dir.
func baseEnv(t *testing.T) map[string]string {
	home := t.TempDir()
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(k, "_API_KEY") || strings.HasSuffix(k, "_BASE_URL") ||
			strings.HasPrefix(k, "CODER_") || k == "OLLAMA_HOST" {
			continue
		}
		env[k] = v
	}
	env["HOME"] = home
	env["XDG_CONFIG_HOME"] = filepath.Join(home, ".config")
	env["OLLAMA_HOST"] = "http://127.0.0.1:1" // nothing answers there
	if goCache != "" {
		env["GOCACHE"], env["GOMODCACHE"] = goCache, goModCache
	}
	return env
}

func (r run) exec(t *testing.T) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, coderBin, r.args...)
	cmd.Dir = r.dir
	for k, v := range r.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = strings.NewReader(r.stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running coder: %v", err)
	}
	res := result{code: code, stdout: out.String(), stderr: errb.String()}
	if strings.Contains(res.stdout, testKey) || strings.Contains(res.stderr, testKey) {
		t.Fatalf("the API key appeared in coder's output:\nstdout: %s\nstderr: %s", res.stdout, res.stderr)
	}
	return res
}

// streamEvents parses stream-json output.
func streamEvents(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stream-json line is not JSON: %q: %v", sc.Text(), err)
		}
		evs = append(evs, m)
	}
	return evs
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// approvals pairs each stream-json approval request with its answer:
// "tool:decision" in order.
func approvals(t *testing.T, stdout string) []string {
	t.Helper()
	tool := map[string]string{}
	var out []string
	for _, e := range streamEvents(t, stdout) {
		id, _ := e["call_id"].(string)
		switch e["type"] {
		case "approval":
			tool[id], _ = e["tool"].(string)
		case "approval_answer":
			d, _ := e["decision"].(string)
			out = append(out, tool[id]+":"+d)
		}
	}
	return out
}
