package simbase

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"net"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// limitTools are the test tools for clients' limits (Options.LimitTools):
// a call that takes long, a picture of a given size, a long listing; what
// a real drawing answers when it regenerates, plots or lists a few
// thousand entities. They answer the way the base does: one JSON value on
// the connection, nothing before it. The base protocol has no progress
// (a notification before the answer would be read as the answer): a long
// call's progress is the bridge's own (--progress-interval).
func limitTools() []tool {
	slow := object(map[string]schema{
		"seconds": {"type": "number", "description": "How long CAD works, in seconds (fractions too)", "minimum": 0, "maximum": 3600},
		"label":   str("What the work is called in the answer; runs are counted per label"),
	}, "seconds")
	picture := object(map[string]schema{
		"width":  integer("Width in pixels", 1, 8000),
		"height": integer("Height in pixels", 1, 8000),
		"format": {"type": "string", "description": "png (default) or jpeg", "enum": []string{"png", "jpeg"}},
		"seed":   integer("Seed of the noise; the same seed, the same picture", 0, 1<<30),
	}, "width", "height")
	listing := object(map[string]schema{
		"bytes":   integer("Length of the listing, in bytes of UTF-8", 0, 16<<20),
		"unicode": boolean("Layer names with letters of 2, 3 and 4 bytes (Ø, €, 𝔸)"),
	}, "bytes")
	return []tool{
		{Name: "sim_slow", Description: "Test only: CAD works for `seconds` (a regeneration, an import, a plot), then answers \"<label> done after N s (run K of <label>)\". The call goes on if the client gives up.",
			Schema: slow, conn: checked(slow, "sim_slow", func(s *Server, c net.Conn, id rpc.ID, a args) {
				label := a.str("label", "work")
				d := time.Duration(a.num("seconds", 0) * float64(time.Second))
				select {
				case <-time.After(d):
				case <-s.done:
					return
				}
				run := s.countRun(label)
				s.answer(c, id, toolResult(fmt.Sprintf("%s done after %s s (run %d of %s)", label, f(d.Seconds()), run, label), false))
			})},
		{Name: "sim_picture", Description: "Test only: a picture of the view, width × height pixels of coloured noise (about a byte a pixel as PNG: 2600 × 1700 is 4.6 MB), after a text block naming its size.",
			Schema: picture, conn: checked(picture, "sim_picture", func(s *Server, c net.Conn, id rpc.ID, a args) {
				w, h := int(a.num("width", 1)), int(a.num("height", 1))
				if w*h > maxPicturePixels {
					s.answer(c, id, toolResult(fmt.Sprintf("Invalid arguments for sim_picture: %d × %d is over %d pixels", w, h, maxPicturePixels), true))
					return
				}
				format := a.str("format", "png")
				data := s.picture(pictureKey{w, h, format, uint64(a.num("seed", 1))})
				text := fmt.Sprintf("Picture of %d × %d px, %s, %d bytes.", w, h, strings.ToUpper(format), len(data))
				res, _ := json.Marshal(map[string]any{"content": []map[string]string{
					{"type": "text", "text": text},
					{"type": "image", "data": base64.StdEncoding.EncodeToString(data), "mimeType": "image/" + format},
				}, "isError": false})
				s.answer(c, id, res)
			})},
		{Name: "sim_listing", Description: "Test only: a listing of entities of exactly `bytes` bytes of text, as list_entities answers for a large drawing.",
			Schema: listing, conn: checked(listing, "sim_listing", func(s *Server, c net.Conn, id rpc.ID, a args) {
				s.answer(c, id, toolResult(Listing(int(a.num("bytes", 0)), a.boolean("unicode")), false))
			})},
	}
}

// maxPicturePixels bounds sim_picture: a 14 MP PNG of noise is about
// 15 MB, under the bridge's 16 MiB answer.
const maxPicturePixels = 14_000_000

// checked runs a test tool after checking its arguments against its
// schema, as the CAD tools are.
func checked(sch schema, name string, fn func(*Server, net.Conn, rpc.ID, args)) func(*Server, net.Conn, rpc.ID, args) {
	return func(s *Server, c net.Conn, id rpc.ID, a args) {
		if msg := sch.check("", map[string]any(a)); msg != "" {
			s.answer(c, id, toolResult("Invalid arguments for "+name+": "+msg, true))
			return
		}
		fn(s, c, id, a)
	}
}

// countRun counts a finished sim_slow run of label and returns its number.
func (s *Server) countRun(label string) int {
	s.countMu.Lock()
	defer s.countMu.Unlock()
	if s.runs == nil {
		s.runs = map[string]int{}
	}
	s.runs[label]++
	return s.runs[label]
}

// Runs is how many sim_slow calls with this label have finished.
func (s *Server) Runs(label string) int {
	s.countMu.Lock()
	defer s.countMu.Unlock()
	return s.runs[label]
}

// pictureKey names one sim_picture answer.
type pictureKey struct {
	w, h   int
	format string
	seed   uint64
}

// picture returns the encoded picture, from a cache of the last one: a
// 4.6 MB PNG costs half a second to make (several under the race
// detector), and tests ask for it again.
func (s *Server) picture(k pictureKey) []byte {
	s.picMu.Lock()
	defer s.picMu.Unlock()
	if s.picKey == k && s.picData != nil {
		return s.picData
	}
	s.picKey, s.picData = k, Picture(k.w, k.h, k.format, k.seed)
	return s.picData
}

// Noise is a w×h picture of coloured noise, each channel one of four
// levels: about a byte a pixel as PNG, and hard to compress however it is
// scaled.
func Noise(w, h int, seed uint64) *image.NRGBA {
	r := rand.New(rand.NewPCG(seed, 40))
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	var bits uint64 // 32 channels of two bits from each random number
	left := 0
	for i := range img.Pix {
		if i%4 == 3 {
			img.Pix[i] = 255
			continue
		}
		if left == 0 {
			bits, left = r.Uint64(), 32
		}
		img.Pix[i] = uint8(bits&3) * 85
		bits >>= 2
		left--
	}
	return img
}

// Picture is sim_picture's picture: Noise encoded as PNG (at BestSpeed:
// 2600×1700 is 4.6 MB in half a second, where the default compression
// takes several) or as JPEG at quality 90.
func Picture(w, h int, format string, seed uint64) []byte {
	img := Noise(w, h, seed)
	var buf bytes.Buffer
	if format == "jpeg" {
		_ = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90})
	} else {
		_ = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
	}
	return buf.Bytes()
}

// listingLines are the lines Listing repeats: plain, and with layer names
// of 2-, 3- and 4-byte UTF-8.
var (
	plainLines   = []string{"- %d line on 0: (0, 0) - (10, 0)\n", "- %d circle on walls: center (5, 5), radius 2\n", "- %d text on notes: \"Plan\"\n"}
	unicodeLines = []string{"- %d line on Ø-achse: (0, 0) - (10, 0)\n", "- %d circle on Maße €: center (5, 5), radius 2\n", "- %d text on 𝔸nnotations: \"Plan\"\n"}
)

// Listing is a listing of entities of exactly n bytes of UTF-8: whole
// lines, then the start of one cut at a character and padded with dots.
func Listing(n int, unicode bool) string {
	lines := plainLines
	if unicode {
		lines = unicodeLines
	}
	var b strings.Builder
	b.Grow(n)
	for i := 0; ; i++ {
		line := fmt.Sprintf(lines[i%len(lines)], 101+i)
		if b.Len()+len(line) > n {
			for _, r := range line {
				if b.Len()+len(string(r)) > n {
					break
				}
				b.WriteRune(r)
			}
			b.WriteString(strings.Repeat(".", n-b.Len()))
			return b.String()
		}
		b.WriteString(line)
	}
}
