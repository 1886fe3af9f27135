//go:build windows

package clientconf

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// ProcessPaths are the program files of the processes running now
// (those whose path this user may read): a snapshot of the processes,
// then each one's full image name.
func ProcessPaths() ([]string, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(snap)
	var pe windows.ProcessEntry32
	pe.Size = uint32(unsafe.Sizeof(pe))
	var out []string
	for err = windows.Process32First(snap, &pe); err == nil; err = windows.Process32Next(snap, &pe) {
		h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pe.ProcessID)
		if err != nil {
			out = append(out, windows.UTF16ToString(pe.ExeFile[:])) // its name at least
			continue
		}
		buf := make([]uint16, windows.MAX_LONG_PATH)
		n := uint32(len(buf))
		if windows.QueryFullProcessImageName(h, 0, &buf[0], &n) == nil {
			out = append(out, windows.UTF16ToString(buf[:n]))
		} else {
			out = append(out, windows.UTF16ToString(pe.ExeFile[:]))
		}
		windows.CloseHandle(h)
	}
	return out, nil
}
