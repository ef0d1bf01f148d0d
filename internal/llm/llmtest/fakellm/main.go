// Command fakellm serves the scripted fake LLM on loopback for measurements
// by hand: every request gets the same one-step answer, in whichever
// protocol it asks for. It prints the base URL and serves until killed.
// With -bash, each run (coder -p) is answered with -calls bash calls of
// that command in one message, then the text: the steps alternate, so the
// runs must not overlap.
//
//	go run ./internal/llm/llmtest/fakellm -text hello
//	go run ./internal/llm/llmtest/fakellm -bash true -calls 10
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

func main() {
	text := flag.String("text", "hi", "the answer to every request")
	bash := flag.String("bash", "", "a command each run first calls bash with")
	calls := flag.Int("calls", 1, "how many bash calls a run makes, with -bash")
	flag.Parse()
	sc := llmtest.Scenario{Repeat: true, Lean: true, Steps: []llmtest.Step{llmtest.Text(*text)}}
	if *bash != "" {
		args, _ := json.Marshal(map[string]string{"command": *bash})
		cs := make([]llmtest.ToolCall, *calls)
		for i := range cs {
			cs[i] = llmtest.Call("bash", string(args))
		}
		sc.Steps = nil
		for range 10_000 {
			sc.Steps = append(sc.Steps, llmtest.Calls(cs...), llmtest.Text(*text))
		}
	}
	srv, err := llmtest.Start(sc)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakellm:", err)
		os.Exit(1)
	}
	fmt.Println(srv.URL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	<-sig
	srv.Close()
}
