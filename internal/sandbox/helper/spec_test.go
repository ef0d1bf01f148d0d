package helper

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestArgsRoundTrip: every field survives Args and Parse, paths holding
// "=", spaces, newlines or "--" included, and argv is passed as it is.
func TestArgsRoundTrip(t *testing.T) {
	s := Spec{Mode: ModeNS, Writable: []string{"/ws", "/tmp/a=b c", "--"}, ReadOnly: []string{"/ws/.git/config"},
		Pinned: []string{"/ws/.git"}, DenyRead: []string{"/home/u/.ssh", "/x\ny=1"}, PrivateTmp: true,
		Keep: []string{"/tmp/k"}, Landlock: []string{"/ws", "/tmp/a=b c"}, LandlockABI: 7, Network: true,
		LongLived: true, Probe: true, Serve: true, RemountEach: true, Status: true}
	argv := []string{"/bin/bash", "-c", "ls -la", "--", "mode=x"}
	args := Args(s, argv)
	if args[0] != Arg {
		t.Fatalf("first argument = %q", args[0])
	}
	got, gotArgv, err := Parse(args[1:])
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) || !slices.Equal(gotArgv, argv) {
		t.Errorf("parsed %+v %q\nwant   %+v %q", got, gotArgv, s, argv)
	}
	// The zero values write nothing.
	if args := Args(Spec{Mode: ModeContain}, []string{"true"}); !slices.Equal(args, []string{Arg, "mode=contain", "--", "true"}) {
		t.Errorf("minimal spec: %q", args)
	}
}

// TestParseRefusesBadSpecs: what Args never writes is an error, not a
// guess.
func TestParseRefusesBadSpecs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "usage"},
		{[]string{"mode=ns"}, "usage"},
		{[]string{"mode=ns", "sh"}, "usage"},
		{[]string{"--", "sh"}, "no mode"},
		{[]string{"mode=x", "--", "sh"}, `unknown mode "x"`},
		{[]string{"mode=ns", "--"}, "no command"},
		{[]string{"mode=ns", "color=red", "--", "sh"}, `unknown key "color"`},
		{[]string{"mode=ns", "mode=contain", "--", "sh"}, `"mode" given twice`},
		{[]string{"mode=ns", "net=yes", "--", "sh"}, "net must be 0 or 1"},
		{[]string{"mode=ns", "abi=-1", "--", "sh"}, "bad Landlock ABI"},
		{[]string{`{"mode":"ns"}`, "--", "sh"}, "usage"},
	} {
		if _, _, err := Parse(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tc.args, err, tc.want)
		}
	}
	if s, argv, err := Parse([]string{"mode=ns", "probe=1", "--"}); err != nil || !s.Probe || len(argv) != 0 {
		t.Errorf("a probe needs no command: %+v %q %v", s, argv, err)
	}
}
