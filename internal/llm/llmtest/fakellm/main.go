// Command fakellm serves the scripted fake LLM on loopback for measurements
// by hand: every request gets the same one-step answer, in whichever
// protocol it asks for. It prints the base URL and serves until killed.
//
//	go run ./internal/llm/llmtest/fakellm -text hello
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

func main() {
	text := flag.String("text", "hi", "the answer to every request")
	flag.Parse()
	srv, err := llmtest.Start(llmtest.Scenario{Repeat: true, Steps: []llmtest.Step{llmtest.Text(*text)}})
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
