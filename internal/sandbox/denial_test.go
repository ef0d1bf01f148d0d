package sandbox

import (
	"strings"
	"testing"
)

func TestExplainJudgesMessages(t *testing.T) {
	p := Profile{Workspace: "/ws", TempDir: "/tmp/coder-1", WritableRoots: []string{"/home/u/.cache"},
		DenyRead: []string{"/home/u/.ssh"}}
	plan := p
	plan.Policy = ReadOnly
	online := p
	online.Network = true
	tests := []struct {
		name   string
		p      Profile
		code   int
		stderr string
		kind   string // "" = not the sandbox
		path   string
	}{
		{"bash redirect", p, 1, "/bin/bash: line 1: /etc/x: Read-only file system", "write", "/etc/x"},
		{"touch quotes", p, 1, "touch: cannot touch '/home/u/x': Read-only file system", "write", "/home/u/x"},
		{"mkdir unicode quotes", p, 1, "mkdir: cannot create directory ‘/home/u/.npm’: Read-only file system", "write", "/home/u/.npm"},
		{"go", p, 1, "open /opt/data/out.txt: read-only file system", "write", "/opt/data/out.txt"},
		{"python", p, 1, "PermissionError: [Errno 13] Permission denied: '/srv/x'", "write", "/srv/x"},
		{"node", p, 1, "Error: EACCES: permission denied, open '/srv/x'", "write", "/srv/x"},
		{"landlock bash", p, 1, "/bin/bash: line 1: /srv/x: Permission denied", "write", "/srv/x"},
		{"protected", p, 1, "/bin/bash: line 1: .git/config: Read-only file system", "write", "/ws/.git/config"},
		{"deny read", p, 1, "cat: /home/u/.ssh/id_ed25519: Permission denied", "read", "/home/u/.ssh/id_ed25519"},
		{"plan workspace", plan, 1, "touch: cannot touch 'a.txt': Read-only file system", "write", "/ws/a.txt"},
		{"read-only, no path", p, 1, "error: read-only file system", "write", ""},
		{"ordinary permission problem in the workspace", p, 1, "bash: ./run.sh: Permission denied", "", ""},
		{"ordinary permission problem in temp", p, 1, "cp: cannot open '/tmp/coder-1/x' for reading: Permission denied", "", ""},
		{"permission denied, no path", p, 1, "Permission denied", "", ""},
		{"success", p, 0, "/bin/bash: /etc/x: Read-only file system", "", ""},
		{"curl", p, 6, "curl: (6) Could not resolve host: example.com", "network", ""},
		{"go dns", p, 1, "dial tcp: lookup proxy.golang.org: no such host", "network", ""},
		{"unreachable", p, 1, "connect: Network is unreachable", "network", ""},
		{"network on", online, 6, "curl: (6) Could not resolve host: example.com", "", ""},
		{"helper", p, 125, "coder sandbox: mounts: bind /x: operation not permitted", "setup", ""},
		{"unrelated", p, 1, "FAIL: TestAdd (0.00s)", "", ""},
	}
	for _, tt := range tests {
		d, ok := Explain(tt.p, tt.code, tt.stderr)
		if ok != (tt.kind != "") || d.Kind != tt.kind || d.Path != tt.path {
			t.Errorf("%s: Explain = %+v, %v; want kind %q path %q", tt.name, d, ok, tt.kind, tt.path)
		}
		if ok && !strings.Contains(d.Message, "sandbox") {
			t.Errorf("%s: message %q does not name the sandbox", tt.name, d.Message)
		}
	}
}

// TestExplainRecognisesRealRefusals: what the kernel's refusals really
// print, at each level, is explained; a real failure inside is not.
func TestExplainRecognisesRealRefusals(t *testing.T) {
	for _, l := range levels(t, LevelLandlock) {
		t.Run(l.String(), func(t *testing.T) {
			w := newWorld(t)
			p := w.profile(l)
			for _, script := range []string{`echo x > ` + w.outside + `/x`, `touch ` + w.outside + `/y`, `mkdir ` + w.home + `/.npm`} {
				r := run(t, p, script)
				// At level full /tmp is private: the outside directory, under
				// it here, is hidden rather than read-only.
				if d, ok := Explain(p, r.code, r.stderr); !ok || d.Kind != "write" && d.Kind != "hidden" || d.Path == "" {
					t.Errorf("%s: not explained: %+v from %+v", script, d, r)
				}
			}
			r := run(t, p, `ls no-such-file`)
			if d, ok := Explain(p, r.code, r.stderr); ok {
				t.Errorf("an ordinary failure blamed on the sandbox: %+v", d)
			}
		})
	}
}
