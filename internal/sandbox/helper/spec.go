package helper

import (
	"errors"
	"strconv"
)

// Modes: the stage the re-executed binary plays.
const (
	ModeNS       = "ns"       // PID 1 of new namespaces (LevelFull)
	ModeContain  = "contain"  // a subreaper supervising the command (fallbacks)
	ModeRestrict = "restrict" // applies Landlock, then execs the command
)

// Spec is what the helper needs, passed on its command line as one
// key=value argument per field or list item (Args): the command can read
// it there, so it holds paths, not secrets. It is not JSON because the
// helper must not import encoding/json (see the package comment).
type Spec struct {
	Mode     string
	Writable []string
	ReadOnly []string
	// Pinned are bound onto themselves, as writable as before: a mount
	// point cannot be renamed, removed or replaced (a repository's .git).
	Pinned   []string
	DenyRead []string
	// PrivateTmp replaces /tmp with an empty read-only tmpfs (LevelFull),
	// with Keep (the workspace, the temp dir, writable roots, home, where
	// under /tmp) bound back.
	PrivateTmp bool
	Keep       []string
	// Landlock lists the paths Landlock lets the command write; ABI 0
	// means no Landlock.
	Landlock    []string
	LandlockABI int
	Network     bool
	// LongLived: the helper lives until the last process in the sandbox
	// ends, not just the command (background tasks).
	LongLived bool
	// Probe: set everything up, then exit 0 without running anything.
	Probe bool
	// Serve (Linux, every level): set everything up once, then run one
	// command at a time as coder sends them on ServeFD (serve_linux.go),
	// leaving nothing of one in the sandbox when the next starts.
	Serve bool
	// RemountEach (LevelFull): make the mounts read-only one bind remount
	// per mount, as on kernels without mount_setattr (before 5.12), even
	// where the kernel has it: how the tests run that path.
	RemountEach bool
	// Status (ModeNS, one command): once the command and everything it
	// left are gone, the helper closes its standard streams and writes the
	// exit code, one byte, on StatusFD before it exits, so that coder need
	// not wait for the teardown of its namespaces (status_linux.go).
	Status bool
}

// MinABI: Landlock ABI 2 is the first that can allow renames between
// directories (the "refer" right); below it, best effort would drop
// enforcement altogether, so Landlock counts as unavailable.
const MinABI = 2

// The keys of the encoding; a list field takes one argument per item.
const (
	keyMode, keyWritable, keyReadOnly, keyPinned, keyDeny = "mode", "rw", "ro", "pin", "deny"
	keyPrivateTmp, keyKeep, keyLandlock, keyABI           = "ptmp", "keep", "ll", "abi"
	keyNetwork, keyLongLived, keyProbe, keyServe          = "net", "long", "probe", "serve"
	keyRemountEach, keyStatus                             = "each", "status"
)

// Args is the helper's command line after os.Args[0]: Arg, the spec, "--",
// then argv. A spec argument always holds "=", so none is "--".
func Args(s Spec, argv []string) []string {
	out := []string{Arg, keyMode + "=" + s.Mode}
	list := func(key string, items []string) {
		for _, it := range items {
			out = append(out, key+"="+it)
		}
	}
	flag := func(key string, on bool) {
		if on {
			out = append(out, key+"=1")
		}
	}
	list(keyWritable, s.Writable)
	list(keyReadOnly, s.ReadOnly)
	list(keyPinned, s.Pinned)
	list(keyDeny, s.DenyRead)
	flag(keyPrivateTmp, s.PrivateTmp)
	list(keyKeep, s.Keep)
	list(keyLandlock, s.Landlock)
	if s.LandlockABI != 0 {
		out = append(out, keyABI+"="+strconv.Itoa(s.LandlockABI))
	}
	flag(keyNetwork, s.Network)
	flag(keyLongLived, s.LongLived)
	flag(keyProbe, s.Probe)
	flag(keyServe, s.Serve)
	flag(keyRemountEach, s.RemountEach)
	flag(keyStatus, s.Status)
	out = append(out, "--")
	return append(out, argv...)
}

// Parse reads what Args wrote (without Arg). Each argument is split at its
// first "=" (paths may hold more, and spaces or newlines); an unknown key,
// a repeated single value, a bad mode or number is an error.
func Parse(args []string) (Spec, []string, error) {
	var s Spec
	usage := errors.New("usage: " + Arg + " KEY=VALUE... -- PROGRAM ARGS...")
	seen := map[string]bool{}
	for i, a := range args {
		if a == "--" {
			if s.Mode == "" {
				return s, nil, errors.New("bad spec: no mode")
			}
			argv := args[i+1:]
			if len(argv) == 0 && !s.Probe && !s.Serve {
				return s, nil, errors.New("no command after --")
			}
			return s, argv, nil
		}
		eq := indexByte(a, '=')
		if eq < 0 {
			return s, nil, usage
		}
		key, val := a[:eq], a[eq+1:]
		if err := s.set(key, val, seen); err != nil {
			return s, nil, errors.New("bad spec: " + err.Error())
		}
	}
	return s, nil, usage
}

// set stores one key=value argument in s.
func (s *Spec) set(key, val string, seen map[string]bool) error {
	lists := map[string]*[]string{keyWritable: &s.Writable, keyReadOnly: &s.ReadOnly, keyPinned: &s.Pinned,
		keyDeny: &s.DenyRead, keyKeep: &s.Keep, keyLandlock: &s.Landlock}
	if l, ok := lists[key]; ok {
		*l = append(*l, val)
		return nil
	}
	if seen[key] {
		return errors.New(strconv.Quote(key) + " given twice")
	}
	seen[key] = true
	flags := map[string]*bool{keyPrivateTmp: &s.PrivateTmp, keyNetwork: &s.Network, keyLongLived: &s.LongLived, keyProbe: &s.Probe,
		keyServe: &s.Serve, keyRemountEach: &s.RemountEach, keyStatus: &s.Status}
	if f, ok := flags[key]; ok {
		if val != "1" && val != "0" {
			return errors.New(key + " must be 0 or 1, got " + strconv.Quote(val))
		}
		*f = val == "1"
		return nil
	}
	switch key {
	case keyMode:
		switch val {
		case ModeNS, ModeContain, ModeRestrict:
			s.Mode = val
			return nil
		}
		return errors.New("unknown mode " + strconv.Quote(val))
	case keyABI:
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			return errors.New("bad Landlock ABI " + strconv.Quote(val))
		}
		s.LandlockABI = n
		return nil
	}
	return errors.New("unknown key " + strconv.Quote(key))
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
