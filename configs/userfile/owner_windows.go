//go:build windows

package userfile

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/windows"
)

// SameOwner does nothing on Windows: a new file inherits its folder's
// access rules.
func SameOwner(path, like string) {}

// Mine checks an opened file's owner (its security descriptor's owner
// SID): this process's user, or the owner the user's token gives new
// files (the Administrators group for an elevated administrator).
// Windows has no group and other mode bits, nor a link count the bridge
// relies on; who else may write the file is its access list's business,
// inherited from the user's profile folder where the user's files live by
// default.
func Mine(f *os.File) error {
	sd, err := windows.GetSecurityInfo(windows.Handle(f.Fd()), windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("its owner cannot be read: %w", err)
	}
	owner, _, err := sd.Owner()
	if err != nil || owner == nil {
		return errors.New("it has no owner")
	}
	tok := windows.GetCurrentProcessToken()
	if u, err := tok.GetTokenUser(); err == nil && owner.Equals(u.User.Sid) {
		return nil
	}
	if tokenOwnerIs(tok, owner) {
		return nil
	}
	return fmt.Errorf("owned by %s, not by you", owner)
}

// tokenOwnerIs reports whether sid is the token's default owner of new
// objects (TOKEN_OWNER, which x/sys/windows does not wrap).
func tokenOwnerIs(tok windows.Token, sid *windows.SID) bool {
	n := uint32(64)
	for range 4 {
		b := make([]byte, n)
		err := windows.GetTokenInformation(tok, windows.TokenOwner, &b[0], n, &n)
		if err == nil {
			owner := (*struct{ Owner *windows.SID })(unsafe.Pointer(&b[0])).Owner
			same := owner != nil && owner.Equals(sid)
			runtime.KeepAlive(b)
			return same
		}
		if err != windows.ERROR_INSUFFICIENT_BUFFER {
			return false
		}
	}
	return false
}
