package hooks

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"

	"github.com/coder-agent/coder/internal/proctree"
)

// Direct runs hooks as plain processes, each in a process group of its own
// killed as a whole when ctx ends. It is for tests: coder's own launchers
// also catch what a hook moves out of its group (setsid), see app.
type Direct struct{}

// RunHook implements Launcher.
func (Direct) RunHook(ctx context.Context, command string, stdin []byte, stdout, stderr io.Writer) (int, error) {
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Stdin = strings.NewReader(string(stdin))
	cmd.Stdout, cmd.Stderr = stdout, stderr
	tree, err := proctree.Start(cmd, false)
	if err != nil {
		return -1, err
	}
	defer tree.Release()
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			tree.Kill()
		case <-done:
		}
	}()
	err = cmd.Wait()
	close(done)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, err
}
