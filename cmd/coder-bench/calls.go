package main

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/tools"
)

// callsN is how many bash calls the calls scenario's turn makes.
const callsN = 10

const callsAnswer = "All ten calls ran."

// callsScenario is one turn of callsN bash `true` calls, one per model
// step, then an answer; cfg is the person's config.json ("" for none).
func callsScenario(name, cfg string) scenario {
	var steps []llmtest.Step
	for range callsN {
		steps = append(steps, llmtest.Calls(llmtest.Call(tools.Bash, `{"command":"true"}`)))
	}
	steps = append(steps, llmtest.Text(callsAnswer))
	return scenario{
		name:       name,
		steps:      steps,
		userConfig: cfg,
		setup: func(ws string) ([]string, error) {
			return []string{"-p", "run true ten times"}, writeProject(ws)
		},
		check: func(p proc, reqs []llmtest.Request) error {
			if err := expect(p, reqs, callsN+1, callsAnswer); err != nil {
				return err
			}
			res := reqs[callsN].ToolResults()
			if len(res) != callsN {
				return fmt.Errorf("%d tool results in the last request, want %d", len(res), callsN)
			}
			for _, r := range res {
				if r.IsError || !strings.Contains(r.Text, `"exit_code":0`) {
					return fmt.Errorf("a call of `true` failed: %s", r.Text)
				}
			}
			return nil
		},
	}
}

// callsMetrics measures what a bash call costs in a session, against
// the floor under it, `bash -c true`: the same ten-call turn with the
// sandbox on (the default) and off, the one-answer turn (hi) and
// `bash -c true`, run in turn. A call's cost is the turn's time over hi's,
// per call: the model's round trip, the tool, the sandbox, undo's capture,
// the guard and the session's checkpoint. What the sandbox adds is the
// difference between on and off, per call ("off" still runs the command
// under coder's helper, which ends what it leaves behind).
func callsMetrics(bin string, n int) ([]Metric, error) {
	on := callsScenario("calls", "")
	off := callsScenario("calls-off", `{"sandbox": {"mode": "off"}}`+"\n")
	hi := scenarios()[0]
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil, errors.New("bash is not on PATH")
	}
	runBash := func() (runStats, error) {
		p, err := runProc(bash, []string{"-c", "true"}, "/", nil)
		if err == nil && p.code != 0 {
			err = fmt.Errorf("bash -c true: exit %d", p.code)
		}
		return runStats{wall: p.wall, cpu: p.cpu}, err
	}
	scenario := func(sc scenario) func() (runStats, error) {
		return func() (runStats, error) { return runScenario(bin, sc) }
	}
	runs, err := interleaved(n, scenario(on), scenario(off), scenario(hi), runBash)
	if err != nil {
		return nil, err
	}
	perCall, added, vsBash := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		ms := func(k int) float64 { return runs[k][i].wall.Seconds() * 1000 }
		perCall[i] = (ms(0) - ms(2)) / callsN
		added[i] = (ms(0) - ms(1)) / callsN
		vsBash[i] = perCall[i] / ms(3)
	}
	return []Metric{
		runMetric("calls.wall", fmt.Sprintf("calls: wall time of a %d-call turn (bash `true`), sandbox on", callsN), "s", walls(runs[0], 1), nil, true),
		runMetric("calls.per_call", "calls: one call's cost in the session, (turn − hi's) / calls, round by round", "ms", perCall, nil, true),
		runMetric("calls.per_call_vs_bash", "calls: one call's cost / `bash -c true`'s, round by round", "×", vsBash, nil, true),
		runMetric("calls.sandbox_added", "calls: what the sandbox adds to a call, (on − off) / calls, round by round", "ms", added, nil, true),
		runMetric("calls.bash", "calls: wall time of `bash -c true` (in the same rounds)", "ms", walls(runs[3], 1000), nil, true),
	}, nil
}
