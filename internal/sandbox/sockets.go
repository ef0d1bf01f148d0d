package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/coder-agent/coder/internal/paths"
	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// A service that listens on a socket and acts for whoever connects runs
// what a command asks outside the sandbox: `tmux -S SOCKET run-shell`, a
// screen session, an X or Wayland client, `systemd-run --user` over the
// session bus, an editor's remote control, a Docker daemon. At LevelFull
// none is reachable: the network namespace cuts the abstract sockets (X11
// and D-Bus use them), /tmp is a private, empty, read-only tmpfs (tmux,
// X11, ICE, screen and many others keep their sockets there) with only
// what the command needs bound back, and the other places such sockets
// live are masked (socketPaths). The variables that point at them are not
// passed in at any level, so no program tries them by itself.

// ipcVariables name where a terminal multiplexer, display server, session
// bus, editor, agent or container daemon listens.
var ipcVariables = []string{
	"TMUX", "TMUX_PANE", "TMUX_TMPDIR", "STY", "WINDOW", "SCREENDIR", "ZELLIJ", "ZELLIJ_SESSION_NAME", "ZELLIJ_PANE_ID",
	"DISPLAY", "XAUTHORITY", "XAUTHLOCALHOSTNAME", "WAYLAND_DISPLAY", "WAYLAND_SOCKET", "SESSION_MANAGER",
	"DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "DBUS_STARTER_ADDRESS", "DBUS_STARTER_BUS_TYPE",
	"XDG_RUNTIME_DIR", "SWAYSOCK", "I3SOCK", "HYPRLAND_INSTANCE_SIGNATURE", "NIRI_SOCKET",
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "GNOME_KEYRING_CONTROL",
	"KITTY_LISTEN_ON", "WEZTERM_UNIX_SOCKET", "ALACRITTY_SOCKET", "KONSOLE_DBUS_SERVICE", "KONSOLE_DBUS_SESSION",
	"KONSOLE_DBUS_WINDOW", "TERMINATOR_DBUS_NAME", "TERMINATOR_DBUS_PATH", "GNOME_TERMINAL_SERVICE",
	"NVIM", "NVIM_LISTEN_ADDRESS", "EMACS_SOCKET_NAME",
	"VSCODE_IPC_HOOK", "VSCODE_IPC_HOOK_CLI", "VSCODE_GIT_IPC_HANDLE",
	"DOCKER_HOST", "CONTAINER_HOST",
}

// IsIPCVariable reports whether the environment variable name points at
// such a service (so it is not passed into the sandbox).
func IsIPCVariable(name string) bool { return slices.Contains(ipcVariables, name) }

// IPCVariables lists them, for coder doctor.
func IPCVariables() []string { return slices.Clone(ipcVariables) }

// socketPaths are the places masked at LevelFull besides DenyRead: the
// user's runtime directory (session bus, Wayland, agents), screen's and
// tmux's socket directories wherever their settings put them, the usual
// socket directories of /tmp (for a workspace that is /tmp, where /tmp
// cannot be private), and every absolute path an IPC variable of the
// command's environment names.
func (p Profile) socketPaths() []string {
	uid := strconv.Itoa(os.Getuid())
	home, _ := os.UserHomeDir()
	paths := []string{"/run/user/" + uid, "/run/screen", "/var/run/screen",
		"/tmp/tmux-" + uid, "/tmp/.X11-unix", "/tmp/.ICE-unix", "/tmp/zellij-" + uid, "/tmp/screens"}
	if home != "" {
		paths = append(paths, filepath.Join(home, ".screen"))
	}
	for _, kv := range p.baseEnv() {
		name, value, _ := strings.Cut(kv, "=")
		if !IsIPCVariable(name) {
			continue
		}
		if name == "TMUX_TMPDIR" {
			// A directory for tmux's own: only its socket directory.
			paths = append(paths, filepath.Join(value, "tmux-"+uid))
			continue
		}
		// "/tmp/tmux-1000/default,123,0", "unix:path=/run/user/1000/bus",
		// "unix:///var/run/docker.sock": every absolute path in it (a
		// socket, its directory, an X authority cookie).
		for _, f := range strings.FieldsFunc(value, func(r rune) bool { return strings.ContainsRune(",;= ", r) }) {
			f = strings.TrimPrefix(strings.TrimPrefix(f, "unix://"), "unix:")
			if filepath.IsAbs(f) {
				paths = append(paths, filepath.Clean(f))
			}
		}
	}
	var out []string
	for _, sp := range paths {
		if _, err := os.Lstat(sp); err == nil && !slices.Contains(out, sp) {
			out = append(out, sp)
		}
	}
	return out
}

// SocketPlaces lists what socketPaths masks here, for coder doctor.
func (p Profile) SocketPlaces() []string { return p.socketPaths() }

// baseEnv is the environment the command's is made from.
func (p Profile) baseEnv() []string {
	if p.Env != nil {
		return p.Env
	}
	return os.Environ()
}

// keepInTmp is what the private /tmp binds back (under /tmp: the
// workspace, the paths the command may write or must not, the home
// directory, PATH's directories); private is false when one of the
// first is /tmp itself.
func (p Profile) keepInTmp(r pathResolver, s helper.Spec) (keep []string, private bool) {
	tmp := r.resolve("/tmp")
	var cands []string
	for _, c := range append(append(append([]string{}, s.Writable...), s.ReadOnly...), s.Pinned...) {
		if !paths.Within(p.Workspace, c) { // what is inside comes with it
			cands = append(cands, c)
		}
	}
	cands = append(cands, p.Workspace)
	for _, kv := range p.baseEnv() {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok && filepath.IsAbs(v) {
			cands = append(cands, v)
		}
	}
	// The programs on PATH stay runnable: a directory of it below /tmp
	// (a tool installed there, a CI's bin) is bound back. /tmp itself on
	// PATH is not: it would give up the private /tmp.
	for _, kv := range p.baseEnv() {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, d := range filepath.SplitList(v) {
				if fi, err := os.Stat(d); err == nil && fi.IsDir() && filepath.IsAbs(d) && r.resolve(d) != tmp {
					cands = append(cands, d)
				}
			}
		}
	}
	for _, c := range cands {
		rc := r.resolve(c)
		switch {
		case rc == tmp:
			return nil, false
		case paths.Within(tmp, rc) && !slices.Contains(keep, rc):
			keep = append(keep, rc)
		}
	}
	slices.Sort(keep)
	// The outermost only: a bind brings what is below it.
	return slices.DeleteFunc(keep, func(k string) bool {
		return slices.ContainsFunc(keep, func(o string) bool { return o != k && paths.Within(o, k) })
	}), true
}
