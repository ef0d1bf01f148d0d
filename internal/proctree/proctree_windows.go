//go:build windows

package proctree

import (
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sysTree holds the Job Object the tree runs in: every process the root
// starts joins it, and closing the last handle kills them all.
type sysTree struct {
	job  windows.Handle
	once sync.Once
}

// prepare: a process group of its own, so Ctrl+C in coder's console does
// not reach it; the Job Object is attached once it has started.
func prepare(cmd *exec.Cmd, session bool) {
	flags := uint32(windows.CREATE_NEW_PROCESS_GROUP)
	if session { // no terminal: a console of its own that is never shown
		flags |= windows.CREATE_NO_WINDOW
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: flags}
}

// attach puts the started root in a new Job Object that kills every
// process in it when its handle closes. The root may start a child before
// it is attached (between CreateProcess and the assignment): that window
// is the limit of containment here, see docs/platforms.md.
func (t *Tree) attach() error {
	job, err := JoinKillJob(t.cmd.Process.Pid)
	t.sys.job = job
	return err
}

// JoinKillJob puts process pid in a new Job Object that kills every
// process in it when its handle closes, and returns that handle (closing
// it, or the holder's death, ends the tree).
func JoinKillJob(pid int) (windows.Handle, error) {
	job, err := NewKillJob()
	if err != nil {
		return 0, err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		_ = windows.CloseHandle(job)
		return 0, fmt.Errorf("open process for its job: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		_ = windows.CloseHandle(job)
		return 0, fmt.Errorf("assign process to its job: %w", err)
	}
	return job, nil
}

// NewKillJob creates a Job Object whose processes all die when its last
// handle is closed (a process that holds the handle dying closes it too).
func NewKillJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return 0, fmt.Errorf("set job object limits: %w", err)
	}
	return job, nil
}

// ActiveProcesses is the number of processes running in job.
func ActiveProcesses(job windows.Handle) (int, error) {
	var info basicAccounting
	err := windows.QueryInformationJobObject(job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return int(info.ActiveProcesses), err
}

// Terminate ends the tree: Windows has no polite signal for a console
// process group that coder could send here, so it is Kill.
func (t *Tree) Terminate() { t.Kill() }

// Kill ends every process of the tree at once.
func (t *Tree) Kill() {
	if t.sys.job != 0 {
		_ = windows.TerminateJobObject(t.sys.job, 1)
	} else {
		_ = t.cmd.Process.Kill()
	}
}

// Release closes the Job Object's handle, which kills what is left in it.
func (t *Tree) Release() {
	t.sys.once.Do(func() {
		if t.sys.job != 0 {
			_ = windows.CloseHandle(t.sys.job)
		}
	})
}

// Alive reports whether a process of the tree is still running.
func (t *Tree) Alive() bool {
	if t.sys.job == 0 {
		return t.cmd.ProcessState == nil
	}
	n, err := ActiveProcesses(t.sys.job)
	return err == nil && n > 0
}

// basicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, which
// golang.org/x/sys/windows does not define.
type basicAccounting struct {
	TotalUserTime, TotalKernelTime                       int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime   int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses uint32
	TotalTerminatedProcesses                             uint32
}
