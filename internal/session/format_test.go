package session

import (
	"testing"
	"time"
	_ "time/tzdata" // Asia/Shanghai even where the system lacks tzdata
)

func TestFormatList(t *testing.T) {
	t.Parallel()
	loc, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	sums := []Summary{
		{ID: "20261122-080412-k3m9qa", Title: "修复解析器 bug", Updated: t0, Messages: 12},
		{ID: "20261121-230000-abcdef", Title: "two\nlines", Updated: time.Date(2026, 11, 21, 23, 0, 0, 0, time.UTC), Messages: 1234},
		{ID: "x", Updated: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
	}
	want := "" +
		"id                      time (UTC+08:00)  messages  title\n" +
		"20261122-080412-k3m9qa  2026-11-22 16:04        12  修复解析器 bug\n" +
		"20261121-230000-abcdef  2026-11-22 07:00      1234  two lines\n" +
		"x                       2026-01-02 11:04         0  (untitled)\n"
	if got := FormatList(sums, loc); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := FormatList(nil, loc); got != "no sessions in this workspace\n" {
		t.Errorf("empty: %q", got)
	}
}

func TestFormatListOffsetChange(t *testing.T) {
	t.Parallel()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	sums := []Summary{
		{ID: "winter", Updated: time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC), Messages: 1, Title: "w"},
		{ID: "summer", Updated: time.Date(2025, 7, 10, 12, 0, 0, 0, time.UTC), Messages: 2, Title: "s"},
	}
	want := "" +
		"id      time (UTC+01:00)              messages  title\n" +
		"winter  2026-01-10 13:00                     1  w\n" +
		"summer  2025-07-10 14:00 (UTC+02:00)         2  s\n"
	if got := FormatList(sums, loc); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := FormatList(sums[:1], nil); got != "id      time (UTC+00:00)  messages  title\nwinter  2026-01-10 12:00         1  w\n" {
		t.Errorf("nil loc:\n%s", got)
	}
}
