// Command reach tries to read another process's memory and environment
// the ways a sandboxed command might: /proc/PID/environ, /proc/PID/mem,
// ptrace attach and process_vm_readv. It tries them on its parent (the
// sandbox helper) and, as a positive control, on a child it starts itself,
// and prints one line per attempt: "TARGET CHECK ok" or "TARGET CHECK
// denied: ERROR". The sandbox tests build and run it.
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "idle" {
		time.Sleep(time.Minute)
		return
	}
	runtime.LockOSThread() // ptrace requests come from the attaching thread
	parent := os.Getppid()
	child := exec.Command(os.Args[0], "idle")
	if err := child.Start(); err != nil {
		fmt.Println("child start failed:", err)
		os.Exit(1)
	}
	defer child.Process.Kill()
	time.Sleep(100 * time.Millisecond) // let it exec
	for _, t := range []struct {
		name string
		pid  int
	}{{"parent", parent}, {"child", child.Process.Pid}} {
		report(t.name, "environ", readEnviron(t.pid))
		report(t.name, "mem", readMem(t.pid))
		report(t.name, "ptrace", attach(t.pid))
		report(t.name, "vm_readv", vmRead(t.pid))
	}
	fmt.Println("parent pid", parent)
}

func report(target, check string, err error) {
	if err != nil {
		fmt.Printf("%s %s denied: %v\n", target, check, err)
		return
	}
	fmt.Printf("%s %s ok\n", target, check)
}

func readEnviron(pid int) error {
	_, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	return err
}

// address is the start of a readable mapping of pid, from its maps (or
// this process's, when those cannot be read: the check fails earlier).
func address(pid int) uintptr {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/maps")
	if err != nil {
		f, _ = os.Open("/proc/self/maps")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) > 1 && strings.HasPrefix(fs[1], "r") {
			start, _, _ := strings.Cut(fs[0], "-")
			a, _ := strconv.ParseUint(start, 16, 64)
			return uintptr(a)
		}
	}
	return 0
}

func readMem(pid int) error {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/mem")
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.ReadAt(make([]byte, 8), int64(address(pid)))
	return err
}

func attach(pid int) error {
	if err := syscall.PtraceAttach(pid); err != nil {
		return err
	}
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &ws, syscall.WALL, nil)
	return syscall.PtraceDetach(pid)
}

// processVMReadv is the system call's number, which syscall lacks.
var processVMReadv = map[string]uintptr{"amd64": 310, "arm64": 270}

func vmRead(pid int) error {
	buf := make([]byte, 8)
	local := syscall.Iovec{Base: &buf[0], Len: 8}
	remote := struct {
		base uintptr
		len  uint64
	}{address(pid), 8}
	_, _, e := syscall.Syscall6(processVMReadv[runtime.GOARCH], uintptr(pid), uintptr(unsafe.Pointer(&local)), 1,
		uintptr(unsafe.Pointer(&remote)), 1, 0)
	if e != 0 {
		return e
	}
	return nil
}
