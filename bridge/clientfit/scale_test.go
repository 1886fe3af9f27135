package clientfit

import (
	"image"
	"image/color"
	"testing"
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
