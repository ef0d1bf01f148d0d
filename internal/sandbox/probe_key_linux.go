package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// userNSSettings are the sysctls that allow or forbid unprivileged user
// namespaces (Linux, Debian's older kernels, Ubuntu's AppArmor); those a
// kernel lacks read as "-".
var userNSSettings = []string{
	"/proc/sys/user/max_user_namespaces",
	"/proc/sys/kernel/unprivileged_userns_clone",
	"/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
	"/proc/sys/kernel/apparmor_restrict_unprivileged_unconfined",
}

// currentProbeKey describes this binary and system for the probe cache:
// a dozen system calls, against the process the probe itself starts.
func currentProbeKey(abi int) (probeKey, error) {
	exe, err := os.Executable()
	if err != nil {
		return probeKey{}, err
	}
	var st unix.Stat_t
	if err := unix.Stat(exe, &st); err != nil {
		return probeKey{}, err
	}
	var uts unix.Utsname
	if err := unix.Uname(&uts); err != nil {
		return probeKey{}, err
	}
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return probeKey{}, err
	}
	var ns []string
	for _, name := range []string{"user", "mnt"} {
		id, err := os.Readlink("/proc/self/ns/" + name)
		if err != nil {
			return probeKey{}, err
		}
		ns = append(ns, id)
	}
	settings := make([]string, 0, len(userNSSettings))
	for _, path := range userNSSettings {
		v, err := os.ReadFile(path)
		if err != nil {
			v = []byte("-")
		}
		settings = append(settings, strings.TrimSpace(string(v)))
	}
	return probeKey{
		Exe: fmt.Sprintf("%s %d:%d %d %d.%d %d.%d", exe, st.Dev, st.Ino, st.Size,
			st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec),
		Kernel: unix.ByteSliceToString(uts.Release[:]) + " " + unix.ByteSliceToString(uts.Version[:]),
		Boot:   strings.TrimSpace(string(boot)),
		User:   fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()),
		NS:     strings.Join(ns, " "),
		Sysctl: strings.Join(settings, " "),
		ABI:    abi,
	}, nil
}

// ownedByMe reports whether this user owns the file fi describes.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
