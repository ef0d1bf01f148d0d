package tools

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestTaskOutputKeepsTheLastMegabyte writes far more than a task keeps, in
// small writes as a chatty server would: what is read back is exactly the
// last taskOutputMax bytes, and the rest is counted as dropped.
func TestTaskOutputKeepsTheLastMegabyte(t *testing.T) {
	var o taskOutput
	var all strings.Builder
	for i := 0; all.Len() < 3*taskOutputMax+12345; i++ {
		line := fmt.Sprintf("line %d of a server that never stops talking\n", i)
		all.WriteString(line)
		if _, err := o.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	got, dropped := o.take()
	want := all.String()[all.Len()-taskOutputMax:]
	if got != want || dropped != all.Len()-taskOutputMax {
		t.Fatalf("kept %d bytes (last %.40q), dropped %d; want the last %d, dropped %d",
			len(got), got[max(0, len(got)-40):], dropped, taskOutputMax, all.Len()-taskOutputMax)
	}
	if got, dropped := o.take(); got != "" || dropped != 0 {
		t.Fatalf("a second read gave %d bytes, %d dropped", len(got), dropped)
	}
	_, _ = o.Write([]byte("after\n"))
	if got, dropped := o.take(); got != "after\n" || dropped != 0 {
		t.Fatalf("after a read: %q, %d dropped", got, dropped)
	}
}

// A task's run time stops when it ends; a running one's goes on.
func TestTaskRunTime(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ended := TaskInfo{Started: t0, Ended: t0.Add(3 * time.Second)}
	running := TaskInfo{Started: t0}
	if got := ended.RunTime(t0.Add(time.Hour)); got != 3*time.Second {
		t.Fatalf("ended task ran %v", got)
	}
	if got := running.RunTime(t0.Add(time.Minute)); got != time.Minute {
		t.Fatalf("running task ran %v", got)
	}
}
