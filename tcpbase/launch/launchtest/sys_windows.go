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
	// CONOUT$ opens only in a process that has a console (its standard
	// handles are files here, whatever it has).
	name, _ := windows.UTF16PtrFromString("CONOUT$")
	h, err := windows.CreateFile(name, windows.GENERIC_READ|windows.GENERIC_WRITE, windows.FILE_SHARE_WRITE, nil, windows.OPEN_EXISTING, 0, 0)
	if err == nil {
		s.HasConsole = true
		windows.CloseHandle(h)
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
