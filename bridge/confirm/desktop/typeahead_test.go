package desktop

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/confirm/desktop/desktoptest"
)

// TestTypedAheadNeverRunsOnX: the dialog opens, and takes the keyboard,
// while the user is typing elsewhere: at the CAD program's command line
// (a --listen bridge asks on the CAD machine's desktop), a command and
// Return. Keys meant for another window are no choice of Run: the call
// must not run. kdialog's combo box selects the entry a typed letter
// starts (Qt's keyboard search, case-insensitive): REGEN, ROTATE, REDO
// or RECTANG typed and Return select "Run" and press OK.
func TestTypedAheadNeverRunsOnX(t *testing.T) {
	need(t, true, "Xvfb", "xdotool")
	display := desktoptest.Xvfb(t)
	env := func(k string) string {
		if k == "DISPLAY" {
			return ":" + strconv.Itoa(display)
		}
		return ""
	}
	for _, k := range []kind{zenity, kdialog, yad} {
		for _, word := range []string{"REGEN", "rotate", "LINE"} {
			t.Run(k.String()+"/"+word, func(t *testing.T) {
				need(t, k != kdialog, k.String())
				path, _ := exec.LookPath(k.String())
				p := &program{kind: k, path: path, env: childEnv(env)}
				done := make(chan Answer, 1)
				go func() {
					a, _ := p.Ask(context.Background(), Question{Tool: "delete_all", Args: []byte(`{"layer":"walls"}`), Timeout: time.Hour})
					done <- a
				}()
				w := strings.Fields(desktoptest.Xdotool(t, display, "search", "--sync", "--onlyvisible", "--name", "^"+TitlePrefix))[0]
				desktoptest.Xdotool(t, display, "windowfocus", "--sync", w)
				keys := []string{"key", "--delay", "50"}
				for _, c := range word {
					keys = append(keys, string(c))
				}
				// Return ends the command; Escape then closes a dialog
				// that is still open (yad's: Return does nothing in its text).
				desktoptest.Xdotool(t, display, append(keys, "Return", "Escape")...)
				if a := <-done; a == Run {
					t.Errorf("%s, %q and Return typed for another window: %v", k, word, a)
				}
			})
		}
	}
}
