package sandbox

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// ForceLevelEnv, when set to "landlock" or "none", makes Probe report that
// level at most, as if the kernel offered no more: a hook for tests of the
// fallbacks. It can only lower protection, and Report.Forced says it did.
const ForceLevelEnv = "CODER_SANDBOX_FORCE_LEVEL"

// Layer is one mechanism of the sandbox and whether it is in use here.
type Layer struct {
	Name   string
	Active bool
	// Detail says what the layer does here, or why it is not in use.
	Detail string
}

// Report is what Probe found: the level commands run at and each layer.
type Report struct {
	Level       Level
	LandlockABI int // 0: no usable Landlock
	Layers      []Layer
	// Forced names the setting that lowered the level, if one did.
	Forced string
	// Remembered: namespaces were not probed now, an earlier probe of
	// this binary on this system found they work (the probe cache).
	Remembered bool
	// Backend names the platform's sandbox ("" on Linux: namespaces and
	// Landlock, as the layers say).
	Backend string
	// Advice is what to do for a stronger sandbox, said with the warning.
	Advice string
}

var (
	probeOnce   sync.Once
	probeReport Report
)

// Probe reports which layers of the sandbox work on this system, and why
// the others do not. The first call runs the helper once in new namespaces
// (a few milliseconds) unless an earlier process of this binary found on
// this system that they work (the probe cache); later calls return the
// same report.
func Probe() Report {
	probeOnce.Do(func() { probeReport = probe() })
	return probeReport
}

func probe() Report {
	if b := currentBackend(); b.probe != nil {
		return b.probe()
	}
	var r Report
	forced, forceErr := forcedLevel()
	abi, llWhy := helper.LandlockABI()
	if abi >= helper.MinABI {
		r.LandlockABI = abi
	}
	nsErr := errNotProbed
	if forced == LevelAuto || forced == LevelFull {
		r.Remembered, nsErr = probeNamespacesCached(r.LandlockABI)
	} else {
		r.Forced = ForceLevelEnv + "=" + forced.String()
	}
	switch {
	case nsErr == nil:
		r.Level = LevelFull
	case r.LandlockABI > 0:
		r.Level = LevelLandlock
	default:
		r.Level = LevelNone
	}
	if forced != LevelAuto && forced < r.Level {
		r.Level = forced
	}
	if r.Level < LevelLandlock {
		r.LandlockABI = 0
		if llWhy == "" {
			llWhy = "off (" + r.Forced + ")"
		}
	}
	r.Layers = layers(r, nsErr, llWhy)
	if forceErr != nil {
		r.Layers = append(r.Layers, Layer{Name: "settings", Detail: forceErr.Error()})
	}
	return r
}

// errNotProbed stands for namespaces that were not tried (a forced level).
var errNotProbed = fmt.Errorf("not tried")

func forcedLevel() (Level, error) {
	v := strings.TrimSpace(os.Getenv(ForceLevelEnv))
	if v == "" {
		return LevelAuto, nil
	}
	l, err := ParseLevel(v)
	if err != nil {
		return LevelAuto, fmt.Errorf("%s ignored: %v", ForceLevelEnv, err)
	}
	return l, nil
}

func layers(r Report, nsErr error, llWhy string) []Layer {
	ns := r.Level == LevelFull
	why := ""
	switch {
	case ns:
	case nsErr == errNotProbed:
		why = "off (" + r.Forced + ")"
	default:
		why = "unavailable: " + nsErr.Error()
	}
	detail := func(active string) string {
		if ns {
			return active
		}
		return why
	}
	ll := Layer{Name: "Landlock", Active: r.LandlockABI > 0, Detail: llWhy}
	if ll.Active {
		ll.Detail = fmt.Sprintf("ABI %d: writes only where allowed", r.LandlockABI)
		if !ns {
			ll.Detail += landlockFallbackDetail(r.LandlockABI)
		}
	}
	return []Layer{
		{"user namespace", ns, detail("unprivileged inside, every capability dropped before the command runs")},
		{"mount namespace", ns, detail("root read-only; writable roots bound read-write; protected paths read-only; deny_read masked")},
		{"PID namespace", ns, detail("a fresh /proc; the command's processes end with the call")},
		{"network namespace", ns, detail("with network off, only the sandbox's own loopback")},
		ll,
		{"no_new_privs", r.Level >= LevelLandlock, map[bool]string{true: "set-user-ID programs gain nothing", false: "off"}[r.Level >= LevelLandlock]},
		{"process containment", true, containDetail(ns)},
	}
}

func landlockFallbackDetail(abi int) string {
	var parts []string
	if abi >= 4 {
		parts = append(parts, "network off blocks TCP (not UDP), loopback included")
	} else {
		parts = append(parts, "network not restricted (needs ABI 4)")
	}
	if abi >= 6 {
		parts = append(parts, "no signals to processes outside")
	}
	parts = append(parts, "protected paths restored after each call", "deny_read not enforced",
		"sockets of services outside stay reachable")
	return "; " + strings.Join(parts, "; ")
}

func containDetail(ns bool) string {
	if ns {
		return "the helper is PID 1 of the sandbox: everything ends with it"
	}
	return "the helper is a subreaper and kills what the command left behind"
}

// String renders the report for coder doctor.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sandbox level: %s", r.Level)
	switch r.Level {
	case LevelFull:
		if r.Backend != "" {
			b.WriteString(" (" + r.Backend + ")")
			break
		}
		b.WriteString(" (namespaces")
		if r.LandlockABI > 0 {
			b.WriteString(" + Landlock")
		}
		b.WriteString(")")
	case LevelLandlock:
		b.WriteString(" (Landlock only: a weaker sandbox)")
	case LevelNone:
		b.WriteString(" (no OS sandbox: commands run unconfined)")
	}
	if r.Forced != "" {
		b.WriteString(", forced by " + r.Forced)
	}
	b.WriteString("\n")
	for _, l := range r.Layers {
		mark := "off"
		if l.Active {
			mark = "on "
		}
		fmt.Fprintf(&b, "  %-3s %-20s %s\n", mark, l.Name, l.Detail)
	}
	return b.String()
}

// Limit is the report for commands capped at level l (a Profile's Level)
// by the setting named by: the level and layers they really get.
func (r Report) Limit(l Level, by string) Report {
	if l == LevelAuto || l >= r.Level {
		return r
	}
	r.Level, r.Forced = l, by
	if r.Backend != "" { // another platform's layers: all off but containment
		layers := make([]Layer, len(r.Layers))
		for i, ly := range r.Layers {
			if ly.Name != "process containment" {
				ly.Active, ly.Detail = false, "off ("+by+")"
			}
			layers[i] = ly
		}
		r.Layers = layers
		return r
	}
	llWhy := ""
	if l < LevelLandlock {
		r.LandlockABI, llWhy = 0, "off ("+by+")"
	}
	r.Layers = layers(r, errNotProbed, llWhy)
	return r
}

// Warning is the one-line notice a caller shows when the sandbox is weaker
// than full, or "" when it is full.
func (r Report) Warning() string {
	why := r.Forced
	switch r.Level {
	case LevelLandlock:
		if why == "" {
			why = "no namespaces: " + r.layerDetail("mount namespace")
		}
		return "sandbox: Landlock only (" + why + "); see coder doctor"
	case LevelNone:
		if why == "" && r.Advice != "" {
			why = r.Advice
		}
		if why == "" {
			why = "Landlock " + r.layerDetail("Landlock")
		}
		return "sandbox: none, commands run without an OS sandbox (" + why + "); see coder doctor"
	}
	return ""
}

func (r Report) layerDetail(name string) string {
	for _, l := range r.Layers {
		if l.Name == name {
			return l.Detail
		}
	}
	return ""
}
