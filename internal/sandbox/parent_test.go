package sandbox

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// sandboxTestParent is the test binary playing coder for
// TestSandboxDiesWithItsParent: it starts a sandboxed command, says so and
// waits to be killed.
func sandboxTestParent() {
	l, err := ParseLevel(os.Getenv("SANDBOX_TEST_PARENT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	p := Profile{Workspace: os.Getenv("SANDBOX_TEST_WS"), Level: l}
	cmd, err := Background(p, []string{"/bin/sh", "-c", os.Getenv("SANDBOX_TEST_SCRIPT")})
	if err == nil {
		_, err = Start(cmd)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println("started")
	for { // until killed (a bare select{} would trip the deadlock detector)
		time.Sleep(time.Hour)
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
