package helper

import (
	"runtime"
	"syscall"
	"unsafe"
)

// A new network namespace is the dearest step of a sandbox's start: about
// 0.9 ms of kernel time (its sysctl tables, its loopback device) on a
// small machine, as long as all the helper's mounts. Made by coder's
// clone, it lies on the one path every start waits on. Made here, on a
// second thread while the main one mounts, it costs no wall time on a
// machine with a second core. The helper's other threads join it with
// syscall.AllThreadsSyscall, before the helper restricts itself or starts
// anything, so the command never sees a thread of the helper outside it.
// AllThreadsSyscall refuses when cgo is linked: such a build has coder's
// clone make the namespace, as before (sandbox's sysProcAttr).

// NetworkInHelper says whether the helper, not coder's clone, makes the
// network namespace of a sandbox without network.
const NetworkInHelper = !cgoLinked

// network is the second thread's work: a descriptor of the new namespace
// (or why there is none), then whether its loopback came up, which the
// thread does while the main one joins and restricts itself.
type network struct {
	made chan netns
	up   chan error
}

type netns struct {
	fd  int
	err error
}

// startNetwork makes the namespace on a thread of its own, locked and
// never unlocked so that it ends with its goroutine.
func startNetwork() *network {
	n := &network{made: make(chan netns, 1), up: make(chan error, 1)}
	cpu := currentCPU()
	go func() {
		runtime.LockOSThread()
		// The scheduler tends to wake this thread on the main one's CPU
		// (where it last ran) and leave it there, queued behind the
		// mounts; away from that CPU the two steps overlap.
		avoidCPU(cpu)
		fd, err := newNetwork()
		n.made <- netns{fd, err}
		if err == nil {
			n.up <- loopbackUp()
		}
	}()
	return n
}

// newNetwork moves this thread into a new network namespace and returns a
// descriptor of it.
func newNetwork() (int, error) {
	if err := syscall.Unshare(syscall.CLONE_NEWNET); err != nil {
		return -1, wrap("new network namespace", err)
	}
	// Either /proc (the host's, or the fresh one setupMounts may mount
	// meanwhile) shows this thread, and so its namespace, here.
	fd, err := syscall.Open("/proc/thread-self/ns/net", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1, wrap("open the network namespace", err)
	}
	return fd, nil
}

// join waits for the namespace and moves every thread of the helper into
// it.
func (n *network) join() error {
	m := <-n.made
	if m.err != nil {
		return m.err
	}
	defer syscall.Close(m.fd)
	if _, _, e := syscall.AllThreadsSyscall(sysSetns, uintptr(m.fd), syscall.CLONE_NEWNET, 0); e != 0 {
		return wrap("join the network namespace", e)
	}
	return nil
}

// loopback waits for the namespace's loopback to be up.
func (n *network) loopback() error { return <-n.up }

// currentCPU is the CPU this thread runs on, -1 if unknown.
func currentCPU() int {
	var cpu uint32
	if _, _, e := syscall.RawSyscall(sysGetcpu, uintptr(unsafe.Pointer(&cpu)), 0, 0); e != 0 {
		return -1
	}
	return int(cpu)
}

// avoidCPU keeps this thread off cpu when another one is allowed; it
// only places the thread, so a failure changes nothing else.
func avoidCPU(cpu int) {
	var set [16]uint64 // 1,024 CPUs
	if cpu < 0 || cpu >= len(set)*64 {
		return
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(set), uintptr(unsafe.Pointer(&set))); e != 0 {
		return
	}
	set[cpu/64] &^= 1 << (cpu % 64)
	for _, w := range set {
		if w != 0 {
			_, _, _ = syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(set), uintptr(unsafe.Pointer(&set)))
			return
		}
	}
}
