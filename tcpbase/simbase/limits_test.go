package simbase

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

type block struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
}

// callBlocks calls a tool and returns its result's blocks and isError.
func (s *session) callBlocks(tool, args string) ([]block, bool) {
	s.t.Helper()
	s.id++
	ans, err := s.c.Call(context.Background(), []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, s.id, tool, args)))
	if err != nil {
		s.t.Fatalf("%s: %v", tool, err)
	}
	var r struct {
		Result struct {
			Content []block `json:"content"`
			IsError bool    `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(ans, &r); err != nil {
		s.t.Fatalf("%s: %v: %.200s", tool, err, ans)
	}
	return r.Result.Content, r.Result.IsError
}

// TestLimitToolsOnlyWhenAsked: without LimitTools the tools are unknown.
func TestLimitToolsOnlyWhenAsked(t *testing.T) {
	s, _ := newSession(t, Options{Faults: true})
	s.id++
	ans, err := s.c.Call(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sim_slow","arguments":{"seconds":0}}}`))
	if err != nil || !bytes.Contains(ans, []byte(`"Unknown tool: sim_slow"`)) {
		t.Errorf("%v: %s", err, ans)
	}
}

// TestSlowTool: sim_slow answers after its time, and counts its runs per
// label, so that a test sees whether one call ran at CAD twice.
func TestSlowTool(t *testing.T) {
	s, sim := newSession(t, Options{LimitTools: true})
	start := time.Now()
	if got, isErr := s.call("sim_slow", `{"seconds":0.3,"label":"regen"}`); got != "regen done after 0.3 s (run 1 of regen)" || isErr {
		t.Errorf("%q (isError %v)", got, isErr)
	}
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Errorf("answered after %s, before its 0.3 s", took)
	}
	if got, _ := s.call("sim_slow", `{"seconds":0,"label":"regen"}`); got != "regen done after 0 s (run 2 of regen)" {
		t.Errorf("second run: %q", got)
	}
	if got, _ := s.call("sim_slow", `{"seconds":0}`); got != "work done after 0 s (run 1 of work)" {
		t.Errorf("no label: %q", got)
	}
	if sim.Runs("regen") != 2 || sim.Runs("plot") != 0 {
		t.Errorf("runs: regen %d, plot %d", sim.Runs("regen"), sim.Runs("plot"))
	}
	for args, want := range map[string]string{
		`{}`:                  "Invalid arguments for sim_slow: missing required argument 'seconds'",
		`{"seconds":-1}`:      "Invalid arguments for sim_slow: 'seconds' must be at least 0",
		`{"seconds":3601}`:    "Invalid arguments for sim_slow: 'seconds' must be at most 3600",
		`{"seconds":"7"}`:     "Invalid arguments for sim_slow: 'seconds' must be a number",
		`{"seconds":1,"x":1}`: "Invalid arguments for sim_slow: unknown argument 'x'",
	} {
		if got, isErr := s.call("sim_slow", args); got != want || !isErr {
			t.Errorf("%s: %q (isError %v)", args, got, isErr)
		}
	}
}

// TestSlowToolEndsWithTheServer: a call still working when the base
// closes ends with it, unanswered.
func TestSlowToolEndsWithTheServer(t *testing.T) {
	sim, err := Start("127.0.0.1:0", Options{LimitTools: true})
	if err != nil {
		t.Fatal(err)
	}
	c := &tcpbase.Client{Addr: sim.Addr()}
	done := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sim_slow","arguments":{"seconds":3600}}}`))
		done <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); sim.Calls() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the call never reached the base")
		}
		time.Sleep(time.Millisecond)
	}
	if err := sim.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Error("the call was answered")
	}
	if sim.Runs("work") != 0 {
		t.Error("the run was counted")
	}
}

// TestPictureTool: sim_picture answers a text block naming the picture,
// then the picture, of the size asked, in the format asked; issue 40's
// 2600×1700 PNG is about 4.6 MB.
func TestPictureTool(t *testing.T) {
	s, _ := newSession(t, Options{LimitTools: true})
	for _, tt := range []struct {
		args   string
		format string
		size   image.Point
		min    int
		max    int
	}{
		{`{"width":2600,"height":1700}`, "png", image.Pt(2600, 1700), 4_000_000, 4_800_000},
		{`{"width":1,"height":1,"format":"png"}`, "png", image.Pt(1, 1), 1, 200},
		{`{"width":640,"height":480,"format":"jpeg","seed":9}`, "jpeg", image.Pt(640, 480), 100_000, 600_000},
	} {
		blocks, isErr := s.callBlocks("sim_picture", tt.args)
		if isErr || len(blocks) != 2 || blocks[0].Type != "text" || blocks[1].Type != "image" || blocks[1].MimeType != "image/"+tt.format {
			t.Fatalf("%s: %+v (isError %v)", tt.args, blocks, isErr)
		}
		raw, err := base64.StdEncoding.DecodeString(blocks[1].Data)
		if err != nil {
			t.Fatal(err)
		}
		var img image.Image
		if tt.format == "png" {
			img, err = png.Decode(bytes.NewReader(raw))
		} else {
			img, err = jpeg.Decode(bytes.NewReader(raw))
		}
		if err != nil || img.Bounds().Size() != tt.size || len(raw) < tt.min || len(raw) > tt.max {
			t.Errorf("%s: %v, %v, %d bytes", tt.args, err, img.Bounds().Size(), len(raw))
		}
		want := fmt.Sprintf("Picture of %d × %d px, %s, %d bytes.", tt.size.X, tt.size.Y, strings.ToUpper(tt.format), len(raw))
		if blocks[0].Text != want {
			t.Errorf("%s: %q, want %q", tt.args, blocks[0].Text, want)
		}
	}
	// The same seed, the same picture; another, another.
	a, _ := s.callBlocks("sim_picture", `{"width":50,"height":40,"seed":3}`)
	b, _ := s.callBlocks("sim_picture", `{"width":50,"height":40,"seed":4}`)
	c, _ := s.callBlocks("sim_picture", `{"width":50,"height":40,"seed":3}`)
	if a[1].Data != c[1].Data || a[1].Data == b[1].Data {
		t.Error("the seed does not decide the picture")
	}
	for args, want := range map[string]string{
		`{"width":0,"height":10}`:               "Invalid arguments for sim_picture: 'width' must be at least 1",
		`{"width":8000,"height":8000}`:          "Invalid arguments for sim_picture: 8000 × 8000 is over 14000000 pixels",
		`{"width":10,"height":10,"format":"x"}`: "Invalid arguments for sim_picture: 'format' must be one of png, jpeg",
	} {
		if got, isErr := s.call("sim_picture", args); got != want || !isErr {
			t.Errorf("%s: %q (isError %v)", args, got, isErr)
		}
	}
}

// TestListingTool: sim_listing's text is exactly the bytes asked, valid
// UTF-8 whatever the cut, lines of entities.
func TestListingTool(t *testing.T) {
	s, _ := newSession(t, Options{LimitTools: true})
	for _, n := range []int{0, 1, 37, 38, 39, 1 << 20} {
		for _, uni := range []bool{false, true} {
			got, isErr := s.call("sim_listing", fmt.Sprintf(`{"bytes":%d,"unicode":%v}`, n, uni))
			if isErr || len(got) != n || !utf8.ValidString(got) {
				t.Errorf("%d bytes (unicode %v): %d bytes, valid UTF-8 %v, isError %v", n, uni, len(got), utf8.ValidString(got), isErr)
			}
			if n > 100 && (!strings.HasPrefix(got, "- 101 ") || uni != strings.Contains(got, "𝔸")) {
				t.Errorf("%d bytes (unicode %v): %.80q", n, uni, got)
			}
		}
	}
	// Every cut of a line of 2-, 3- and 4-byte characters is exact.
	for n := 0; n < 200; n++ {
		if l := Listing(n, true); len(l) != n || !utf8.ValidString(l) {
			t.Fatalf("Listing(%d): %d bytes, %q", n, len(l), l)
		}
	}
	if got, isErr := s.call("sim_listing", `{"bytes":16777217}`); !isErr || got != "Invalid arguments for sim_listing: 'bytes' must be at most 16777216" {
		t.Errorf("%q", got)
	}
}
