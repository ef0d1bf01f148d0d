//go:build unix

package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/config"
)

// alive reports whether pid is a running process; a zombie counts as dead.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

func waitDead(t *testing.T, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Errorf("process %d still alive", pid)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// groupMembers lists the live (non-zombie) processes in process group pgid.
func groupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		// After the name: state, ppid, pgrp.
		f := strings.Fields(s[i+1:])
		if len(f) >= 3 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			out = append(out, pid)
		}
	}
	return out
}

// waitGroupGone waits until no process of group pgid is left.
func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := groupMembers(pgid)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("process group %d still has %v", pgid, left)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readPids reads "<server pid> <child pid>" written by the test server.
func readPids(t *testing.T, file string) []int {
	t.Helper()
	var pids []int
	for i := 0; i < 100 && len(pids) < 2; i++ {
		b, _ := os.ReadFile(file)
		pids = pids[:0]
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				pids = append(pids, n)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(pids) != 2 {
		t.Fatalf("pid file %s: %v", file, pids)
	}
	return pids
}

func TestCloseLeavesNoProcess(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "pids")
	cfg := testServer()
	cfg.Env = map[string]string{"TESTSERVER_PIDFILE": pidfile}
	m := newManager(t, map[string]config.MCPServer{"t": cfg}, Options{})
	toolsByName(t, m)
	pids := readPids(t, pidfile)
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("process %d not running before Close", pid)
		}
	}
	if g := groupMembers(pids[0]); len(g) != 2 {
		t.Errorf("group %d = %v, want the server and its child", pids[0], g)
	}
	start := time.Now()
	m.Close()
	t.Logf("Close took %v", time.Since(start))
	waitDead(t, pids...)
	waitGroupGone(t, pids[0])

	res := run(t, toolsByName2(m)["mcp__t__echo"], `{"text":"x"}`)
	if res.OK || !strings.Contains(res.Content, "closed") {
		t.Errorf("echo after Close = %+v", res)
	}
}

// toolsByName2 returns the adapters a closed manager listed before; Tools
// itself may report errors now, which is expected.
func toolsByName2(m *Manager) map[string]*tool {
	out := map[string]*tool{}
	for _, s := range m.servers {
		for _, tl := range adapters(s, s.remote) {
			out[tl.Name()] = tl.(*tool)
		}
	}
	return out
}

func TestCrashKillsGrandchildren(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "pids")
	cfg := testServer()
	cfg.Env = map[string]string{"TESTSERVER_PIDFILE": pidfile}
	m := newManager(t, map[string]config.MCPServer{"t": cfg}, Options{})
	ts := toolsByName(t, m)
	pids := readPids(t, pidfile)
	run(t, ts["mcp__t__crash"], `{}`)
	waitDead(t, pids...)
}

func TestCloseDuringStart(t *testing.T) {
	t.Parallel()
	m := newManager(t, map[string]config.MCPServer{"hang": {Command: "sleep", Args: []string{"30"}}}, Options{StartTimeout: 30 * time.Second})
	done := make(chan []error)
	go func() {
		_, errs := m.Tools(context.Background())
		done <- errs
	}()
	time.Sleep(200 * time.Millisecond)
	m.Close()
	select {
	case errs := <-done:
		if len(errs) != 1 {
			t.Errorf("errors = %v", errs)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not abandon the start")
	}
}
