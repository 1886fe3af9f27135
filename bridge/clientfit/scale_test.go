package clientfit

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"testing"
	"time"
)

// lines is a w×h white picture with a one-pixel black line every 37
// columns, from column 3: the thin lines of a CAD view.
func lines(w, h int) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for x := 3; x < w; x += 37 {
		for y := range h {
			img.SetGray(x, y, color.Gray{})
		}
	}
	return img
}

// TestThinLinesSurvive: every one-pixel line is still there, darker than
// the paper, after a reduction of 1.3 to 4.3 times; ApproxBiLinear alone
// (sampling, as the standard library's scalers do) loses a quarter to
// more than half of them once the reduction passes 2×.
func TestThinLinesSurvive(t *testing.T) {
	src := lines(2600, 100)
	for _, w := range []int{2000, 1200, 838, 600} {
		to := image.Pt(w, 100*w/2600)
		out := scale(src, to)
		if out.Bounds().Size() != to {
			t.Fatalf("scaled to %v, want %v", out.Bounds().Size(), to)
		}
		if _, ok := out.(*image.Gray); !ok {
			t.Errorf("a grey picture came out as %T", out)
		}
		for x := 3; x < 2600; x += 37 {
			dx := int((float64(x) + 0.5) * float64(w) / 2600)
			darkest := 255
			for d := -1; d <= 1; d++ {
				if dx+d >= 0 && dx+d < w {
					r, _, _, _ := out.At(dx+d, to.Y/2).RGBA()
					darkest = min(darkest, int(r>>8))
				}
			}
			if darkest > 230 {
				t.Errorf("to %d px: the line at column %d is gone (%d)", w, x, darkest)
			}
		}
	}
}

// dithered is a w×h picture of black and white noise: a dithered render,
// on which Go's deflate at its best compression takes tens of seconds.
func dithered(w, h int) *image.Gray {
	r := rand.New(rand.NewPCG(2, 40))
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.IntN(2)) * 255
	}
	return img
}

// TestPNGBudget: an encoding that runs out of its budget is done again at
// BestSpeed, and so are the next ones of the same picture; what comes out
// is the picture.
func TestPNGBudget(t *testing.T) {
	old := pngBudget
	pngBudget = 0 // spent before the first block is written
	defer func() { pngBudget = old }()
	src := dithered(300, 200)
	var e encoder
	for range 2 {
		out, err := e.encode(src, fmtPNG, 0, 0)
		if err != nil || !e.fast {
			t.Fatalf("err %v, fast %v", err, e.fast)
		}
		img, err := png.Decode(bytes.NewReader(out))
		if err != nil || img.Bounds() != src.Bounds() {
			t.Fatalf("%v, %v", err, img.Bounds())
		}
		for i, v := range src.Pix {
			if r, _, _, _ := img.At(i%300, i/300).RGBA(); uint8(r>>8) != v {
				t.Fatalf("pixel %d: %d, want %d", i, r>>8, v)
			}
		}
	}
	pngBudget = time.Hour
	var slow encoder
	if _, err := slow.encode(src, fmtPNG, 0, 0); err != nil || slow.fast {
		t.Errorf("within its budget: err %v, fast %v", err, slow.fast)
	}
}

// TestBestCompressionWhenJustOver: the best compression is tried only
// when the default one is just over what is wanted, and the smaller of
// the two is kept.
func TestBestCompressionWhenJustOver(t *testing.T) {
	old := pngBudget
	pngBudget = time.Hour // the race detector makes the best compression slow; the budget is TestPNGBudget's
	defer func() { pngBudget = old }()
	src := scale(drawing(1300, 850), image.Pt(1000, 654))
	var e encoder
	def, err := e.encode(src, fmtPNG, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, src); err != nil || buf.Len() >= len(def) {
		t.Fatalf("the best compression is not smaller here (%d, %d): %v", buf.Len(), len(def), err)
	}
	for _, tt := range []struct {
		name   string
		maxBin int
		want   int
	}{
		{"fits", len(def), len(def)},
		{"just over", len(def) - 1, buf.Len()},
		{"far over", int(float64(len(def)) / bestWithin / 1.01), len(def)},
	} {
		got, err := e.encode(src, fmtPNG, 0, tt.maxBin)
		if err != nil || len(got) != tt.want {
			t.Errorf("%s: %d bytes, want %d (%v)", tt.name, len(got), tt.want, err)
		}
	}
}
