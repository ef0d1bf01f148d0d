//go:build unix && !linux

package sandbox

import (
	"syscall"

	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// sysProcAttr: the helper leads a process group of its own.
func sysProcAttr(helper.Spec) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
