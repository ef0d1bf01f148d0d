package helper

import (
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// runContained is the helper without namespaces: a subreaper, so that
// whatever the command double-forks or setsids away is reparented to it and
// can be found and killed when the call ends. It stays outside the
// command's Landlock domain (the command runs through a restrict stage),
// so the command cannot signal it.
func runContained(s Spec, argv []string) int {
	if err := prctl(prSetChildSubreaper, 1); err != nil {
		return fail("subreaper", err)
	}
	if s.Serve {
		// It holds the socket to coder and stays outside the commands'
		// Landlock domain, whose ptrace rule keeps a confined command off
		// it; not dumpable besides, so that ptrace and /proc/PID/fd on it
		// need CAP_SYS_PTRACE.
		if err := prctl(prSetDumpable, 0); err != nil {
			return fail("dumpable", err)
		}
		return serve(s)
	}
	return supervise(s, argv, notifyEnd())
}

// childArgv is what the supervisor starts: the command itself, found on
// path (a $PATH; a name with a slash is the program, from the directory
// the command runs in, and exec checks it), or (without namespaces but
// with Landlock) the restrict stage that becomes it, which looks the
// command up itself.
func childArgv(s Spec, argv []string, path string) (string, []string, error) {
	if s.Mode == ModeContain && s.LandlockABI > 0 {
		exe, err := os.Executable()
		if err != nil {
			return "", nil, err
		}
		r := s
		r.Mode, r.Serve = ModeRestrict, false
		return exe, append([]string{exe}, Args(r, argv)...), nil
	}
	if indexByte(argv[0], '/') >= 0 {
		return argv[0], argv, nil
	}
	prog, err := lookPathIn(argv[0], path)
	return prog, argv, err
}

// supervise starts the command as this process's child and waits for it.
// When it exits (or, long-lived, when no process is left) everything else
// is killed and its status returned: the exit code, or 128+N for signal N.
// A SIGTERM, SIGINT or SIGHUP is passed on to every process, which get
// StopGrace to end before they are killed. It runs on the main thread (the
// package's init): the command is forked from it, and its parent-death
// signal follows that thread, which lives as long as the helper. notified
// gives the end signals' channel (notifyEnd) once they are registered.
func supervise(s Spec, argv []string, notified func() <-chan os.Signal) int {
	path, args, err := childArgv(s, argv, os.Getenv("PATH"))
	if err != nil {
		_, _ = os.Stderr.WriteString(Prefix + err.Error() + "\n")
		return 127
	}
	sigs := notified()
	pid, err := syscall.ForkExec(path, args, &syscall.ProcAttr{
		Env: os.Environ(), Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		_, _ = os.Stderr.WriteString(Prefix + "start " + argv[0] + ": " + err.Error() + "\n")
		if err == syscall.ENOENT {
			return 127
		}
		return 126
	}
	exits := make(chan int, 2)
	go reap(pid, exits)
	code, signum := -1, 0
	var deadline <-chan time.Time
	for {
		select {
		case c, ok := <-exits:
			if !ok { // no child left
				return exitOr(code, signum)
			}
			code = c
			if !s.LongLived {
				endAll(s)
				if s.Status && s.Mode == ModeNS {
					reportStatus(exits, code)
				}
				return code
			}
		case sig := <-sigs:
			signalAll(s, sig.(syscall.Signal))
			if deadline == nil {
				signum = int(sig.(syscall.Signal))
				deadline = time.After(StopGrace)
			}
		case <-deadline:
			endAll(s)
			return exitOr(code, signum)
		}
	}
}

// notifyEnd registers the signals the supervisor passes on from a
// goroutine of its own, alongside the set-up: each one is a round trip to
// the runtime's signal thread, which it starts first. The function it
// returns waits for the registration, before the command starts, and
// gives the channel.
func notifyEnd() func() <-chan os.Signal {
	sigs := make(chan os.Signal, 4)
	done := make(chan struct{})
	go func() {
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		close(done)
	}()
	return func() <-chan os.Signal {
		<-done
		return sigs
	}
}

func exitOr(code, signum int) int {
	if code >= 0 {
		return code
	}
	return 128 + signum
}

// reap waits for every child (PID 1 and a subreaper inherit orphans, which
// must be reaped), sends the main one's status, and closes exits when no
// child is left.
func reap(main int, exits chan<- int) {
	defer close(exits)
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return // ECHILD: nothing left
		}
		if pid == main {
			exits <- statusCode(ws)
		}
	}
}

func statusCode(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// signalAll passes sig on to every process in the sandbox.
func signalAll(s Spec, sig syscall.Signal) {
	if s.Mode == ModeNS {
		_ = syscall.Kill(-1, sig) // everyone in the namespace but PID 1
		return
	}
	for _, pid := range descendants(os.Getpid()) {
		_ = syscall.Kill(pid, sig)
	}
}

// endAll kills every process in the sandbox but the helper. In a PID
// namespace the kernel would do it when PID 1 exits; a subreaper must hunt
// them down, again and again while killed parents' children are reparented.
func endAll(s Spec) {
	if s.Mode == ModeNS {
		_ = syscall.Kill(-1, syscall.SIGKILL)
		return
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if noChildren() {
			return
		}
		pids := descendants(os.Getpid())
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// noChildren reports whether this process has no child at all, living or
// unreaped: then nothing is below it either, since a subreaper inherits the
// children of every descendant that exits before that one is reaped. One
// waitid, where descendants reads every process's stat: the call that left
// nothing behind (the usual one) ends without a walk of /proc.
func noChildren() bool {
	const pAll, wExited, wNoHang, wNoWait = 0, 4, 1, 0x1000000
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pAll, 0, uintptr(unsafe.Pointer(&info[0])),
			wExited|wNoHang|wNoWait, 0, 0)
		if e != syscall.EINTR {
			return e == syscall.ECHILD
		}
	}
}

// descendants lists the living processes below root, from /proc.
func descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, state, ok := procStat(pid)
		if ok && state != "Z" && state != "X" {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// procStat reads a process's parent and state from /proc/PID/stat, whose
// second field (the command name) may hold spaces and parentheses.
func procStat(pid int) (ppid int, state string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	i := len(b) - 1
	for i >= 0 && b[i] != ')' {
		i--
	}
	if i < 0 {
		return 0, "", false
	}
	f := fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[0], err == nil
}
