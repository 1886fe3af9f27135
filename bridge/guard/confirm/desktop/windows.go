package desktop

// The Win32 message box (windows_windows.go): its style and answers. Here,
// not behind the build tag, so that every system's tests check the words.
const (
	mbOKCancel      = 0x00000001
	mbIconQuestion  = 0x00000020
	mbDefButton2    = 0x00000100
	mbSetForeground = 0x00010000
	mbTopmost       = 0x00040000

	// messageBoxStyle: OK ("Run") and Cancel ("Don't run"), the second
	// the default, a question mark, in front of every window.
	messageBoxStyle = mbOKCancel | mbIconQuestion | mbDefButton2 | mbSetForeground | mbTopmost

	idOK     = 1 // "Run"
	idCancel = 2 // "Don't run", Escape, the close box, or closed by the bridge

	whCBT        = 5 // SetWindowsHookExW: the computer-based-training hook
	hcbtActivate = 5 // its code for a window about to be activated
	wmCommand    = 0x0111
	wmClose      = 0x0010
)

// messageBoxAnswer is the answer of MessageBoxW's result, given whether
// the bridge closed the box itself (at the timeout, or ctx done: closed)
// and why (closedBy). Once the bridge has closed it, a click that came
// just before is not the user's agreement: the call did not wait for it.
func messageBoxAnswer(result uintptr, closed bool, closedBy Answer) (Answer, bool) {
	switch {
	case result != idOK && result != idCancel:
		return DontRun, false
	case closed:
		return closedBy, true
	case result == idOK:
		return Run, true
	}
	return DontRun, true
}
