//go:build !unix && !windows

package launchtest

import "os"

func self() Started { return Started{Pid: os.Getpid()} }

// Alive: not known here.
func Alive(int) bool { return false }

// ProcessGroup: none here; -1.
func ProcessGroup(int) int { return -1 }
