package orchestrator

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

func TestDecideVerify(t *testing.T) {
	base := verifyInput{edited: []string{"main.go"}, enabled: true, bashEnabled: true, mode: "build", maxAttempts: 2}
	cases := []struct {
		name string
		mod  func(*verifyInput)
		run  bool
		line string
	}{
		{"code edit in build mode", func(*verifyInput) {}, true, ""},
		{"no edits", func(i *verifyInput) { i.edited = nil }, false, ""},
		{"docs only", func(i *verifyInput) {
			i.edited = []string{"README.md", "docs/x.go", "notes.txt", "a.rst", "b.adoc", "c.mdx"}
		}, false, ""},
		{"docs and code", func(i *verifyInput) { i.edited = []string{"README.md", "main.go"} }, true, ""},
		{"plan mode", func(i *verifyInput) { i.mode = "plan" }, false, ""},
		{"switched off", func(i *verifyInput) { i.enabled = false }, false, "not verified: auto-verify is off (workflow.auto_verify_after_edit)"},
		{"no bash", func(i *verifyInput) { i.bashEnabled = false }, false, "not verified: bash is not available in this mode"},
		{"attempts used", func(i *verifyInput) { i.attempts = 2 }, false, ""},
	}
	for _, c := range cases {
		in := base
		c.mod(&in)
		if d := decideVerify(in); d.run != c.run || d.line != c.line {
			t.Errorf("%s: got %+v", c.name, d)
		}
	}
}

func TestChooseVerifyCommand(t *testing.T) {
	cases := []struct {
		files      []string
		configured []string
		want, err  string
	}{
		{[]string{"go.mod"}, nil, "go test ./...", ""},
		{[]string{"pyproject.toml"}, nil, "pytest -q", ""},
		{[]string{"requirements.txt"}, nil, "pytest -q", ""},
		{[]string{"package.json"}, nil, "npm test -- --watch=false", ""},
		{[]string{"Cargo.toml"}, nil, "cargo test", ""},
		{[]string{"pom.xml"}, nil, "mvn -q test", ""},
		{[]string{"build.gradle"}, nil, "gradle test", ""},
		{[]string{"build.gradle", "gradlew"}, nil, "./gradlew test", ""},
		{[]string{"go.mod"}, []string{"", " cargo test "}, "cargo test", ""},
		{nil, nil, "", "no verify command"},
		{[]string{"go.mod"}, []string{"rm -rf / && go test ./..."}, "", "not on the whitelist (go test ./..., pytest -q"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		for _, f := range c.files {
			writeTestFile(t, dir, f, "")
		}
		got, err := chooseVerifyCommand(dir, c.configured)
		if got != c.want || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%v %v: got %q, %v", c.files, c.configured, got, err)
		}
	}
}

const (
	verifyGoMod  = "module calc\n\ngo 1.21\n"
	verifyCalc   = "package calc\n\nfunc Add(a, b int) int { return a + b }\n"
	verifyCalcGo = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add(2, 3) is not 5\")\n\t}\n}\n"
)

func TestAutoVerifyFailureReachesModelThenPasses(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("read", `{"path":"calc.go"}`)),
		llmtest.Calls(llmtest.Call("edit", `{"path":"calc.go","old_string":"a + b","new_string":"a - b"}`)),
		llmtest.Text("Changed Add."),
		llmtest.Calls(llmtest.Call("edit", `{"path":"calc.go","old_string":"a - b","new_string":"a + b"}`)),
		llmtest.Text("Fixed it."),
	}}, nil, func(o *Options) { o.Workflow.Verify = VerifyOptions{Enabled: true, MaxAttempts: 2} })
	h.write("go.mod", verifyGoMod)
	h.write("calc.go", verifyCalc)
	h.write("calc_test.go", verifyCalcGo)
	out, err := h.run("change Add")
	if err != nil {
		t.Fatal(err)
	}
	if out.Verification != "verified: go test ./... (exit 0)" || out.Result != "Fixed it." {
		t.Fatalf("outcome %+v", out)
	}
	// The failing output went back to the model as a fix request.
	msgs := h.srv.Requests()[3].Messages()
	last := msgs[len(msgs)-1]
	if last.Role != "user" || !strings.Contains(last.Text, "[auto-verify] `go test ./...` failed") || !strings.Contains(last.Text, "Add(2, 3) is not 5") {
		t.Fatalf("fix request %q", last.Text)
	}
}

func TestAutoVerifyGivesUpAfterMaxAttempts(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("read", `{"path":"calc.go"}`)),
		llmtest.Calls(llmtest.Call("edit", `{"path":"calc.go","old_string":"a + b","new_string":"a - b"}`)),
		llmtest.Text("Changed Add."),
		llmtest.Text("I believe it passes now."),
	}}, nil, func(o *Options) { o.Workflow.Verify = VerifyOptions{Enabled: true, MaxAttempts: 2} })
	h.write("go.mod", verifyGoMod)
	h.write("calc.go", verifyCalc)
	h.write("calc_test.go", verifyCalcGo)
	out, err := h.run("change Add")
	if err != nil {
		t.Fatal(err)
	}
	// The model's claim does not matter: the line says what happened.
	if out.Verification != "not verified: go test ./... (exit 1) after 2 attempts" {
		t.Fatalf("verification %q", out.Verification)
	}
}

func TestAutoVerifyDocsOnlyAndWhitelist(t *testing.T) {
	docs := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("write", `{"path":"docs/guide.md","content":"# Guide\n"}`)),
		llmtest.Text("Wrote the guide."),
	}}, nil, func(o *Options) { o.Workflow.Verify = VerifyOptions{Enabled: true, MaxAttempts: 2} })
	docs.write("go.mod", verifyGoMod)
	out, err := docs.run("write a guide")
	if err != nil || out.Verification != "" || len(docs.srv.Requests()) != 2 {
		t.Fatalf("docs-only edit: %+v %v", out, err)
	}

	bad := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("write", `{"path":"main.go","content":"package main\n"}`)),
		llmtest.Text("Done."),
	}}, nil, func(o *Options) {
		o.Workflow.Verify = VerifyOptions{Enabled: true, MaxAttempts: 2, Commands: []string{"make check"}}
	})
	out, err = bad.run("write main")
	if err != nil || !strings.Contains(out.Verification, `not verified: verify command "make check" is not on the whitelist (go test ./...`) {
		t.Fatalf("non-whitelisted: %+v %v", out, err)
	}
}
