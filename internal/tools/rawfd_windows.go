//go:build windows

package tools

import (
	"os"
	"syscall"
)

// rawFD is an open file as grep's fast path holds it: a handle, read with
// raw system calls (see readSmallFile).
type rawFD = syscall.Handle

const noFD = syscall.InvalidHandle

func openFD(abs string) (rawFD, error) { return syscall.Open(abs, syscall.O_RDONLY, 0) }

func dupFD(f *os.File) (rawFD, error) {
	self, err := syscall.GetCurrentProcess()
	if err != nil {
		return noFD, err
	}
	var h syscall.Handle
	err = syscall.DuplicateHandle(self, syscall.Handle(f.Fd()), self, &h, 0, false, syscall.DUPLICATE_SAME_ACCESS)
	return h, err
}

func closeFD(fd rawFD) { _ = syscall.CloseHandle(fd) }

func fdSize(fd rawFD) (int64, error) {
	var d syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(fd, &d); err != nil {
		return 0, err
	}
	return int64(d.FileSizeHigh)<<32 | int64(d.FileSizeLow), nil
}

func readFD(fd rawFD, b []byte) (int, error) { return syscall.Read(fd, b) }
