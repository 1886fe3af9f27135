// Package desktoptest is what the real-dialog tests share (the desktop
// package's own, verify's end to end): a virtual X display, xdotool, and
// the X11 requests xdotool cannot make (closing a window as a window
// manager's close box does, waiting for it to go). Test support only.
package desktoptest

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The X11 requests the desktop tests need that xdotool cannot make: a
// minimal connection, no library.

// CloseWindow asks the X client owning window to close it, as a window
// manager's close box does (WM_DELETE_WINDOW in a WM_PROTOCOLS client
// message): Xvfb has no window manager, and xdotool's windowclose
// destroys the window instead.
func CloseWindow(display int, window uint32) error {
	c, err := xconnect(display)
	if err != nil {
		return err
	}
	defer c.Close()
	protocols, err := c.atom("WM_PROTOCOLS")
	if err != nil {
		return err
	}
	del, err := c.atom("WM_DELETE_WINDOW")
	if err != nil {
		return err
	}
	req := make([]byte, 44)
	req[0] = 25 // SendEvent, propagate false
	xle.PutUint16(req[2:], 11)
	xle.PutUint32(req[4:], window) // destination; event mask 0: its owner
	ev := req[12:]
	ev[0] = 33 // ClientMessage
	ev[1] = 32 // format
	xle.PutUint32(ev[4:], window)
	xle.PutUint32(ev[8:], protocols)
	xle.PutUint32(ev[12:], del) // data: WM_DELETE_WINDOW, CurrentTime
	if _, err := c.Write(req); err != nil {
		return err
	}
	_, err = c.atom("WM_PROTOCOLS") // a round trip: the event was sent
	return err
}

// WaitGone returns when window no longer exists, or is unmapped when
// unmapped is true (Wine hides a closed dialog's X window and may keep
// it): it listens for the window's DestroyNotify (UnmapNotify), an event,
// not a poll, or learns that it is already gone. It gives up after 10 s,
// a guard against a hang only.
func WaitGone(display int, window uint32, unmapped bool) error {
	c, err := xconnect(display)
	if err != nil {
		return err
	}
	defer c.Close()
	req := make([]byte, 16)
	req[0] = 2 // ChangeWindowAttributes
	xle.PutUint16(req[2:], 4)
	xle.PutUint32(req[4:], window)
	xle.PutUint32(req[8:], 0x800)    // CWEventMask
	xle.PutUint32(req[12:], 0x20000) // StructureNotifyMask
	if _, err := c.Write(req); err != nil {
		return err
	}
	if unmapped {
		// GetWindowAttributes: already unmapped?
		req := make([]byte, 8)
		req[0] = 3
		xle.PutUint16(req[2:], 2)
		xle.PutUint32(req[4:], window)
		if _, err := c.Write(req); err != nil {
			return err
		}
	}
	for {
		p := make([]byte, 32)
		if _, err := io.ReadFull(c, p); err != nil {
			return fmt.Errorf("window %#x still there: %w", window, err)
		}
		switch {
		case p[0] == 0 && p[1] == 3: // BadWindow: gone before we asked
			return nil
		case p[0] == 1: // GetWindowAttributes' reply (44 bytes)
			rest := make([]byte, 4*xle.Uint32(p[4:]))
			if _, err := io.ReadFull(c, rest); err != nil {
				return err
			}
			if p[26] == 0 { // map-state Unmapped
				return nil
			}
		case p[0]&0x7f == 17 && xle.Uint32(p[8:]) == window: // DestroyNotify
			return nil
		case unmapped && p[0]&0x7f == 18 && xle.Uint32(p[8:]) == window: // UnmapNotify
			return nil
		}
	}
}

var xle = binary.LittleEndian

type xconn struct{ net.Conn }

// xconnect opens an X11 connection to display, no authorization (Xvfb
// started without -auth).
func xconnect(display int) (*xconn, error) {
	nc, err := net.DialTimeout("unix", fmt.Sprintf("/tmp/.X11-unix/X%d", display), 5*time.Second)
	if err != nil {
		return nil, err
	}
	c := &xconn{nc}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte{'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0}); err != nil {
		c.Close()
		return nil, err
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(c, head); err != nil {
		c.Close()
		return nil, err
	}
	if head[0] != 1 {
		c.Close()
		return nil, fmt.Errorf("X connection refused (status %d)", head[0])
	}
	if _, err := io.CopyN(io.Discard, c, int64(xle.Uint16(head[6:]))*4); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// atom is InternAtom's answer for name.
func (c *xconn) atom(name string) (uint32, error) {
	pad := (4 - len(name)%4) % 4
	req := make([]byte, 8, 8+len(name)+pad)
	req[0] = 16 // InternAtom
	xle.PutUint16(req[2:], uint16((8+len(name)+pad)/4))
	xle.PutUint16(req[4:], uint16(len(name)))
	req = append(append(req, name...), make([]byte, pad)...)
	if _, err := c.Write(req); err != nil {
		return 0, err
	}
	reply := make([]byte, 32)
	if _, err := io.ReadFull(c, reply); err != nil {
		return 0, err
	}
	if reply[0] != 1 {
		return 0, fmt.Errorf("InternAtom %s: X error %d", name, reply[1])
	}
	return xle.Uint32(reply[8:]), nil
}

// Xvfb starts a virtual X display on a free number and returns the
// number; it ends with the test.
func Xvfb(t testing.TB) int {
	t.Helper()
	n, _ := XvfbStoppable(t)
	return n
}

// XvfbStoppable is Xvfb with a way to end the display before the test
// does (a display that goes away: a logout, dropped X forwarding); stop
// returns once the server has exited.
func XvfbStoppable(t testing.TB) (display int, stop func()) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var once sync.Once
	stop = func() { once.Do(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) }
	t.Cleanup(stop)
	line, err := bufio.NewReader(r).ReadString('\n') // written when it accepts connections
	r.Close()
	n, err2 := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || err2 != nil {
		t.Fatalf("Xvfb did not say its display: %q %v", line, err)
	}
	return n, stop
}

// Xdotool runs xdotool on display (bounded, against a hang).
func Xdotool(t testing.TB, display int, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "xdotool", args...)
	cmd.Env = append(os.Environ(), "DISPLAY=:"+strconv.Itoa(display))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xdotool %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}
