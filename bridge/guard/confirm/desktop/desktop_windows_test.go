package desktop

import (
	"context"
	"os"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	procGetDlgItemTextW = user32.NewProc("GetDlgItemTextW")
	procGetWindowTextW  = user32.NewProc("GetWindowTextW")
)

func dlgText(hwnd, id uintptr) string {
	buf := make([]uint16, 4096)
	n, _, _ := procGetDlgItemTextW.Call(hwnd, id, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	return windows.UTF16ToString(buf[:n])
}

func windowText(hwnd uintptr) string {
	buf := make([]uint16, 1024)
	n, _, _ := procGetWindowTextW.Call(hwnd, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	return windows.UTF16ToString(buf[:n])
}

// TestMessageBox shows the hostile question in a real message box (under
// Wine it needs an X display: MCP_BRIDGE_DESKTOP_TESTS=1 says there is
// one), reads back its title, text and buttons, and answers it each way.
// Not run by make test-windows (no display there). By hand, with the Wine
// prefix and ProcessPrng shim of .ci/windows/test.sh and an Xvfb on :N:
//
//	GOOS=windows go test -c -o desktop.test.exe ./bridge/confirm/desktop
//	DISPLAY=:N MCP_BRIDGE_DESKTOP_TESTS=1 wine desktop.test.exe -test.run TestMessageBox -test.v
func TestMessageBox(t *testing.T) {
	if os.Getenv(strictEnv) != "1" {
		t.Skipf("a real message box: set %s=1 where a desktop can show it", strictEnv)
	}
	a, why := findWindows()
	if a == nil {
		t.Fatalf("findWindows: %s", why)
	}
	windows := make(chan uintptr, 1)
	shown = func(h uintptr) { windows <- h }
	defer func() { shown = nil }()
	for _, c := range []struct {
		name    string
		timeout time.Duration
		act     func(h uintptr, cancel func())
		want    Answer
	}{
		{"Run", time.Hour, func(h uintptr, _ func()) { procPostMessageW.Call(h, wmCommand, idOK, 0) }, Run},
		{"Don't run", time.Hour, func(h uintptr, _ func()) { procPostMessageW.Call(h, wmCommand, idCancel, 0) }, DontRun},
		{"close box", time.Hour, func(h uintptr, _ func()) { procPostMessageW.Call(h, wmClose, 0, 0) }, DontRun},
		{"timeout", time.Second, func(uintptr, func()) {}, TimedOut},
		{"cancelled", time.Hour, func(_ uintptr, cancel func()) { cancel() }, Cancelled},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := hostile
			q.Timeout = c.timeout
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type result struct {
				a   Answer
				err error
			}
			done := make(chan result, 1)
			go func() { a, err := a.Ask(ctx, q); done <- result{a, err} }()
			h := <-windows
			body, _ := Text(q)
			if got := windowText(h); got != Title(q) {
				t.Errorf("title %q; want %q", got, Title(q))
			}
			if got := dlgText(h, 0xFFFF); got != body { // the message box's text
				t.Errorf("text %q; want %q", got, body)
			}
			if ok, cancelLabel := dlgText(h, idOK), dlgText(h, idCancel); ok != RunLabel || cancelLabel != DontRunLabel {
				t.Errorf("buttons %q, %q", ok, cancelLabel)
			}
			c.act(h, cancel)
			if r := <-done; r.a != c.want || r.err != nil {
				t.Errorf("Ask = %v, %v; want %v", r.a, r.err, c.want)
			}
		})
	}
}
