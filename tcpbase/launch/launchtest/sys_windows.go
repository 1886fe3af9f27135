//go:build windows

package launchtest

import (
	"os"

	"golang.org/x/sys/windows"
)

var getConsoleWindow = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetConsoleWindow")

func self() Started {
	s := Started{Pid: os.Getpid()}
	w, _, _ := getConsoleWindow.Call()
	s.ConsoleWindow = uint64(w)
	// A process without a console has no console output handle.
	if h, err := windows.GetStdHandle(windows.STD_OUTPUT_HANDLE); err == nil {
		var mode uint32
		s.HasConsole = windows.GetConsoleMode(h, &mode) == nil
	}
	return s
}

// Alive reports whether process pid runs.
func Alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}

// ProcessGroup: Windows has none to compare; -1.
func ProcessGroup(int) int { return -1 }
