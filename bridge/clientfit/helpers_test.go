package clientfit

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"sync"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// noise is the simulated base's picture of noise (sim_picture): about a
// byte a pixel as PNG, and hard to compress however it is scaled.
func noise(w, h int, seed uint64) *image.NRGBA { return simbase.Noise(w, h, seed) }

// issuePNG is issue 40's picture as the simulated base answers it: 2600×1700
// of noise, 4.6 MB of PNG; made once for every test and benchmark.
var issuePNG = sync.OnceValue(func() []byte { return simbase.Picture(2600, 1700, "png", 1) })

func pngOf(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func jpegOf(t testing.TB, img image.Image, q int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// flat is a w×h picture of one colour: a few hundred bytes as PNG at any
// size.
func flat(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = 30, 60, 90, 255
	}
	return img
}

// imageBlock is an image content block for data.
func imageBlock(data []byte, mime string) string {
	return `{"type":"image","data":"` + base64.StdEncoding.EncodeToString(data) + `","mimeType":"` + mime + `"}`
}

func textBlockOf(s string) string {
	b, _ := json.Marshal(s)
	return `{"type":"text","text":` + string(b) + `}`
}

// resultOf is a tools/call result with these blocks.
func resultOf(blocks ...string) []byte {
	out := []byte(`{"content":[`)
	for i, b := range blocks {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, b...)
	}
	return append(out, `],"isError":false}`...)
}

// parsed is a result as a client reads it.
type parsed struct {
	Content []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Data     string          `json:"data"`
		MimeType string          `json:"mimeType"`
		Resource json.RawMessage `json:"resource"`
	} `json:"content"`
	IsError           *bool           `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent"`
}

func parse(t testing.TB, out []byte) parsed {
	t.Helper()
	if !rpc.Valid(out) {
		t.Fatalf("not valid JSON: %.300s", out)
	}
	var p parsed
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("%v: %.300s", err, out)
	}
	return p
}

// picture decodes an image block's data as a client would: its type
// named by mimeType.
func decodePicture(t testing.TB, data, mime string) image.Image {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatalf("data is not base64: %v", err)
	}
	var img image.Image
	switch mime {
	case "image/png":
		img, err = png.Decode(bytes.NewReader(raw))
	case "image/jpeg":
		img, err = jpeg.Decode(bytes.NewReader(raw))
	default:
		t.Fatalf("mimeType %q", mime)
	}
	if err != nil {
		t.Fatalf("the picture does not decode as %s: %v", mime, err)
	}
	return img
}

// countDecodes counts what Fit decodes while f runs.
func countDecodes(t *testing.T, f func()) map[string]int {
	t.Helper()
	got := map[string]int{}
	hook := func(what string) { got[what]++ }
	decodeHook.Store(&hook)
	defer decodeHook.Store(nil)
	f()
	return got
}

var grey = color.Gray{Y: 128}
