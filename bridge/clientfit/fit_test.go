package clientfit

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func desktop(t testing.TB) Limits {
	t.Helper()
	c, ok := Lookup("claude-ai")
	if !ok {
		t.Fatal("claude-ai is not in the table")
	}
	return c.Limits
}

// sameSlice reports whether out is in itself, not a copy.
func sameSlice(in, out []byte) bool {
	return len(in) == len(out) && (len(in) == 0 || &in[0] == &out[0])
}

// TestNoLimitIsTheBasesBytes: a client without limits, or a result under
// them, gets the base's bytes, the same slice, and nothing is decoded.
func TestNoLimitIsTheBasesBytes(t *testing.T) {
	big := resultOf(imageBlock(issuePNG(), "image/png"), textBlockOf(strings.Repeat("é", 600_000)))
	small := resultOf(imageBlock(pngOf(t, noise(300, 200, 2)), "image/png"), textBlockOf("Line 101 drawn."))
	text := resultOf(textBlockOf(strings.Repeat("entity 101 line on 0\n", 40_000)))
	tests := []struct {
		name      string
		result    []byte
		lim       Limits
		decodes   map[string]int
		limitText string
	}{
		{"unknown client, 5.8 MB picture", big, Config{}.For("some-client"), map[string]int{}, ""},
		{"Claude Code, 840 KB of text", text, Config{}.For("claude-code"), map[string]int{}, ""},
		{"Claude Desktop, 840 KB of text", text, desktop(t), map[string]int{}, ""},
		// Under picture limits a picture's first bytes are read for its size:
		// its header, never its data.
		{"Claude Desktop, 300×200 picture", small, desktop(t), map[string]int{"header": 1}, ""},
		{"--max-result-bytes 0 over the table", text, Config{MaxResultBytes: 0, MaxResultBytesSet: true}.For("claude-ai"), map[string]int{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out []byte
			var rep Report
			got := countDecodes(t, func() { out, rep = Fit(tt.result, tt.lim) })
			if !sameSlice(tt.result, out) || rep.Changed {
				t.Errorf("the result was changed (%d → %d bytes, %+v)", len(tt.result), len(out), rep)
			}
			if diff := cmp.Diff(tt.decodes, got); diff != "" {
				t.Errorf("decodes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExactlyTheLimit: a result of exactly MaxResultBytes goes as it is;
// one byte more is cut to fit, and says so.
func TestExactlyTheLimit(t *testing.T) {
	const limit = 200_000
	lim := Config{MaxResultBytes: limit, MaxResultBytesSet: true}.For("some-client")
	at := resultOf(textBlockOf(""))
	at = resultOf(textBlockOf(strings.Repeat("x", limit-len(at))))
	if len(at) != limit {
		t.Fatalf("built %d bytes", len(at))
	}
	out, rep := Fit(at, lim)
	if !sameSlice(at, out) || rep.Changed {
		t.Errorf("a result of exactly the limit was changed: %d bytes", len(out))
	}

	over := resultOf(textBlockOf(strings.Repeat("x", limit-len(resultOf(textBlockOf("")))+1)))
	out, rep = Fit(over, lim)
	if len(out) > limit {
		t.Fatalf("one byte over: %d bytes out, limit %d", len(out), limit)
	}
	p := parse(t, out)
	if len(p.Content) != 2 || !strings.HasPrefix(strings.Repeat("x", limit), p.Content[0].Text) || !strings.Contains(p.Content[1].Text, "the text above was cut") {
		t.Fatalf("one byte over: %.300s", out)
	}
	if rep.CutChars == 0 || !rep.Changed {
		t.Errorf("report: %+v", rep)
	}
}

// TestTextCutToTheLimit: 1 MiB of text with --max-result-bytes 200000
// comes out as at most 200000 bytes that say how much was left out and
// that the tool's arguments may ask for less; what is kept is the start of
// the text.
func TestTextCutToTheLimit(t *testing.T) {
	text := strings.Repeat("- 101 line on walls: (0, 0) - (10, 0)\n", (1<<20)/38)
	in := resultOf(textBlockOf(text))
	lim := Config{MaxResultBytes: 200_000, MaxResultBytesSet: true}.For("some-client")
	out, rep := Fit(in, lim)
	if len(out) > 200_000 {
		t.Fatalf("%d bytes out, limit 200000", len(out))
	}
	p := parse(t, out)
	if len(p.Content) != 2 {
		t.Fatalf("%d blocks", len(p.Content))
	}
	kept, note := p.Content[0].Text, p.Content[1].Text
	if !strings.HasPrefix(text, kept) || len(kept) < 190_000 {
		t.Errorf("kept %d bytes, not the start of the text or far less than fits", len(kept))
	}
	left := utf8.RuneCountInString(text) - utf8.RuneCountInString(kept)
	want := fmt.Sprintf("mcp-bridge: the text above was cut: %s of %s characters left out to fit what this client takes (200,000 bytes a result). The tool's own arguments may ask for less (a filter, a layer, a range).",
		count(left), count(utf8.RuneCountInString(text)))
	if note != want {
		t.Errorf("note:\n got %s\nwant %s", note, want)
	}
	if rep.CutChars != left || *p.IsError {
		t.Errorf("report %+v, isError %v", rep, *p.IsError)
	}
}

// TestCutAtACharacter: whatever the limit, a cut never splits a UTF-8
// sequence, an escape or a surrogate pair: the text kept is always a
// prefix of the original, character for character, and the limit holds.
func TestCutAtACharacter(t *testing.T) {
	// 2-, 3- and 4-byte UTF-8, escapes of 2, 6 and 12 bytes (a surrogate
	// pair), each repeated so that every offset is a possible cut.
	unit := `é€😀\n\"\u00e9\ud83d\ude00a`
	runes := []rune("é€😀\n\"é😀a")
	token := `"` + strings.Repeat(unit, 200) + `"`
	in := []byte(`{"content":[{"type":"text","text":` + token + `}]}`)
	var orig string
	if err := json.Unmarshal([]byte(token), &orig); err != nil {
		t.Fatal(err)
	}
	for limit := MinResultBytes + 300; limit < MinResultBytes+300+len(unit)+1; limit++ {
		out, _ := Fit(in, Limits{MaxResultBytes: limit})
		if len(out) > limit {
			t.Fatalf("limit %d: %d bytes", limit, len(out))
		}
		p := parse(t, out)
		kept := p.Content[0].Text
		if !strings.HasPrefix(orig, kept) || !utf8.ValidString(kept) || strings.ContainsRune(kept, utf8.RuneError) {
			t.Fatalf("limit %d: kept %q is not a prefix of the text, or holds a broken character", limit, kept)
		}
		if n := utf8.RuneCountInString(kept) % len(runes); n > 0 && []rune(kept)[len([]rune(kept))-1] != runes[n-1] {
			t.Fatalf("limit %d: the text kept ends inside a character", limit)
		}
	}
}

func TestCutCharsUnits(t *testing.T) {
	s := []byte(`aé\n\u00e9\ud83d\ude00😀`)
	// The boundaries between characters, in bytes: a, é (2), \n (2),
	// \u00e9 (6), the pair (12), 😀 (4).
	bounds := []int{0, 1, 3, 5, 11, 23, 27}
	for max := 0; max <= len(s); max++ {
		prefix, kept := cutChars(s, max)
		want := 0
		for i, b := range bounds {
			if b <= max {
				want = i
			}
		}
		if len(prefix) != bounds[want] || kept != want {
			t.Errorf("max %d: prefix %q (%d characters), want %d bytes, %d characters", max, prefix, kept, bounds[want], want)
		}
	}
	if n := countChars(s); n != 6 {
		t.Errorf("countChars = %d, want 6", n)
	}
}

// TestPictureSideEdge: a picture of exactly the largest side goes as it
// is; one pixel more is scaled to it, aspect kept, and says so.
func TestPictureSideEdge(t *testing.T) {
	lim := desktop(t)
	// Strips: the longer side is what the limit is about.
	at := resultOf(imageBlock(pngOf(t, flat(2000, 41)), "image/png"))
	out, rep := Fit(at, lim)
	if !sameSlice(at, out) || rep.Changed {
		t.Errorf("a 2000×41 picture was changed for a 2000 px limit: %+v", rep)
	}
	tall := resultOf(imageBlock(pngOf(t, flat(41, 2000)), "image/png"))
	if out, _ := Fit(tall, lim); !sameSlice(tall, out) {
		t.Errorf("a 41×2000 picture was changed for a 2000 px limit")
	}

	for _, size := range []image.Point{{2001, 41}, {41, 2001}} {
		over := resultOf(imageBlock(pngOf(t, flat(size.X, size.Y)), "image/png"))
		out, rep = Fit(over, lim)
		p := parse(t, out)
		if len(p.Content) != 2 || p.Content[0].MimeType != "image/png" {
			t.Fatalf("%v: %.300s", size, out)
		}
		img := decodePicture(t, p.Content[0].Data, p.Content[0].MimeType)
		want := image.Pt(2000, 41) // 40.98
		if size.Y > size.X {
			want = image.Pt(41, 2000)
		}
		if got := img.Bounds().Size(); got != want {
			t.Errorf("%v: reduced to %v, want %v", size, got, want)
		}
		note := fmt.Sprintf("mcp-bridge: the picture above was reduced from %d×%d to %d×%d px (PNG) to fit what Claude Desktop takes (1 MiB a result, 2000 px a side, 5 MiB a picture).", size.X, size.Y, want.X, want.Y)
		if p.Content[1].Text != note {
			t.Errorf("%v: note\n got %s\nwant %s", size, p.Content[1].Text, note)
		}
		if diff := cmp.Diff([]PictureReport{{From: size, To: want, Format: "png"}}, rep.Pictures); diff != "" {
			t.Errorf("%v: report (-want +got):\n%s", size, diff)
		}
	}
}

// TestAspectKept: scaled pictures keep their aspect ratio within a pixel.
func TestAspectKept(t *testing.T) {
	for _, size := range []image.Point{{2600, 1700}, {2001, 3}, {3, 2001}, {4999, 2003}, {2500, 2500}} {
		got := within(size, 2000)
		if max(got.X, got.Y) != 2000 {
			t.Errorf("%v → %v: the longer side is not 2000", size, got)
		}
		// The shorter side is within half a pixel of the exact one.
		if size.X >= size.Y {
			if exact := float64(size.Y) * 2000 / float64(size.X); math.Abs(float64(got.Y)-exact) > 0.5 && got.Y != 1 {
				t.Errorf("%v → %v: height %d, exactly %.2f", size, got, got.Y, exact)
			}
		} else if exact := float64(size.X) * 2000 / float64(size.Y); math.Abs(float64(got.X)-exact) > 0.5 && got.X != 1 {
			t.Errorf("%v → %v: width %d, exactly %.2f", size, got, got.X, exact)
		}
	}
}

// TestDesktopNoisePNG: issue 40's picture, 2600×1700 of noise (4.6 MB of PNG),
// to a client that names itself as Claude Desktop does: at most 2000 px a
// side, the same aspect ratio, the whole answer within 1 MiB, a PNG that
// decodes.
func TestDesktopNoisePNG(t *testing.T) {
	src := issuePNG()
	in := resultOf(imageBlock(src, "image/png"))
	lim := Config{}.For("claude-ai")
	out, rep := Fit(in, lim)
	if len(out) > 1<<20 {
		t.Fatalf("%d bytes, over 1 MiB", len(out))
	}
	p := parse(t, out)
	if len(p.Content) != 2 || p.Content[0].Type != "image" || p.Content[0].MimeType != "image/png" || p.Content[1].Type != "text" {
		t.Fatalf("%.300s", out)
	}
	got := decodePicture(t, p.Content[0].Data, "image/png").Bounds().Size()
	if max(got.X, got.Y) > 2000 || math.Abs(float64(got.Y)-float64(got.X)*1700/2600) > 1 {
		t.Errorf("reduced to %v: over 2000 px or not 2600:1700", got)
	}
	if !strings.Contains(p.Content[1].Text, fmt.Sprintf("reduced from 2600×1700 to %d×%d px (PNG)", got.X, got.Y)) {
		t.Errorf("note: %s", p.Content[1].Text)
	}
	if len(out) < 1<<19 {
		t.Errorf("%d bytes: far less than the 1 MiB the client takes", len(out))
	}
	if len(rep.Pictures) != 1 || rep.Pictures[0].To != got || *p.IsError {
		t.Errorf("report %+v", rep)
	}
}

// TestJPEGStaysJPEG: a JPEG over the bytes is re-encoded as JPEG, its
// quality stepped down before its size.
func TestJPEGStaysJPEG(t *testing.T) {
	src := jpegOf(t, noise(800, 500, 3), 95)
	in := resultOf(imageBlock(src, "image/jpeg"))
	limit := len(in) / 3
	out, rep := Fit(in, Limits{MaxResultBytes: limit})
	if len(out) > limit {
		t.Fatalf("%d bytes, limit %d", len(out), limit)
	}
	p := parse(t, out)
	if p.Content[0].MimeType != "image/jpeg" {
		t.Fatalf("mimeType %q", p.Content[0].MimeType)
	}
	got := decodePicture(t, p.Content[0].Data, "image/jpeg").Bounds().Size()
	if got != image.Pt(800, 500) {
		t.Errorf("reduced to %v: a lower quality at its own size fits", got)
	}
	if len(rep.Pictures) != 1 || rep.Pictures[0].Format != "jpeg" {
		t.Errorf("report %+v", rep)
	}
}

// TestGIFGoesOutAsPNG: a GIF over the side is scaled and sent as PNG.
func TestGIFGoesOutAsPNG(t *testing.T) {
	var buf bytes.Buffer
	// A drawing: a few colours, a few KB however large.
	if err := gif.Encode(&buf, drawing(2400, 300), nil); err != nil {
		t.Fatal(err)
	}
	out, _ := Fit(resultOf(imageBlock(buf.Bytes(), "image/gif")), desktop(t))
	p := parse(t, out)
	if p.Content[0].MimeType != "image/png" {
		t.Fatalf("mimeType %q", p.Content[0].MimeType)
	}
	if got := decodePicture(t, p.Content[0].Data, "image/png").Bounds().Size(); got != image.Pt(2000, 250) {
		t.Errorf("reduced to %v", got)
	}
}

// TestWebPGoesOutAsPNG: a WebP (x/image's own test pictures, lossless and
// lossy) over the bytes is scaled and sent as PNG.
func TestWebPGoesOutAsPNG(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		// Under Wine (make test-windows) there is no go command to find
		// x/image's pictures; the code is the same Go the Linux run checks.
		t.Skip("no go command to find golang.org/x/image's test pictures:", err)
	}
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "golang.org/x/image").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"blue-purple-pink-large.lossless.webp", "blue-purple-pink-large.normal-filter.lossy.webp"} {
		src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(dir)), "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		in := resultOf(imageBlock(src, "image/webp"))
		limit := max(MinResultBytes, len(in)/3)
		out, rep := Fit(in, Limits{MaxResultBytes: limit})
		p := parse(t, out)
		if len(out) > limit || p.Content[0].MimeType != "image/png" || len(rep.Pictures) != 1 {
			t.Fatalf("%s: %d bytes (limit %d), %+v", name, len(out), limit, rep)
		}
		if got := decodePicture(t, p.Content[0].Data, "image/png").Bounds().Size(); got != rep.Pictures[0].To {
			t.Errorf("%s: %v, report says %v", name, got, rep.Pictures[0].To)
		}
	}
}

// drawing is a w×h paletted picture of a grid of lines, as a CAD view
// saved in few colours is.
func drawing(w, h int) *image.Paletted {
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.White, color.Black, color.RGBA{200, 0, 0, 255}})
	for y := range h {
		for x := range w {
			switch {
			case x%50 == 0 || y%50 == 0:
				img.SetColorIndex(x, y, 1)
			case (x+y)%97 == 0:
				img.SetColorIndex(x, y, 2)
			}
		}
	}
	return img
}

// bomb is a PNG whose header says 60000×60000 (14 GB decoded) and whose
// data is a few bytes: refused from its header.
func bomb(t *testing.T) []byte {
	b := bytes.Clone(pngOf(t, flat(1, 1)))
	copy(b[16:24], []byte{0, 0, 0xea, 0x60, 0, 0, 0xea, 0x60})
	binary.BigEndian.PutUint32(b[29:33], crc32.ChecksumIEEE(b[12:29])) // IHDR's CRC, so that only its size is wrong
	return b
}

// TestBrokenPictures: a picture Fit cannot read is never sent over a
// limit: it is left out, and a note says why; what is sent is valid JSON.
func TestBrokenPictures(t *testing.T) {
	good := pngOf(t, noise(800, 600, 4))
	tests := []struct {
		name, data, mime, why string
	}{
		{"not base64", "%%%%" + strings.Repeat("A", 3_000_000), "image/png", "its data is not valid base64"},
		{"a PNG cut short", base64.StdEncoding.EncodeToString(good[:len(good)/2]), "image/png", "it is broken or cut short"},
		{"says PNG, is text", base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("not a picture "), 200_000)), "image/png", "it is not a PNG, JPEG, GIF or WebP picture"},
		{"SVG over the limit", base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("<svg></svg>"), 200_000)), "image/svg+xml", "it is not a PNG, JPEG, GIF or WebP picture"},
		{"a decompression bomb", base64.StdEncoding.EncodeToString(bomb(t)) + "", "image/png", "it has more pixels than the bridge decodes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(`{"content":[{"type":"text","text":"before"},{"type":"image","data":"` + tt.data + `","mimeType":"` + tt.mime + `"},{"type":"text","text":"after"}],"isError":false,"pad":"` + strings.Repeat("p", 1<<20) + `"}`)
			var out []byte
			var rep Report
			got := countDecodes(t, func() { out, rep = Fit(in, desktop(t)) })
			if len(out) > 1<<20 {
				t.Fatalf("%d bytes", len(out))
			}
			p := parse(t, out)
			if len(p.Content) < 3 || p.Content[0].Text != "before" || p.Content[1].Type != "text" || p.Content[2].Text != "after" {
				t.Fatalf("%.400s", out)
			}
			if note := p.Content[1].Text; !strings.Contains(note, "was left out: it could not be reduced") || !strings.Contains(note, tt.why) {
				t.Errorf("note: %s", note)
			}
			if tt.name == "a decompression bomb" && got["pixels"] > 0 {
				t.Errorf("the bomb was decoded: %v", got)
			}
			if len(rep.Pictures) != 1 || rep.Pictures[0].Why != tt.why {
				t.Errorf("report %+v", rep)
			}
		})
	}
}

// TestEverythingElseKept: the result's members keep their order and
// bytes, blocks not reduced are as the base wrote them, and a reduced
// picture keeps its other members.
func TestEverythingElseKept(t *testing.T) {
	pic := base64.StdEncoding.EncodeToString(pngOf(t, drawing(2400, 300)))
	in := []byte(`{"_meta":{"cad/drawing":"Plan 1"},"content":[{"type":"text","text":"Plan 1, view from the top:"},` +
		`{"annotations":{"audience":["user"]},"type":"image","mimeType":"image/png","data":"` + pic + `"},` +
		`{"type":"resource_link","uri":"file:///plans/plan1.dwg","name":"plan1.dwg"}],"structuredContent":{"entities":3},"isError":false,"x-cad":[1,2]}`)
	out, _ := Fit(in, desktop(t))
	var members []string
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(out))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, _ := dec.Token()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		members = append(members, k.(string))
	}
	if diff := cmp.Diff([]string{"_meta", "content", "structuredContent", "isError", "x-cad"}, members); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"_meta": `{"cad/drawing":"Plan 1"}`, "structuredContent": `{"entities":3}`, "isError": `false`, "x-cad": `[1,2]`} {
		if string(raw[k]) != want {
			t.Errorf("%s: %s, want %s", k, raw[k], want)
		}
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw["content"], &blocks); err != nil || len(blocks) != 4 {
		t.Fatalf("%v: %d blocks", err, len(blocks))
	}
	if string(blocks[0]) != `{"type":"text","text":"Plan 1, view from the top:"}` || string(blocks[3]) != `{"type":"resource_link","uri":"file:///plans/plan1.dwg","name":"plan1.dwg"}` {
		t.Errorf("blocks not reduced were changed: %s, %s", blocks[0], blocks[3])
	}
	if !bytes.HasPrefix(blocks[1], []byte(`{"annotations":{"audience":["user"]},"type":"image","mimeType":"image/png","data":"`)) {
		t.Errorf("the reduced picture lost its members or their order: %.120s", blocks[1])
	}
	if !bytes.Contains(blocks[2], []byte("reduced from 2400×300 to 2000×250 px")) {
		t.Errorf("no note after the picture: %s", blocks[2])
	}
}

// TestStructuredContent: kept whole while the content can give way
// around it; left out, and said so, when it alone is over the limit.
func TestStructuredContent(t *testing.T) {
	listing := strings.Repeat(`{"handle":"101","type":"line"},`, 15_000) // 465 KB
	structured := `{"entities":[` + strings.TrimSuffix(listing, ",") + `]}`
	in := []byte(`{"content":[` + textBlockOf(structured) + `],"structuredContent":` + structured + `,"isError":false}`)
	lim := Limits{MaxResultBytes: 700_000}
	out, rep := Fit(in, lim)
	p := parse(t, out)
	if len(out) > 700_000 || string(p.StructuredContent) != structured {
		t.Fatalf("%d bytes; structuredContent kept whole: %v", len(out), string(p.StructuredContent) == structured)
	}
	if rep.CutChars == 0 || len(p.Content) != 2 {
		t.Errorf("the text copy was not cut: %+v", rep)
	}

	lim = Limits{MaxResultBytes: 300_000}
	out, rep = Fit(in, lim)
	p = parse(t, out)
	if len(out) > 300_000 || p.StructuredContent != nil {
		t.Fatalf("%d bytes; structuredContent %.40s", len(out), p.StructuredContent)
	}
	last := p.Content[len(p.Content)-1].Text
	if !strings.HasPrefix(last, "mcp-bridge: the result's structuredContent (") || len(rep.LeftOut) != 1 || !strings.HasPrefix(rep.LeftOut[0], "structuredContent (") {
		t.Errorf("last block %q, report %+v", last, rep)
	}
	if *p.IsError {
		t.Error("isError changed")
	}
}

// TestBlocksLeftOut: audio and a binary resource cannot be cut: left out
// whole with a note when over; a text resource is cut like text.
func TestBlocksLeftOut(t *testing.T) {
	audio := `{"type":"audio","data":"` + strings.Repeat("QUJD", 300_000) + `","mimeType":"audio/wav"}`
	blob := `{"type":"resource","resource":{"uri":"file:///plan.dwg","mimeType":"application/acad","blob":"` + strings.Repeat("QUJD", 300_000) + `"}}`
	textRes := `{"type":"resource","resource":{"uri":"file:///plan.txt","mimeType":"text/plain","text":"` + strings.Repeat("line\\n", 300_000) + `"}}`
	for _, tt := range []struct{ name, block, want string }{
		{"audio", audio, "mcp-bridge: an audio block (audio/wav, 1.1 MiB) was left out to fit what this client takes (1 MiB a result)."},
		{"binary resource", blob, "mcp-bridge: a resource block (application/acad, 1.1 MiB) was left out to fit what this client takes (1 MiB a result)."},
		{"text resource", textRes, "mcp-bridge: the text above was cut: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := Fit(resultOf(textBlockOf("before"), tt.block), Limits{MaxResultBytes: 1 << 20})
			p := parse(t, out)
			if len(out) > 1<<20 || p.Content[0].Text != "before" {
				t.Fatalf("%d bytes: %.200s", len(out), out)
			}
			last := p.Content[len(p.Content)-1].Text
			if !strings.HasPrefix(last, tt.want) {
				t.Errorf("note:\n got %s\nwant %s", last, tt.want)
			}
			if tt.name == "text resource" && !bytes.Contains(out, []byte(`"resource":{"uri":"file:///plan.txt","mimeType":"text/plain","text":"line\nline\n`)) {
				t.Errorf("the resource was not cut in place: %.200s", out)
			}
		})
	}
}

// TestInvalidUTF8Counted: bytes that are not UTF-8, which the writer
// replaces by three bytes each, are replaced here, where the limit is
// counted.
func TestInvalidUTF8Counted(t *testing.T) {
	in := resultOf(`{"type":"text","text":"` + strings.Repeat("\xff", 1000) + `"}`)
	limit := len(in) + 100 // under the limit as sent; 3000 bytes once written
	out, _ := Fit(in, Limits{MaxResultBytes: max(limit, MinResultBytes)})
	if !utf8.Valid(out) || len(out) > max(limit, MinResultBytes) {
		t.Fatalf("%d bytes, valid UTF-8 %v", len(out), utf8.Valid(out))
	}
	parse(t, out)
}

// TestUnreadableResult: a result that is not a JSON object, over the
// limit, is replaced by a note saying so.
func TestUnreadableResult(t *testing.T) {
	in := []byte(`[` + strings.Repeat(`"x",`, 100_000) + `"x"]`)
	out, rep := Fit(in, Limits{MaxResultBytes: 10_000})
	p := parse(t, out)
	if len(out) > 10_000 || len(p.Content) != 1 || !strings.Contains(p.Content[0].Text, "is not a JSON object") || len(rep.LeftOut) != 1 {
		t.Errorf("%s", out)
	}
}

// TestNotesOnlyNeverOver: whatever the mix, the result never passes the
// limit, down to the smallest.
func TestNotesOnlyNeverOver(t *testing.T) {
	in := resultOf(textBlockOf(strings.Repeat("a", 5000)), imageBlock(pngOf(t, noise(150, 120, 6)), "image/png"),
		`{"type":"audio","data":"QUJD","mimeType":"audio/wav"}`, textBlockOf(strings.Repeat("b", 5000)))
	in = append(in[:len(in)-1], `,"structuredContent":{"a":"`+strings.Repeat("s", 5000)+`"}}`...)
	for limit := 1; limit < len(in)+300; limit += 311 {
		out, _ := Fit(in, Limits{MaxResultBytes: limit, MaxImageSide: 100})
		if len(out) > max(limit, MinResultBytes) {
			t.Fatalf("limit %d: %d bytes", limit, len(out))
		}
		p := parse(t, out)
		for _, c := range p.Content {
			if c.Type == "image" {
				decodePicture(t, c.Data, c.MimeType)
			}
		}
	}
}

// TestEscapedTypeIsSeen: a picture whose type is written with an escape
// ("\u0069mage") is a picture to the client, and is held to the limits
// like any other.
func TestEscapedTypeIsSeen(t *testing.T) {
	in := []byte(`{"content":[{"type":"\u0069mage","data":"` + base64.StdEncoding.EncodeToString(pngOf(t, flat(2001, 41))) + `","mimeType":"image/png"}]}`)
	out, rep := Fit(in, desktop(t))
	p := parse(t, out)
	if !rep.Changed || len(p.Content) != 2 {
		t.Fatalf("not reduced: %+v", rep)
	}
	if got := decodePicture(t, p.Content[0].Data, p.Content[0].MimeType).Bounds().Size(); got != image.Pt(2000, 41) {
		t.Errorf("reduced to %v", got)
	}
}

// TestUnreadableHeaderNotSent: a small result whose picture says PNG but
// whose header is cut short cannot be checked against the picture limits:
// it is decoded, fails, and a note goes in its place (a client's API would
// refuse the whole answer for it).
func TestUnreadableHeaderNotSent(t *testing.T) {
	head := pngOf(t, flat(10, 10))[:20]
	in := resultOf(textBlockOf("view:"), imageBlock(head, "image/png"))
	out, rep := Fit(in, desktop(t))
	p := parse(t, out)
	if len(p.Content) != 2 || p.Content[1].Type != "text" || !strings.Contains(p.Content[1].Text, "it is broken or cut short") {
		t.Fatalf("%s", out)
	}
	if len(rep.Pictures) != 1 || rep.Pictures[0].Why != "it is broken or cut short" {
		t.Errorf("report %+v", rep)
	}
}

// TestConcurrentFits: clients' answers are fitted at once from many
// goroutines (one picture decoded at a time among them); each gets its
// own picture, reduced.
func TestConcurrentFits(t *testing.T) {
	lim := desktop(t)
	results := make([][]byte, 4)
	for i := range results {
		results[i] = resultOf(imageBlock(pngOf(t, flat(2001+i, 10)), "image/png"))
	}
	outs := make([][]byte, len(results))
	done := make(chan int)
	for i := range results {
		go func() {
			outs[i], _ = Fit(results[i], lim)
			done <- i
		}()
	}
	for range results {
		<-done
	}
	for i, out := range outs {
		p := parse(t, out)
		if want := fmt.Sprintf("reduced from %d×10 to 2000×10 px", 2001+i); len(p.Content) != 2 || !strings.Contains(p.Content[1].Text, want) {
			t.Errorf("result %d: %.200s", i, out)
		}
	}
}

// TestEnvelope: the message around the result counts against
// MaxResultBytes: a result of the limit less the envelope goes as it is,
// one a byte longer is cut to that, and the note names the client's limit.
func TestEnvelope(t *testing.T) {
	lim := Limits{MaxResultBytes: 5000, Envelope: 100}
	pad := len(resultOf(textBlockOf("")))
	for _, tt := range []struct {
		size    int
		changed bool
	}{{4900, false}, {4901, true}} {
		in := resultOf(textBlockOf(strings.Repeat("a", tt.size-pad)))
		if len(in) != tt.size {
			t.Fatalf("made %d bytes, want %d", len(in), tt.size)
		}
		out, rep := Fit(in, lim)
		switch {
		case rep.Changed != tt.changed:
			t.Errorf("%d bytes: changed %v, want %v", tt.size, rep.Changed, tt.changed)
		case len(out) > 4900:
			t.Errorf("%d bytes: %d out, over 5000 less the envelope", tt.size, len(out))
		case tt.changed && !strings.Contains(string(out), "("+human(5000)+" a result)"):
			t.Errorf("the note does not name the client's limit: %s", out[len(out)-300:])
		}
	}
}
