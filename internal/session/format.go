package session

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// FormatList renders sums as a table for `coder sessions` and /sessions:
// id, updated time in loc, message count, title. The zone is named once, in
// the header, as a UTC offset (names like CST are ambiguous); a row whose
// offset differs (a DST change in loc) carries its own. loc comes from the
// caller because time.LoadLocation fails where tzdata is missing; nil means UTC.
func FormatList(sums []Summary, loc *time.Location) string {
	if len(sums) == 0 {
		return "no sessions in this workspace\n"
	}
	if loc == nil {
		loc = time.UTC
	}
	zone := utcOffset(sums[0].Updated.In(loc))
	times := make([]string, len(sums))
	idW, timeW := len("id"), len("time ()")+len(zone)
	for i, s := range sums {
		t := s.Updated.In(loc)
		times[i] = t.Format("2006-01-02 15:04")
		if z := utcOffset(t); z != zone {
			times[i] += " (" + z + ")"
		}
		idW, timeW = max(idW, len(s.ID)), max(timeW, len(times[i]))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s  %-*s  %8s  %s\n", idW, "id", timeW, "time ("+zone+")", "messages", "title")
	for i, s := range sums {
		title := listTitle(s.Title)
		if s.Subagents > 0 {
			title += " · " + strconv.Itoa(s.Subagents) + " subagent run"
			if s.Subagents > 1 {
				title += "s"
			}
		}
		fmt.Fprintf(&b, "%-*s  %-*s  %8d  %s\n", idW, s.ID, timeW, times[i], s.Messages, title)
	}
	return b.String()
}

// utcOffset formats t's zone offset as UTC+08:00.
func utcOffset(t time.Time) string {
	_, off := t.Zone()
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("UTC%c%02d:%02d", sign, off/3600, off%3600/60)
}

// listTitle keeps one row per session: control characters (a newline in a
// title) would break the table.
func listTitle(t string) string {
	t = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, t)
	if t = strings.TrimSpace(t); t == "" {
		return "(untitled)"
	}
	return t
}
