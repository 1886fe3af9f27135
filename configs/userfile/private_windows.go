//go:build windows

package userfile

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

var (
	advapi32        = syscall.NewLazyDLL("advapi32.dll")
	procSDDLToSD    = advapi32.NewProc("ConvertStringSecurityDescriptorToSecurityDescriptorW")
	procSetFileSecW = advapi32.NewProc("SetFileSecurityW")
)

// OpenPrivate opens path for appending, creating it, and gives this user
// alone access to it (a log file: logs hold ids, methods, tool names and
// error messages). On Windows the mode bits mean nothing (0600 only
// clears the read-only flag) and a new file inherits its folder's access
// list, so the file gets a protected access list with one entry, full
// control for the user running the bridge (SDDL "D:P(A;;FA;;;<user
// SID>)").
func OpenPrivate(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	if err := restrictToUser(path); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: restricting access to this user: %w", path, err)
	}
	return f, nil
}

func restrictToUser(path string) error {
	tok, err := syscall.OpenCurrentProcessToken()
	if err != nil {
		return err
	}
	defer tok.Close()
	user, err := tok.GetTokenUser()
	if err != nil {
		return err
	}
	sid, err := user.User.Sid.String()
	if err != nil {
		return err
	}
	sddl, err := syscall.UTF16PtrFromString("D:P(A;;FA;;;" + sid + ")")
	if err != nil {
		return err
	}
	const sddlRevision1 = 1
	var sd uintptr
	if ok, _, err := procSDDLToSD.Call(uintptr(unsafe.Pointer(sddl)), sddlRevision1, uintptr(unsafe.Pointer(&sd)), 0); ok == 0 {
		return err
	}
	defer syscall.LocalFree(syscall.Handle(sd))
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return err
	}
	const daclInformation, protectedDACL = 0x4, 0x80000000
	if ok, _, err := procSetFileSecW.Call(uintptr(unsafe.Pointer(p)), daclInformation|protectedDACL, sd); ok == 0 {
		return err
	}
	return nil
}
