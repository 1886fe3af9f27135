//go:build windows

package userfile

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// TestPrivateACL: on Windows a private file's (the log file's) access
// list lets in nobody but the user running the bridge: no entry
// inherited from its folder for Everyone, Users or Administrators. Windows reads back exactly
// "D:P(A;;FA;;;<user>)"; Wine keeps no access lists, only the unix mode it
// derives from them, and reads back "D:(A;;FA;;;SY)(A;;FA;;;<user>)"
// (SY, the system itself, it adds to every file); without the restriction
// it also lists "(A;;0x1200a9;;;WD)", Everyone may read.
func TestPrivateACL(t *testing.T) {
	path := filepath.Join(testdir.New(t), "bridge.log")
	f, err := OpenPrivate(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	tok, err := syscall.OpenCurrentProcessToken()
	if err != nil {
		t.Fatal(err)
	}
	defer tok.Close()
	user, err := tok.GetTokenUser()
	if err != nil {
		t.Fatal(err)
	}
	sid, _ := user.User.Sid.String()
	dacl := fileDACL(t, path)
	aces := strings.Split(strings.TrimSuffix(dacl[strings.Index(dacl, "(")+1:], ")"), ")(")
	mine := false
	for _, ace := range aces {
		f := strings.Split(ace, ";")
		switch {
		case len(f) != 6 || f[0] != "A":
			t.Errorf("access list %s: entry %q is not an allow entry", dacl, ace)
		case f[5] == sid:
			mine = true
		case f[5] != "SY":
			t.Errorf("access list %s: %s may access the log (want %s only)", dacl, f[5], sid)
		}
	}
	if !mine {
		t.Errorf("access list %s: nothing for this user (%s)", dacl, sid)
	}
}

// fileDACL reads a file's access list back in SDDL form.
func fileDACL(t *testing.T, path string) string {
	t.Helper()
	getFileSec := advapi32.NewProc("GetFileSecurityW")
	toSDDL := advapi32.NewProc("ConvertSecurityDescriptorToStringSecurityDescriptorW")
	const daclInformation = 0x4
	p, _ := syscall.UTF16PtrFromString(path)
	var need uint32
	getFileSec.Call(uintptr(unsafe.Pointer(p)), daclInformation, 0, 0, uintptr(unsafe.Pointer(&need)))
	if need == 0 {
		t.Fatalf("GetFileSecurityW: no size for %s", path)
	}
	sd := make([]byte, need)
	if ok, _, err := getFileSec.Call(uintptr(unsafe.Pointer(p)), daclInformation, uintptr(unsafe.Pointer(&sd[0])), uintptr(need), uintptr(unsafe.Pointer(&need))); ok == 0 {
		t.Fatalf("GetFileSecurityW: %v", err)
	}
	var str *uint16
	if ok, _, err := toSDDL.Call(uintptr(unsafe.Pointer(&sd[0])), 1, daclInformation, uintptr(unsafe.Pointer(&str)), 0); ok == 0 {
		t.Fatalf("ConvertSecurityDescriptorToStringSecurityDescriptorW: %v", err)
	}
	defer syscall.LocalFree(syscall.Handle(unsafe.Pointer(str)))
	return syscall.UTF16ToString(unsafe.Slice(str, wcslen(str)))
}

func wcslen(p *uint16) int {
	n := 0
	for ; *(*uint16)(unsafe.Add(unsafe.Pointer(p), 2*n)) != 0; n++ {
	}
	return n
}
