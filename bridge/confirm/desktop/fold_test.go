package desktop

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/confirm/desktop/desktoptest"
)

// TestEveryArgumentInViewOnX: the dialog shows every argument of the
// longest question the rules let through, none of it scrolled out of
// view. The assistant picks the names and values: eight harmless notes of
// 198 characters sort before "zz_erase": "EVERYTHING". yad's text (a
// scrolling view of a fixed 560×420) showed the first four notes and no
// scroll bar: the fifth to eighth, the one that mattered and "Run it?"
// lay below, and Run was one click away. Checked by what the user could
// do to see more: Ctrl+End in the text changes nothing on screen when all
// of it is in view (zenity's label, yad's text of a short question).
// kdialog is left out: Ctrl+End picks the last entry of its combo box.
func TestEveryArgumentInViewOnX(t *testing.T) {
	need(t, true, "Xvfb", "xdotool", "import")
	display := desktoptest.Xvfb(t)
	env := func(k string) string {
		if k == "DISPLAY" {
			return ":" + strconv.Itoa(display)
		}
		return ""
	}
	question := func(notes int) Question {
		var args []string
		for i := range notes {
			args = append(args, fmt.Sprintf(`"a%d_note":"%s"`, i, strings.Repeat("fine and harmless ", 11)))
		}
		args = append(args, `"zz_erase":"EVERYTHING"`)
		return Question{Client: "Claude Desktop", Tool: "delete_entities", Args: []byte("{" + strings.Join(args, ",") + "}"), Timeout: time.Hour}
	}
	for _, k := range []kind{zenity, yad} {
		for _, notes := range []int{0, 8} {
			t.Run(fmt.Sprintf("%s/%d notes", k, notes), func(t *testing.T) {
				need(t, true, k.String())
				q := question(notes)
				if _, err := Text(q); err != nil {
					t.Fatal(err)
				}
				path, _ := exec.LookPath(k.String())
				p := &program{kind: k, path: path, env: childEnv(env)}
				done := make(chan Answer, 1)
				go func() { a, _ := p.Ask(context.Background(), q); done <- a }()
				w := strings.Fields(desktoptest.Xdotool(t, display, "search", "--sync", "--onlyvisible", "--name", "^"+TitlePrefix))[0]
				desktoptest.Xdotool(t, display, "windowfocus", "--sync", w)
				dir := t.TempDir()
				n := 0
				shot := func() []byte {
					n++
					f := filepath.Join(dir, fmt.Sprintf("%d.png", n))
					cmd := exec.Command("import", "-window", w, "rgb:"+f)
					cmd.Env = p.env
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("import: %v %s", err, out)
					}
					b, err := os.ReadFile(f)
					if err != nil {
						t.Fatal(err)
					}
					return b
				}
				// The window drawn: two pictures alike in a row.
				before := shot()
				for i := 0; i < 50; i++ {
					next := shot()
					if bytes.Equal(next, before) {
						break
					}
					before = next
				}
				desktoptest.Xdotool(t, display, "key", "ctrl+End")
				for range 10 {
					if !bytes.Equal(shot(), before) {
						t.Errorf("%s: Ctrl+End scrolled the question: part of it was out of view", k)
						break
					}
				}
				desktoptest.Xdotool(t, display, "key", "Escape")
				<-done
			})
		}
	}
}
