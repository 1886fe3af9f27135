package clientfit

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	stddraw "image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"strings"
	"time"

	// golang.org/x/image/draw scales the pictures rather than a scaler of
	// our own. Its CatmullRom is a separable cubic kernel whose support
	// widens with the reduction, so that every source pixel counts: a
	// one-pixel line of a CAD drawing survives any reduction as a lighter
	// line, where ApproxBiLinear or nearest-neighbour sampling (all the
	// standard library has) drop a quarter to more than half of them once
	// the reduction passes 2× (TestThinLinesSurvive), and turn hatching
	// into moiré. Its code is generated per pair of
	// image types (RGBA, NRGBA, YCbCr, Gray sources into RGBA), so that no
	// pixel goes through the color.Color interface: the 8,000 lines of its
	// impl.go, which a hand-written scaler would either repeat or be several
	// times slower without (BenchmarkScalers sets CatmullRom beside
	// ApproxBiLinear on the 2600×1700 picture). Its one cost, a float
	// buffer of 32 bytes per output column per source row, is held down by
	// halving the picture first while it is twice the size wanted or more
	// (ApproxBiLinear at exactly 2× averages each 2×2 square: a box filter,
	// which is exact there) and bounded by scaleBudget.
	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

// The formats Fit reads: PNG and JPEG go out in their own format (PNG at
// the default compression, the best when that is just over, each within a
// time budget; JPEG stepping its quality down before shrinking further); GIF (its first frame) and WebP, for which the standard library
// and x/image have no encoder, go out as PNG. Anything else (SVG, BMP,
// TIFF, a type it does not know) passes as it is while it fits, and is
// left out with a note when it does not: it cannot be scaled.
const (
	fmtPNG  = "png"
	fmtJPEG = "jpeg"
	fmtGIF  = "gif"
	fmtWebP = "webp"
)

// sniff names a picture's format from its first bytes.
func sniff(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return fmtPNG
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return fmtJPEG
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return fmtGIF
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return fmtWebP
	}
	return ""
}

// decodeBudget bounds the memory a picture may take once decoded: an 8K
// screen (7680×4320) in RGBA fits, a decompression bomb (a few KB of PNG
// that says 60000×60000) is refused from its header, before anything is
// allocated for it.
var decodeBudget int64 = 128 << 20 // a variable for the fuzz target, which lowers it

// scaleBudget bounds CatmullRom's buffer: a 4K screen reduced to 2000 px
// (138 MB) takes it.
const scaleBudget = 160 << 20

// minSide is the smallest longer side a picture is reduced to; a picture
// that does not fit even then is left out.
const minSide = 16

// Why a picture could not be reduced: a few fixed words, so that a note's
// length is known before the picture is tried.
var (
	errBase64   = errors.New("its data is not valid base64")
	errFormat   = errors.New("it is not a PNG, JPEG, GIF or WebP picture")
	errBroken   = errors.New("it is broken or cut short")
	errTooMany  = errors.New("it has more pixels than the bridge decodes")
	errTooLarge = errors.New("it is too large even at 16 px")
	errNoRoom   = errors.New("the rest of the result leaves it no room")
)

// longestWhy is the longest of those, for notes reserved before trying.
var longestWhy = func() string {
	w := ""
	for _, e := range []error{errBase64, errFormat, errBroken, errTooMany, errTooLarge, errNoRoom} {
		if len(e.Error()) > len(w) {
			w = e.Error()
		}
	}
	return w
}()

// decodeSlot lets one picture at a time be decoded and scaled, whatever
// the number of clients: its memory (up to decodeBudget, and the scaler's
// buffer) is then paid once, not once per client.
var decodeSlot = make(chan struct{}, 1)

// peekSize reads a picture's format and size from the start of its base64
// data, decoding only what the header needs. format is "" for data that
// is not one of the formats read; err says why the size could not be read.
func peekSize(b64 []byte) (format string, size image.Point, err error) {
	counted("header")
	var head [24]byte // a PNG's signature and IHDR, a GIF's screen, a WebP's sniff
	var quads [32]byte
	n, err := base64.StdEncoding.Decode(head[:], firstQuads(quads[:0], b64))
	if err != nil {
		return "", size, errBase64
	}
	format = sniff(head[:n])
	switch format {
	case fmtPNG:
		// 8 bytes of signature, then the IHDR chunk: length 13, "IHDR",
		// width and height as big-endian 32-bit numbers.
		if n < 24 || string(head[12:16]) != "IHDR" {
			return format, size, errBroken
		}
		w, h := binary.BigEndian.Uint32(head[16:20]), binary.BigEndian.Uint32(head[20:24])
		if w == 0 || h == 0 || w > math.MaxInt32 || h > math.MaxInt32 {
			return format, size, errBroken
		}
		return format, image.Pt(int(w), int(h)), nil
	case fmtGIF:
		if n < 10 {
			return format, size, errBroken
		}
		return format, image.Pt(int(binary.LittleEndian.Uint16(head[6:8])), int(binary.LittleEndian.Uint16(head[8:10]))), nil
	case fmtJPEG, fmtWebP:
		// Their size may lie after other segments: read the stream as far
		// as the header goes.
		cfg, err := decodeConfig(base64.NewDecoder(base64.StdEncoding, bytes.NewReader(b64)), format)
		if err != nil {
			return format, size, errBroken
		}
		return format, image.Pt(cfg.Width, cfg.Height), nil
	}
	return "", size, errFormat
}

// formatOfMime is the format a mimeType names, "" for one Fit does not
// read.
func formatOfMime(mime string) string {
	mime, _, _ = strings.Cut(strings.ToLower(strings.TrimSpace(mime)), ";")
	switch strings.TrimSpace(mime) {
	case "image/png":
		return fmtPNG
	case "image/jpeg", "image/jpg", "image/pjpeg":
		return fmtJPEG
	case "image/gif":
		return fmtGIF
	case "image/webp":
		return fmtWebP
	}
	return ""
}

// firstQuads appends to dst (room for 32) the first characters of base64
// data, line ends skipped, cut to a whole number of quads (the decoder
// refuses a partial one).
func firstQuads(dst, b64 []byte) []byte {
	for _, c := range b64 {
		if len(dst) == cap(dst) {
			break
		}
		if c != '\r' && c != '\n' {
			dst = append(dst, c)
		}
	}
	return dst[:len(dst)/4*4]
}

func decodeConfig(r io.Reader, format string) (cfg image.Config, err error) {
	defer func() {
		if recover() != nil {
			err = errBroken
		}
	}()
	switch format {
	case fmtPNG:
		return png.DecodeConfig(r)
	case fmtJPEG:
		return jpeg.DecodeConfig(r)
	case fmtGIF:
		return gif.DecodeConfig(r)
	case fmtWebP:
		return webp.DecodeConfig(r)
	}
	return cfg, errFormat
}

// decodeBase64 decodes a picture's data: standard base64, padded or not,
// line ends ignored (Python's base64.encodebytes breaks lines).
func decodeBase64(b64 []byte) ([]byte, error) {
	counted("base64")
	out := make([]byte, base64.StdEncoding.DecodedLen(len(b64)))
	n, err := base64.StdEncoding.Decode(out, b64)
	if err != nil {
		n, err = base64.RawStdEncoding.Decode(out, bytes.TrimRight(b64, "=\r\n"))
	}
	if err != nil {
		return nil, errBase64
	}
	return out[:n], nil
}

// bytesPerPixel is what decoding a picture of this format and colour
// model holds per pixel, at worst: the picture (a progressive JPEG keeps
// its coefficients besides, a lossless WebP its ARGB words), and its copy
// in RGBA when x/image/draw has no fast path for its type (scalable).
func bytesPerPixel(format string, m color.Model) int64 {
	switch format {
	case fmtJPEG, fmtWebP:
		return 8
	case fmtGIF:
		return 1 + 4
	}
	switch m {
	case color.GrayModel:
		return 1
	case color.Gray16Model:
		return 2 + 4
	case color.RGBA64Model, color.NRGBA64Model:
		return 8 + 4
	}
	if _, ok := m.(color.Palette); ok {
		return 1 + 4
	}
	return 4
}

// picture is an image block's picture, read as far as it needed to be.
type picture struct {
	b64    []byte      // its base64 data, unescaped
	format string      // sniffed: fmtPNG…, "" for anything else
	size   image.Point // from its header, then as decoded
	err    error       // why its header could not be read
}

// check decodes the picture, for one kept as it is in a result that was
// reduced: what Fit sends has been read.
func (p *picture) check() error {
	decodeSlot <- struct{}{}
	defer func() { <-decodeSlot }()
	_, err := p.decode()
	return err
}

// decode decodes the picture's pixels, after checking its header against
// the budget. A decoder that panics on hostile bytes is a broken picture,
// not a crash.
func (p *picture) decode() (img image.Image, err error) {
	raw, err := decodeBase64(p.b64)
	if err != nil {
		return nil, err
	}
	format := sniff(raw)
	if format == "" {
		return nil, errFormat
	}
	cfg, err := decodeConfig(bytes.NewReader(raw), format)
	if err != nil {
		return nil, errBroken
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, errBroken
	}
	if int64(cfg.Width)*int64(cfg.Height)*bytesPerPixel(format, cfg.ColorModel) > decodeBudget {
		return nil, errTooMany
	}
	defer func() {
		if recover() != nil {
			img, err = nil, errBroken
		}
	}()
	counted("pixels")
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
	// A GIF's first frame may be smaller than its screen; no decoder
	// returns more than its header said.
	if err != nil || img.Bounds().Empty() || img.Bounds().Dx() > cfg.Width || img.Bounds().Dy() > cfg.Height {
		return nil, errBroken
	}
	p.format, p.size = format, img.Bounds().Size()
	return img, nil
}

// outFormat is the format a reduced picture goes out in.
func outFormat(in string) string {
	if in == fmtJPEG {
		return fmtJPEG
	}
	return fmtPNG
}

// within is size scaled down, aspect kept, so that neither side is over
// side pixels (0: no limit); size itself when it already is.
func within(size image.Point, side int) image.Point {
	if side <= 0 || size.X <= side && size.Y <= side {
		return size
	}
	return withLongSide(size, side)
}

// withLongSide is size scaled so that its longer side is long, the other
// rounded to the nearest pixel (at least 1): the aspect ratio is kept
// within half a pixel.
func withLongSide(size image.Point, long int) image.Point {
	if size.X >= size.Y {
		return image.Pt(long, max(1, int(math.Round(float64(size.Y)*float64(long)/float64(size.X)))))
	}
	return image.Pt(max(1, int(math.Round(float64(size.X)*float64(long)/float64(size.Y)))), long)
}

// shrinkBy is cur with its longer side times f (< 1), at least one pixel
// less, aspect as in orig.
func shrinkBy(orig, cur image.Point, f float64) image.Point {
	long := max(cur.X, cur.Y)
	next := min(long-1, int(float64(long)*f))
	return withLongSide(orig, max(next, 1))
}

// jpegQualities are tried in turn at each size before the picture is made
// smaller: detail costs less than pixels.
var jpegQualities = []int{85, 70, 55, 40}

// fit reduces the picture to at most side pixels a side (0: its own size)
// and at most maxB64 bytes of base64 (0: any). It returns the new base64
// data, size and format.
func (p *picture) fit(side, maxB64 int) (b64 []byte, to image.Point, format string, err error) {
	decodeSlot <- struct{}{}
	defer func() { <-decodeSlot }()
	img, err := p.decode()
	if err != nil {
		return nil, to, "", err
	}
	format = outFormat(p.format)
	to = within(p.size, side)
	maxBin := maxB64 / 4 * 3 // base64 of n bytes is 4⌈n/3⌉ long
	if maxB64 > 0 && maxBin == 0 {
		return nil, to, "", errTooLarge
	}
	if maxB64 > 0 {
		// A first guess from how densely the base compressed it, so that a
		// picture far too large is not encoded whole first. A JPEG's
		// quality is stepped down first, which takes about three quarters
		// off.
		bin := float64(len(p.b64)) * 3 / 4
		guess := bin / float64(p.size.X) / float64(p.size.Y) * float64(to.X) * float64(to.Y)
		if format == fmtJPEG {
			guess /= 4
		}
		if guess > float64(maxBin) {
			to = shrinkBy(p.size, to, math.Sqrt(float64(maxBin)/guess)*0.95)
		}
	}
	qualities := []int{0}
	if format == fmtJPEG {
		qualities = jpegQualities
	}
	img = scalable(img)
	var enc encoder
	for range 12 {
		if max(to.X, to.Y) < minSide && max(p.size.X, p.size.Y) >= minSide {
			break
		}
		scaled := scale(img, to)
		last := 0
		for _, q := range qualities {
			data, err := enc.encode(scaled, format, q, maxBin)
			if err != nil {
				return nil, to, "", errBroken
			}
			if maxB64 <= 0 || len(data) <= maxBin {
				out := make([]byte, base64.StdEncoding.EncodedLen(len(data)))
				base64.StdEncoding.Encode(out, data)
				return out, to, format, nil
			}
			last = len(data)
		}
		if max(to.X, to.Y) <= 1 {
			break
		}
		to = shrinkBy(p.size, to, math.Sqrt(float64(maxBin)/float64(last))*0.95)
	}
	return nil, to, "", errTooLarge
}

// scalable is img as a type x/image/draw scales without a call per
// pixel: RGBA, NRGBA, Gray and YCbCr are; a paletted picture (GIF, and
// PNGs of drawings, which have few colours) is looked up into RGBA once,
// anything else (16-bit, CMYK) drawn into RGBA once.
func scalable(img image.Image) image.Image {
	switch m := img.(type) {
	case *image.RGBA, *image.NRGBA, *image.Gray, *image.YCbCr:
		return img
	case *image.Paletted:
		var lut [256][4]uint8
		for i, c := range m.Palette {
			if i == len(lut) {
				break
			}
			r, g, b, a := c.RGBA()
			lut[i] = [4]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
		}
		out := image.NewRGBA(m.Bounds())
		w, h := m.Rect.Dx(), m.Rect.Dy()
		for y := range h {
			src := m.Pix[y*m.Stride : y*m.Stride+w]
			dst := out.Pix[y*out.Stride : y*out.Stride+4*w]
			for x, i := range src {
				copy(dst[4*x:4*x+4], lut[i][:])
			}
		}
		return out
	}
	out := image.NewRGBA(img.Bounds())
	stddraw.Draw(out, out.Bounds(), img, img.Bounds().Min, stddraw.Src)
	return out
}

// scale returns img at size to: halved (a 2×2 box each time) while it is
// at least twice as large as wanted, then scaled by CatmullRom. A
// grey picture stays grey.
func scale(img image.Image, to image.Point) image.Image {
	b := img.Bounds()
	if b.Size() == to {
		return img
	}
	grey := isGrey(img)
	for b.Dx() >= 2*to.X && b.Dy() >= 2*to.Y {
		half := image.NewRGBA(image.Rect(0, 0, b.Dx()/2, b.Dy()/2))
		xdraw.ApproxBiLinear.Scale(half, half.Bounds(), img, b, xdraw.Src, nil)
		img, b = half, half.Bounds()
	}
	dst := image.NewRGBA(image.Rect(0, 0, to.X, to.Y))
	switch {
	case b.Size() == to:
		xdraw.Copy(dst, image.Point{}, img, b, xdraw.Src, nil)
	case int64(to.X)*int64(b.Dy())*32 > scaleBudget:
		// CatmullRom's buffer (32 bytes per output column per source row)
		// would be too large: a picture of many pixels reduced by less
		// than half, where bilinear sampling loses little.
		xdraw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, xdraw.Src, nil)
	default:
		xdraw.CatmullRom.Scale(dst, dst.Bounds(), img, b, xdraw.Src, nil)
	}
	if grey {
		return toGrey(dst)
	}
	return dst
}

func isGrey(img image.Image) bool {
	switch img.ColorModel() {
	case color.GrayModel, color.Gray16Model:
		return true
	}
	return false
}

// toGrey keeps one channel of a grey picture scaled as RGBA: a third of
// the bytes to encode.
func toGrey(m *image.RGBA) *image.Gray {
	g := image.NewGray(m.Bounds())
	for i := range g.Pix {
		g.Pix[i] = m.Pix[4*i]
	}
	return g
}

// A PNG is encoded at the default compression first: on a CAD view it is
// within 7% of the best at a seventh of the time (0.19 s against 1.36 s
// for a 2000×1308 drawing), and when it fits, the 7% buys the client
// nothing. Only when it is just over (by 15% at most) is the best
// compression tried before the picture is made smaller.
const bestWithin = 1.15

// pngBudget bounds each encoding. Go's deflate follows long match chains
// (4096 at its best) which, on a picture of few colours in fine patterns
// (dithering, halftones, noise), take seconds to tens of seconds: 25 s at
// the best and 4 s at the default for 2000×1308 of two-level noise,
// against 0.4 s at BestSpeed. Past the budget the picture is encoded at
// BestSpeed, 10 to 30% larger, and so are the smaller tries of the same
// picture.
var pngBudget = time.Second // a variable for the tests, which spend it at once

// errSlow stops an encoding that is over its budget.
var errSlow = errors.New("over its time budget")

// budgetWriter fails its writes once its deadline has passed: the PNG
// encoder writes each block deflate finishes, so it stops within one.
type budgetWriter struct {
	w        io.Writer
	deadline time.Time
}

func (b budgetWriter) Write(p []byte) (int, error) {
	if time.Now().After(b.deadline) {
		return 0, errSlow
	}
	return b.w.Write(p)
}

// encoder writes a picture in its format, remembering whether deflate
// was too slow for it.
type encoder struct {
	fast bool // PNG at BestSpeed from now on
}

// encode writes img as JPEG at quality q, or as PNG: the smallest of the
// compressions tried for it (see bestWithin) within pngBudget each, for a
// picture wanted in maxBin bytes (0: any).
func (e *encoder) encode(img image.Image, format string, q, maxBin int) ([]byte, error) {
	if format == fmtJPEG {
		var buf bytes.Buffer
		err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q})
		return buf.Bytes(), err
	}
	var best []byte
	for _, level := range []png.CompressionLevel{png.DefaultCompression, png.BestCompression} {
		if best != nil && (maxBin == 0 || len(best) <= maxBin || float64(len(best)) > float64(maxBin)*bestWithin) {
			break
		}
		if e.fast {
			break
		}
		var buf bytes.Buffer
		err := (&png.Encoder{CompressionLevel: level}).Encode(budgetWriter{&buf, time.Now().Add(pngBudget)}, img)
		switch {
		case errors.Is(err, errSlow):
			e.fast = true
		case err != nil:
			return nil, err
		case best == nil || buf.Len() < len(best):
			best = buf.Bytes()
		}
	}
	if best != nil {
		return best, nil
	}
	var buf bytes.Buffer
	err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
	return buf.Bytes(), err
}
