package tools

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// On Windows a bash call runs under Git for Windows' bash where it is
// installed, another bash on PATH next, and PowerShell where there is none.
func TestWindowsShellChoice(t *testing.T) {
	gitBash := `C:\Program Files\Git\bin\bash.exe`
	cases := []struct {
		name string
		have []string
		want []string
	}{
		{"git for windows", []string{gitBash, "bash", "pwsh"}, []string{gitBash, "-c"}},
		{"bash on PATH (WSL, MSYS2)", []string{"bash", "pwsh"}, []string{"bash", "-c"}},
		{"PowerShell 7", []string{"pwsh", "powershell"}, []string{"pwsh", "-NoProfile", "-NonInteractive", "-Command"}},
		{"Windows PowerShell", []string{"powershell"}, []string{"powershell", "-NoProfile", "-NonInteractive", "-Command"}},
		{"nothing found", nil, []string{"powershell.exe", "-NoProfile", "-NonInteractive", "-Command"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			look := func(name string) (string, error) {
				if slices.Contains(c.have, name) {
					return name, nil
				}
				return "", errors.New("not found")
			}
			if got := windowsShell(look, `C:\Program Files`); !slices.Equal(got, c.want) {
				t.Fatalf("shell %q, want %q", got, c.want)
			}
		})
	}
}

// The model is told when its commands run under PowerShell (Windows
// without bash), and the description of bash stays as it is elsewhere, and
// within its budget either way.
func TestBashDescriptionNamesTheShell(t *testing.T) {
	for _, c := range []struct {
		argv       []string
		powerShell bool
	}{
		{[]string{"/bin/bash", "-c"}, false},
		{[]string{`C:\Program Files\Git\bin\bash.exe`, "-c"}, false},
		{[]string{`C:\Program Files\PowerShell\7\pwsh.exe`, "-NoProfile", "-NonInteractive", "-Command"}, true},
		{[]string{"powershell.exe", "-NoProfile", "-NonInteractive", "-Command"}, true},
	} {
		got := describeShell(bashDescription, c.argv)
		if c.powerShell != strings.Contains(got, "PowerShell") || c.powerShell == strings.Contains(got, "bash -c") {
			t.Errorf("%s: description starts %q", c.argv[0], got[:60])
		}
		if !c.powerShell && got != bashDescription {
			t.Errorf("%s: the description changed", c.argv[0])
		}
		if len(got) > 700 {
			t.Errorf("%s: description is %d bytes", c.argv[0], len(got))
		}
	}
}
