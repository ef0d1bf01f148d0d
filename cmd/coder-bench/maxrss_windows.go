//go:build windows

package main

import "os"

// maxRSS: Windows reports no peak memory through ProcessState.
func maxRSS(*os.ProcessState) int64 { return 0 }
