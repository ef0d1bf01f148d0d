package helper

import (
	"errors"
	"os"
	"strconv"
	"syscall"
)

// oPath is O_PATH (<asm-generic/fcntl.h>, as on amd64 and arm64), which
// syscall does not define: a handle to a file without opening it for
// reading, which needs no permission on the file itself.
const oPath = 0o10000000

// canonical is p with every symlink resolved, as mountinfo shows it: the
// kernel's own name for what opening p reaches (readlink of
// /proc/self/fd). It also says whether that is a directory. An error:
// nothing there.
func canonical(p string) (string, bool, error) {
	fd, err := syscall.Open(p, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", false, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return "", false, err
	}
	r, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return "", false, err
	}
	if len(r) == 0 || r[0] != '/' {
		return "", false, errors.New(p + " is not reachable from this root")
	}
	return r, st.Mode&syscall.S_IFMT == syscall.S_IFDIR, nil
}

// lookPath finds the program to run as exec.LookPath does: a name with a
// slash as it is, otherwise the first executable regular file of that name
// in $PATH that this process may execute (a relative or empty entry of
// $PATH is skipped: what it names depends on the working directory).
func lookPath(name string) (string, error) { return lookPathIn(name, os.Getenv("PATH")) }

// lookPathIn is lookPath with path for $PATH.
func lookPathIn(name, path string) (string, error) {
	if indexByte(name, '/') >= 0 {
		return name, executable(name)
	}
	for _, dir := range split(path, ':') {
		if dir == "" || dir[0] != '/' {
			continue
		}
		p := dir + "/" + name
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", errors.New("exec: " + strconv.Quote(name) + ": executable file not found in $PATH")
}

func executable(p string) error {
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		return err
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR || st.Mode&0o111 == 0 {
		return syscall.EACCES
	}
	// The kernel's own answer, as exec.LookPath asks it: a noexec mount
	// or an ACL can refuse what the mode bits allow.
	const atFDCWD, xOK = -100, 1
	return syscall.Faccessat(atFDCWD, p, xOK, 0)
}

// within reports whether p is dir or below it; both are canonical (no
// "..", no trailing slash). It is paths.Within for paths already clean,
// kept here because that package imports path/filepath.
func within(dir, p string) bool {
	if dir == "/" {
		return len(p) > 0 && p[0] == '/'
	}
	return p == dir || len(p) > len(dir) && p[:len(dir)] == dir && p[len(dir)] == '/'
}

// split cuts s at every sep.
func split(s string, sep byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// fields cuts s at runs of spaces, tabs and newlines.
func fields(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		space := i == len(s) || s[i] == ' ' || s[i] == '\t' || s[i] == '\n'
		switch {
		case space && start >= 0:
			out = append(out, s[start:i])
			start = -1
		case !space && start < 0:
			start = i
		}
	}
	return out
}

// parentDir is the directory holding the absolute path p.
func parentDir(p string) string {
	i := len(p) - 1
	for i > 0 && p[i] != '/' {
		i--
	}
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// stepError is an error with what the helper was doing.
type stepError struct {
	step string
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

func wrap(step string, err error) error { return &stepError{step, err} }
