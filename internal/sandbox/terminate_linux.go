package sandbox

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// untilCatching waits, at most StopGrace, until process pid catches sig,
// if it is the init of a PID namespace of its own. The kernel delivers a
// signal from outside to such a process only if it has a handler for it,
// and drops it otherwise: a SIGTERM sent in the helper's first
// milliseconds, before its Go runtime installed its handlers (a call
// stopped as it starts), would be lost, and Stop would wait its grace out
// before it killed. Once caught, the signal is never uncaught (the runtime
// keeps its handlers; the helper then asks for it).
func untilCatching(pid int, sig syscall.Signal) {
	deadline := time.Now().Add(helper.StopGrace)
	for time.Now().Before(deadline) {
		if !dropsSignal(pid, sig) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// dropsSignal reports whether pid is a living init of a child PID
// namespace that has no handler for sig: /proc/PID/status's NSpid ends in
// 1 and SigCgt lacks sig. Anything unreadable is no reason to wait.
func dropsSignal(pid int, sig syscall.Signal) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	var initOfChild, caught bool
	for line := range strings.SplitSeq(string(b), "\n") {
		key, val, _ := strings.Cut(line, ":")
		f := strings.Fields(val)
		switch key {
		case "State":
			if len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
				return false // it has ended
			}
		case "NSpid":
			initOfChild = len(f) > 1 && f[len(f)-1] == "1"
		case "SigCgt":
			if len(f) == 1 {
				mask, err := strconv.ParseUint(f[0], 16, 64)
				caught = err != nil || mask&(1<<(uint(sig)-1)) != 0
			}
		}
	}
	return initOfChild && !caught
}
