package sandbox

import (
	"os/exec"
	"runtime"
)

// A backend is one platform's sandbox: what it reports (coder doctor, the
// warning at start) and how it confines a command. The helper (coder
// re-executed) runs the command it gives and contains the processes.
type backend struct {
	// probe reports the level this system allows; nil is Linux's own probe
	// (namespaces, Landlock, the probe cache).
	probe func() Report
	// wrap is the command the helper runs for argv at level (above
	// LevelNone); nil runs argv itself (Linux confines inside the helper).
	wrap func(level Level, a Access, argv []string) []string
}

// backends is the table of backends by GOOS: a new one is a row here and
// its functions in this package (docs/ARCHITECTURE.md, Recipes: "Add a
// sandbox backend"). A system missing from it gets containment only.
var backends = map[string]backend{
	"linux":   {},
	"darwin":  {probe: probeSeatbelt, wrap: wrapSeatbelt},
	"windows": {probe: probeWindows},
}

func currentBackend() backend {
	if b, ok := backends[runtime.GOOS]; ok {
		return b
	}
	return backend{probe: probeContainOnly}
}

// probeSeatbelt runs sandbox-exec once with a profile that allows
// everything: when that works, commands run under Seatbelt.
func probeSeatbelt() Report {
	r := Report{Backend: "Seatbelt"}
	forced, forceErr := forcedLevel()
	err := errNotProbed
	if forced == LevelAuto || forced == LevelFull {
		err = exec.Command(SandboxExec, "-p", "(version 1)(allow default)", "/usr/bin/true").Run()
	} else {
		r.Forced = ForceLevelEnv + "=" + forced.String()
	}
	sb := Layer{Name: "Seatbelt", Active: err == nil,
		Detail: "sandbox-exec with a profile made per call: writes only to the writable roots, protected paths and deny_read denied, no network unless allowed"}
	switch {
	case err == errNotProbed:
		sb.Detail = "off (" + r.Forced + ")"
	case err != nil:
		sb.Detail = "unavailable: " + SandboxExec + ": " + err.Error()
	}
	if sb.Active {
		r.Level = LevelFull
	} else {
		r.Level = LevelNone
	}
	r.Layers = []Layer{sb, {Name: "process containment", Active: true,
		Detail: "a process group per call, killed when the call ends (a process that leaves its group escapes)"}}
	if forceErr != nil {
		r.Layers = append(r.Layers, Layer{Name: "settings", Detail: forceErr.Error()})
	}
	return r
}

func wrapSeatbelt(_ Level, a Access, argv []string) []string { return SeatbeltArgv(a, argv) }

// probeWindows: Windows has no sandbox coder can use; commands are
// contained in a Job Object, and WSL gives the full Linux sandbox.
func probeWindows() Report {
	r := Report{Level: LevelNone, Backend: "Job Object",
		Advice: "Windows has no OS sandbox coder uses: run coder inside WSL for the full Linux sandbox"}
	r.Layers = []Layer{
		{Name: "OS sandbox", Detail: "none on Windows: commands may write and read anything this user can, and use the network"},
		{Name: "process containment", Active: true, Detail: "a Job Object per call: everything a command starts ends with the call"},
	}
	return r
}

func probeContainOnly() Report {
	return Report{Level: LevelNone, Advice: "no OS sandbox for " + runtime.GOOS,
		Layers: []Layer{{Name: "process containment", Active: true, Detail: "a process group per call"}}}
}
