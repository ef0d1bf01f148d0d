package helper

import (
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"
)

// ServeFD is where a serving helper (Spec.Serve) finds its end of the
// SOCK_SEQPACKET socket pair coder made: exec.Cmd's first ExtraFiles entry.
const ServeFD = 3

// The serving protocol, one datagram per message, fields split by NUL.
// coder sends
//
//	run id dir argc argv... env...   with stdin, stdout, stderr attached
//	term id                          stop command id if it still runs
//
// and the helper answers ready once, after its set-up, then exit N after
// each run, once nothing the command started is left in the sandbox.
const (
	MsgReady = "ready"
	MsgRun   = "run"
	MsgTerm  = "term"
	MsgExit  = "exit"
	// MaxMsg bounds a run message (argv and environment); coder starts a
	// larger command the usual way, in a sandbox of its own.
	MaxMsg = 128 << 10
)

// message is one datagram from coder.
type message struct {
	fields []string
	fds    []int
}

// serve is the helper kept set up between commands: PID 1 of namespaces
// whose mounts, Landlock domain and dropped capabilities (all set on this
// thread by runNamespaced) every command forked from here inherits, or
// (without namespaces) the subreaper each command is forked under, through
// the restrict stage when Landlock confines it. It runs the commands coder
// sends one at a time, and after each one kills whatever it left (kill -1
// from PID 1; every descendant of the subreaper) and reaps it all before
// answering, so the next command starts in a sandbox where nothing of the
// last one runs, as in a sandbox of its own; files it wrote stay, as they
// would.
// It ends when coder closes its end of the socket.
// ServeFD is close-on-exec like every descriptor above stderr (run's
// keepOnlyStdio): no command inherits it.
func serve(s Spec) int {
	if send(MsgReady) != nil {
		return 0 // coder went away while this was set up: nothing to serve
	}
	msgs := make(chan message, 4)
	go receive(msgs)
	for m := range msgs {
		if len(m.fields) == 0 || m.fields[0] != MsgRun {
			closeAll(m.fds) // a term after its command ended
			continue
		}
		code, gone := runJob(s, m, msgs)
		if gone {
			break
		}
		if err := send(MsgExit + " " + strconv.Itoa(code)); err != nil {
			break
		}
	}
	endAll(s)
	return 0
}

// runJob runs one command: m holds its directory, argv and environment and
// its three standard streams. gone is true when coder went away meanwhile.
func runJob(s Spec, m message, msgs <-chan message) (code int, gone bool) {
	// Only the command's processes hold its streams once it started:
	// coder reads them to the end when they are all gone.
	defer func() { closeAll(m.fds) }() // nil once handed to the command
	refuse := func(code int, msg string) (int, bool) {
		if len(m.fds) == 3 {
			_, _ = syscall.Write(m.fds[2], []byte(Prefix+msg+"\n"))
		}
		return code, false
	}
	id, dir, argv, env, err := parseRun(m.fields)
	if err == nil && len(m.fds) != 3 {
		err = errors.New("run without its three standard streams")
	}
	if err != nil {
		return refuse(Failed, err.Error())
	}
	path, args, err := childArgv(s, argv, pathOf(env))
	if err != nil {
		return refuse(127, err.Error())
	}
	pid, err := syscall.ForkExec(path, args, &syscall.ProcAttr{
		Dir: dir, Env: env, Files: []uintptr{uintptr(m.fds[0]), uintptr(m.fds[1]), uintptr(m.fds[2])},
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err == syscall.ENOENT {
		return refuse(127, "start "+argv[0]+": "+err.Error())
	} else if err != nil {
		return refuse(126, "start "+argv[0]+": "+err.Error())
	}
	closeAll(m.fds)
	m.fds = nil
	exits := make(chan int, 2)
	go reap(pid, exits)
	code, signum := -1, 0
	var deadline, rekill <-chan time.Time
	var killedAt time.Time
	killAll := func() {
		endAll(s)
		if killedAt.IsZero() {
			killedAt = time.Now()
		}
		rekill = time.After(50 * time.Millisecond)
	}
	for {
		select {
		case c, ok := <-exits:
			if !ok { // nothing left in the sandbox but this process
				return exitOr(code, signum), gone
			}
			code = c
			killAll()
		case <-rekill:
			// Something outlived the kill (it was exiting, or forking as
			// it came): again, until reap finds nobody. A process the kill
			// cannot reach ends with this one, as in a sandbox of its own.
			if time.Since(killedAt) > StopGrace {
				os.Exit(Failed)
			}
			killAll()
		case m, ok := <-msgs:
			if !ok {
				// coder is gone: end everything and let the caller exit.
				gone, msgs = true, nil
				killAll()
				continue
			}
			closeAll(m.fds)
			// A term for a command that ended (its id is another) is late.
			if len(m.fields) == 2 && m.fields[0] == MsgTerm && m.fields[1] == id {
				signalAll(s, syscall.SIGTERM)
				if deadline == nil {
					signum = int(syscall.SIGTERM)
					deadline = time.After(StopGrace)
				}
			}
		case <-deadline:
			killAll()
		}
	}
}

// parseRun reads a run message: run, id, dir, argc, argv..., env....
func parseRun(f []string) (id, dir string, argv, env []string, err error) {
	if len(f) < 5 {
		return "", "", nil, nil, errors.New("short run message")
	}
	n, err := strconv.Atoi(f[3])
	if err != nil || n < 1 || 4+n > len(f) {
		return "", "", nil, nil, errors.New("bad argv count in run message")
	}
	return f[1], f[2], f[4 : 4+n], f[4+n:], nil
}

// pathOf is PATH in env.
func pathOf(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if len(env[i]) >= 5 && env[i][:5] == "PATH=" {
			return env[i][5:]
		}
	}
	return ""
}

func closeAll(fds []int) {
	for _, fd := range fds {
		_ = syscall.Close(fd)
	}
}

// send writes one message to coder.
func send(msg string) error {
	for {
		err := syscall.Sendmsg(ServeFD, []byte(msg), nil, nil, 0)
		if err != syscall.EINTR {
			return err
		}
	}
}

// receive reads coder's messages until its end closes, then closes msgs.
// Received descriptors are close-on-exec: only ForkExec's dup2 passes them
// on, to the one command they are for.
func receive(msgs chan<- message) {
	defer close(msgs)
	buf := make([]byte, MaxMsg)
	oob := make([]byte, syscall.CmsgSpace(3*4))
	for {
		n, oobn, flags, _, err := syscall.Recvmsg(ServeFD, buf, oob, syscall.MSG_CMSG_CLOEXEC)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n == 0 && oobn == 0 {
			return
		}
		var fds []int
		if oobn > 0 {
			cms, err := syscall.ParseSocketControlMessage(oob[:oobn])
			if err == nil {
				for _, cm := range cms {
					if rights, err := syscall.ParseUnixRights(&cm); err == nil {
						fds = append(fds, rights...)
					}
				}
			}
		}
		if flags&(syscall.MSG_TRUNC|syscall.MSG_CTRUNC) != 0 {
			closeAll(fds) // cut short: not a message coder sent whole
			continue
		}
		msgs <- message{fields: split(string(buf[:n]), 0), fds: fds}
	}
}
