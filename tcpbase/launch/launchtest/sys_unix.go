//go:build unix

package launchtest

import (
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

func self() Started {
	s := Started{Pid: os.Getpid(), Pgid: syscall.Getpgrp()}
	s.Sid, _ = unix.Getsid(0)
	if in, err := os.Stdin.Stat(); err == nil {
		if null, err := os.Stat(os.DevNull); err == nil {
			s.StdinNull = os.SameFile(in, null)
		}
	}
	return s
}

// Alive reports whether process pid runs (and is not a zombie).
func Alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc (macOS): Kill said it exists
	}
	// pid (comm) S …: the state follows the last ')'.
	for i := len(st) - 1; i >= 0; i-- {
		if st[i] == ')' {
			return i+2 < len(st) && st[i+2] != 'Z'
		}
	}
	return true
}

// ProcessGroup is the process group of pid (Unix), or -1.
func ProcessGroup(pid int) int {
	g, err := unix.Getpgid(pid)
	if err != nil {
		return -1
	}
	return g
}
