package bundle

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"sync"
)

// IconSize is the icon's width and height in pixels.
const IconSize = 512

// Icon is the bundle's icon.png: a drafting sight (a circle on cross hairs)
// over a bridge, white and orange on a rounded blue square. It is drawn
// here rather than kept as a binary, and comes out byte for byte the same on
// every build, which keeps the bundles reproducible.
var Icon = sync.OnceValue(drawIcon)

func drawIcon() []byte {
	palette := [...]color.NRGBA{
		{0x1f, 0x3a, 0x5f, 0xff}, // the square
		{0xff, 0xff, 0xff, 0xff}, // the sight
		{0xf5, 0x8a, 0x1f, 0xff}, // the bridge
	}
	img := image.NewNRGBA(image.Rect(0, 0, IconSize, IconSize))
	// 4 × 4 samples a pixel, so that edges are smooth.
	const grid = 4
	for y := 0; y < IconSize; y++ {
		for x := 0; x < IconSize; x++ {
			var r, g, b, n int
			for sy := 0; sy < grid; sy++ {
				for sx := 0; sx < grid; sx++ {
					px := float64(x) + (float64(sx)+0.5)/grid
					py := float64(y) + (float64(sy)+0.5)/grid
					layer := iconLayer(px, py)
					if layer < 0 {
						continue
					}
					c := palette[layer]
					r, g, b, n = r+int(c.R), g+int(c.G), b+int(c.B), n+1
				}
			}
			if n > 0 {
				img.SetNRGBA(x, y, color.NRGBA{uint8(r / n), uint8(g / n), uint8(b / n), uint8(n * 255 / (grid * grid))})
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err) // encoding an in-memory image into a buffer does not fail
	}
	return buf.Bytes()
}

// iconLayer says what is at point (x, y) of the icon: -1 nothing
// (transparent), 0 the square, 1 the sight, 2 the bridge. Later shapes lie
// on top of earlier ones.
func iconLayer(x, y float64) int {
	if !inRoundedSquare(x, y, 16, 496, 96) {
		return -1
	}
	layer := 0
	// The sight: a ring and two cross hairs, centred above the middle.
	const cx, cy = 256.0, 208.0
	d := math.Hypot(x-cx, y-cy)
	if math.Abs(d-112) <= 12 ||
		(math.Abs(y-cy) <= 6 && x >= 80 && x <= 432) ||
		(math.Abs(x-cx) <= 6 && y >= 48 && y <= 368) {
		layer = 1
	}
	// The bridge: a deck, and an arch under it resting on two piers.
	const deck = 392.0
	arch := math.Hypot(x-256, (y-deck-150)*1.6)
	if (math.Abs(y-deck) <= 10 && x >= 72 && x <= 440) ||
		(y > deck && y <= 452 && x >= 96 && x <= 416 && math.Abs(arch-236) <= 12) ||
		(y > deck && y <= 452 && (math.Abs(x-96) <= 10 || math.Abs(x-416) <= 10)) {
		layer = 2
	}
	return layer
}

// inRoundedSquare reports whether (x, y) lies in the square from lo to hi on
// both axes with corners of radius r.
func inRoundedSquare(x, y, lo, hi, r float64) bool {
	if x < lo || x > hi || y < lo || y > hi {
		return false
	}
	nx := math.Max(lo+r-x, math.Max(x-(hi-r), 0))
	ny := math.Max(lo+r-y, math.Max(y-(hi-r), 0))
	return nx*nx+ny*ny <= r*r
}
