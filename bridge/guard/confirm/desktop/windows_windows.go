package desktop

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	user32                       = windows.NewLazySystemDLL("user32.dll")
	procMessageBoxW              = user32.NewProc("MessageBoxW")
	procSetWindowsHookExW        = user32.NewProc("SetWindowsHookExW")
	procUnhookWindowsHookEx      = user32.NewProc("UnhookWindowsHookEx")
	procCallNextHookEx           = user32.NewProc("CallNextHookEx")
	procSetDlgItemTextW          = user32.NewProc("SetDlgItemTextW")
	procPostMessageW             = user32.NewProc("PostMessageW")
	procGetProcessWindowStation  = user32.NewProc("GetProcessWindowStation")
	procGetUserObjectInformation = user32.NewProc("GetUserObjectInformationW")
)

const (
	uoiFlags   = 1 // GetUserObjectInformationW: USEROBJECTFLAGS
	wsfVisible = 1 // a window station with a display and input
)

func findWindows() (Asker, string) {
	var session uint32
	if windows.ProcessIdToSessionId(windows.GetCurrentProcessId(), &session) == nil && session == 0 {
		return nil, "no desktop: the bridge runs in Windows session 0 (a service), where no one sees a window; run it in your own session (started by the client, or a scheduled task run only when you are logged on), or use a client that can ask"
	}
	var flags struct {
		inherit, reserved int32
		flags             uint32
	}
	var n uint32
	ws, _, _ := procGetProcessWindowStation.Call()
	if ws == 0 {
		return nil, "no desktop: the bridge has no window station (a service); run it in your own session, or use a client that can ask"
	}
	if ok, _, _ := procGetUserObjectInformation.Call(ws, uoiFlags, uintptr(unsafe.Pointer(&flags)), unsafe.Sizeof(flags), uintptr(unsafe.Pointer(&n))); ok != 0 && flags.flags&wsfVisible == 0 {
		return nil, "no desktop: the bridge's window station is not interactive (a service, or a task not run as the logged-on user); run it in your own session, or use a client that can ask"
	}
	return messageBox{}, ""
}

// messageBox asks with MessageBoxW: OK and Cancel renamed "Run" and "Don't
// run" by a CBT hook on the dialog's own thread, closed by the bridge with
// a posted IDCANCEL at the timeout or when ctx is done. The text is a
// UTF-16 string shown as it is (the box's label shows & as itself).
type messageBox struct{}

func (messageBox) Name() string { return "windows" }

// box is one open message box, known to the hook by its thread.
type box struct {
	hwnd    atomic.Uintptr
	closing atomic.Bool
}

var boxes sync.Map // thread id (uint32) -> *box

// shown, when not nil (tests), is called with each box's window once its
// buttons are named.
var shown func(hwnd uintptr)

var cbtCallback = sync.OnceValue(func() uintptr { return syscall.NewCallback(cbt) })

// cbt is the hook: when the message box of its thread is about to be
// activated (wparam is its window), it names the buttons and records the
// window; if the bridge began to close the box before, it closes it now.
func cbt(code, wparam, lparam uintptr) uintptr {
	if int32(code) == hcbtActivate {
		if v, ok := boxes.Load(windows.GetCurrentThreadId()); ok {
			b := v.(*box)
			if b.hwnd.CompareAndSwap(0, wparam) {
				run, _ := windows.UTF16PtrFromString(RunLabel)
				dont, _ := windows.UTF16PtrFromString(DontRunLabel)
				procSetDlgItemTextW.Call(wparam, idOK, uintptr(unsafe.Pointer(run)))
				procSetDlgItemTextW.Call(wparam, idCancel, uintptr(unsafe.Pointer(dont)))
				if b.closing.Load() {
					procPostMessageW.Call(wparam, wmCommand, idCancel, 0)
				}
				if shown != nil {
					shown(wparam)
				}
			}
		}
	}
	r, _, _ := procCallNextHookEx.Call(0, code, wparam, lparam)
	return r
}

func (messageBox) Ask(ctx context.Context, q Question) (Answer, error) {
	body, err := Text(q)
	if err != nil {
		return DontRun, err
	}
	text, err1 := windows.UTF16PtrFromString(body)
	title, err2 := windows.UTF16PtrFromString(Title(q))
	if err1 != nil || err2 != nil {
		return DontRun, fmt.Errorf("the question holds a NUL character")
	}
	type result struct {
		r   uintptr
		err error
	}
	b := &box{}
	res := make(chan result, 1)
	go func() { // ends when the box closes: by the user, or posted IDCANCEL
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid := windows.GetCurrentThreadId()
		boxes.Store(tid, b)
		defer boxes.Delete(tid)
		hook, _, err := procSetWindowsHookExW.Call(whCBT, cbtCallback(), 0, uintptr(tid))
		if hook == 0 {
			res <- result{err: fmt.Errorf("SetWindowsHookExW: %w", err)}
			return
		}
		defer procUnhookWindowsHookEx.Call(hook)
		r, _, err := procMessageBoxW.Call(0, uintptr(unsafe.Pointer(text)), uintptr(unsafe.Pointer(title)), messageBoxStyle)
		if r == 0 {
			res <- result{err: fmt.Errorf("MessageBoxW: %w", err)}
			return
		}
		res <- result{r: r}
	}()
	var expire <-chan time.Time
	if q.Timeout > 0 {
		t := time.NewTimer(q.Timeout)
		defer t.Stop()
		expire = t.C
	}
	closedBy, closed := DontRun, false
	closeBox := func(why Answer) {
		closedBy, closed = why, true
		b.closing.Store(true)
		if h := b.hwnd.Load(); h != 0 {
			procPostMessageW.Call(h, wmCommand, idCancel, 0)
		}
	}
	var r result
	select {
	case r = <-res:
	case <-ctx.Done():
		closeBox(Cancelled)
		r = <-res
	case <-expire:
		closeBox(TimedOut)
		r = <-res
	}
	if r.err != nil {
		return DontRun, r.err
	}
	a, ok := messageBoxAnswer(r.r, closed, closedBy)
	if !ok {
		return DontRun, fmt.Errorf("MessageBoxW returned %d", r.r)
	}
	return a, nil
}
