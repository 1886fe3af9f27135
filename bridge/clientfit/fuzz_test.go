package clientfit

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/rpc"
	"golang.org/x/image/webp"
)

// FuzzFit: over picture bytes and result shapes, Fit never panics, never
// returns more than the limit, always returns valid JSON for valid JSON,
// and every picture it sends in a result it changed decodes as the format
// its mimeType names, within the picture limits.
func FuzzFit(f *testing.F) {
	small := func(img image.Image, enc func(*bytes.Buffer, image.Image)) []byte {
		var buf bytes.Buffer
		enc(&buf, img)
		return buf.Bytes()
	}
	pngB := small(noise(40, 30, 7), func(b *bytes.Buffer, m image.Image) { _ = png.Encode(b, m) })
	jpgB := small(noise(40, 30, 8), func(b *bytes.Buffer, m image.Image) { _ = jpeg.Encode(b, m, nil) })
	gifB := small(drawing(60, 20), func(b *bytes.Buffer, m image.Image) { _ = gif.Encode(b, m, nil) })
	bombB := bytes.Clone(pngB)
	copy(bombB[16:24], []byte{0, 0, 0xea, 0x60, 0, 0, 0xea, 0x60})
	for i, pic := range [][]byte{pngB, jpgB, gifB, pngB[:len(pngB)/2], jpgB[:len(jpgB)-40], bombB, []byte("<svg/>"), nil} {
		f.Add(pic, "Line 101 drawn\n", uint8(i), uint16(1500), uint16(20), uint32(0))
		f.Add(pic, strings.Repeat("é€😀", 200), uint8(0x3f^i), uint16(600), uint16(0), uint32(3000))
	}
	f.Add([]byte(nil), `{"content":[{"type":"text","text":"`+strings.Repeat("x", 3000)+`"}],"isError":true,"structuredContent":{"a":[1,2]}}`, uint8(0x80), uint16(1100), uint16(0), uint32(0))
	// A broken picture beside text that must be cut: the picture may stay
	// only if it decodes.
	f.Add(pngB[:len(pngB)/2], strings.Repeat("entity ", 1000), uint8(0x09), uint16(700), uint16(0), uint32(0))
	// Bytes that are not UTF-8, which the writer would make three times
	// longer.
	f.Add([]byte(nil), "{\"content\":[{\"type\":\"text\",\"text\":\""+strings.Repeat("\xff", 1000)+"\"}]}", uint8(0x80), uint16(140), uint16(0), uint32(0))
	f.Add([]byte(nil), `{"content":"no","content":[{"type":"image","data":5},{"type":"text"},7,[]],"_meta":{}}`, uint8(0x80), uint16(1), uint16(3), uint32(1))
	f.Add([]byte(nil), `{"content":[{"type":"\u0069mage","data":"\/9j\/","mimeType":"image/jpeg"}]}`, uint8(0x80), uint16(0), uint16(1), uint32(0))

	old := decodeBudget
	decodeBudget = 4 << 20 // a hostile header costs the fuzzer time, not memory
	defer func() { decodeBudget = old }()

	f.Fuzz(func(t *testing.T, pic []byte, text string, shape uint8, limit, side uint16, picBytes uint32) {
		in := buildResult(pic, text, shape)
		lim := Limits{MaxResultBytes: int(limit) * 8, MaxImageSide: int(side), MaxImageBytes: int(picBytes % 100_000)}
		out, rep := Fit(in, lim)
		if max := lim.maxBytes(); max > 0 && len(out) > max {
			t.Fatalf("%d bytes out, limit %d", len(out), max)
		}
		if !rep.Changed {
			if !bytes.Equal(in, out) {
				t.Fatal("unchanged, says the report, but the bytes differ")
			}
			return
		}
		if !utf8.Valid(out) {
			t.Fatalf("not valid UTF-8: %.300q", out)
		}
		// What is not JSON passes (in valid UTF-8) while it fits; over the
		// limit a note takes its place.
		cleaned := bytes.ToValidUTF8(in, []byte("\uFFFD"))
		validIn := rpc.Valid(cleaned)
		if (validIn || len(cleaned) > lim.maxBytes()) && (!rpc.Valid(out) || !json.Valid(out)) {
			t.Fatalf("not valid JSON: %.300q", out)
		}
		if validIn {
			checkPictures(t, out, lim)
		}
	})
}

// buildResult makes a tools/call result from fuzzed parts: shape's bits
// choose the blocks and members; with its top bit, text is the result.
func buildResult(pic []byte, text string, shape uint8) []byte {
	if shape&0x80 != 0 {
		return []byte(text)
	}
	mimes := []string{"image/png", "image/jpeg", "image/gif", "image/svg+xml"}
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	data := base64.StdEncoding.EncodeToString(pic)
	var blocks []string
	if shape&1 != 0 {
		blocks = append(blocks, `{"type":"image","data":"`+data+`","mimeType":"`+mimes[shape>>1&3]+`"}`)
	}
	if shape&8 != 0 {
		blocks = append(blocks, `{"type":"text","text":`+str(text)+`}`)
	}
	if shape&16 != 0 {
		blocks = append(blocks, `{"type":"audio","data":"`+data+`","mimeType":"audio/wav"}`)
	}
	if shape&32 != 0 {
		blocks = append(blocks, `{"type":"resource","resource":{"uri":"file:///a","text":`+str(text)+`}}`, `{"type":"image","data":"`+data+`"}`)
	}
	out := `{"content":[` + strings.Join(blocks, ",") + `]`
	if shape&64 != 0 {
		out += `,"structuredContent":{"text":` + str(text) + `},"_meta":{"x":` + str(strings.Repeat(text, 2)) + `}`
	}
	return []byte(out + `,"isError":false}`)
}

// checkPictures: every image block Fit sent whose data or mimeType is a
// format it reads decodes as that format, within the limits.
func checkPictures(t *testing.T, out []byte, lim Limits) {
	content := rpc.Field(out, "content")
	rpc.EachElement(content, func(from, to int) {
		blk := content[from:to]
		if !isType(blk, "image") {
			return
		}
		tok := rpc.Field(blk, "data")
		if rpc.Kind(tok) != rpc.KindString {
			return
		}
		data, _ := rpc.String(tok)
		mime := formatOfMime(stringOf(blk, "mimeType"))
		raw, err := base64.StdEncoding.DecodeString(data)
		format := sniff(raw)
		if mime == "" && format == "" {
			return // SVG and the like pass as they are
		}
		if err != nil || format != mime {
			t.Fatalf("a picture sent as %q is %q (base64: %v)", mime, format, err)
		}
		var img image.Image
		r := bytes.NewReader(raw)
		switch format {
		case fmtPNG:
			img, err = png.Decode(r)
		case fmtJPEG:
			img, err = jpeg.Decode(r)
		case fmtGIF:
			img, err = gif.Decode(r)
		case fmtWebP:
			img, err = webp.Decode(r)
		}
		if err != nil {
			t.Fatalf("a %s picture sent does not decode: %v", format, err)
		}
		if s := img.Bounds().Size(); lim.MaxImageSide > 0 && (s.X > lim.MaxImageSide || s.Y > lim.MaxImageSide) {
			t.Fatalf("a %v picture sent, over %d px", s, lim.MaxImageSide)
		}
		if lim.MaxImageBytes > 0 && len(data) > lim.MaxImageBytes {
			t.Fatalf("a picture of %d bytes sent, over %d", len(data), lim.MaxImageBytes)
		}
	})
}
