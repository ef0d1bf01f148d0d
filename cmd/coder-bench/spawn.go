package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// spawnArg makes coder-bench the small process that starts one measured
// command and reports its figures. Linux records a vforked child's parent's
// resident size as the child's max RSS when it execs (the old address
// space's high-water mark), so a command started straight from
// coder-bench, which grows to tens of MB over a run, would read at least
// coder-bench's own peak. A fresh, small coder-bench started for each run
// keeps that floor far below what is measured. Linux only (spawnMeasured):
// elsewhere commands start directly, as Windows passes no fd 3.
const spawnArg = "__spawn"

// runSpawned runs argv with this process's I/O, directory and
// environment, and writes "wall-ns cpu-ns maxrss-bytes exit-code" on report.
func runSpawned(argv []string, report *os.File) int {
	if len(argv) == 0 || report == nil {
		fmt.Fprintln(os.Stderr, "usage: coder-bench "+spawnArg+" PROGRAM ARGS... (with a report pipe on fd 3)")
		return 2
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = spawnAttr()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 127
	}
	_ = cmd.Wait() // an exit status other than 0 is reported, not an error here
	wall := time.Since(start)
	ps := cmd.ProcessState
	_, err := fmt.Fprintf(report, "%d %d %d %d\n", wall, ps.UserTime()+ps.SystemTime(), maxRSS(ps), ps.ExitCode())
	if err != nil {
		return 1
	}
	return 0
}

// spawned is what a spawner reported.
type spawned struct {
	wall, cpu time.Duration
	maxRSS    int64
	code      int
}

// readSpawned parses runSpawned's report line.
func readSpawned(r *os.File) (spawned, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		return spawned{}, fmt.Errorf("the spawner reported nothing: %w", err)
	}
	f := strings.Fields(line)
	if len(f) != 4 {
		return spawned{}, fmt.Errorf("the spawner's report %q has %d fields, want 4", line, len(f))
	}
	var n [4]int64
	for i, s := range f {
		if n[i], err = strconv.ParseInt(s, 10, 64); err != nil {
			return spawned{}, fmt.Errorf("the spawner's report %q: %w", line, err)
		}
	}
	return spawned{wall: time.Duration(n[0]), cpu: time.Duration(n[1]), maxRSS: n[2], code: int(n[3])}, nil
}
