package helper

import (
	"syscall"
	"testing"
)

// TestCloexecListedMarksInheritedDescriptors: keepOnlyStdio's fallback
// (kernels before 5.11) marks a descriptor opened without close-on-exec,
// as an inherited one is, and leaves the standard streams alone; the
// control: the descriptor was inheritable before.
func TestCloexecListedMarksInheritedDescriptors(t *testing.T) {
	fd, err := syscall.Open("/dev/null", syscall.O_RDONLY, 0) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	flags := func(fd int) uintptr {
		f, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
		if e != 0 {
			t.Fatalf("fcntl(%d): %v", fd, e)
		}
		return f
	}
	if flags(fd)&syscall.FD_CLOEXEC != 0 {
		t.Fatal("control: the descriptor was close-on-exec already")
	}
	stderr := flags(2) & syscall.FD_CLOEXEC
	if err := cloexecListed(); err != nil {
		t.Fatal(err)
	}
	if flags(fd)&syscall.FD_CLOEXEC == 0 {
		t.Fatal("the fallback left an inherited descriptor to the command")
	}
	if flags(2)&syscall.FD_CLOEXEC != stderr {
		t.Fatal("the fallback changed stderr")
	}
}
