//go:build !linux

package tools

import "errors"

var errNoOpenat2 = errors.New("openat2 is not available")

func openDirFd(string) int { return -1 }

func openBeneath(int, string) (rawFD, error) { return noFD, errNoOpenat2 }
