package clientfit

import (
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"

	xdraw "golang.org/x/image/draw"
)

// BenchmarkFitIssuePicture: issue 40's picture, a 4.6 MB PNG of noise of
// 2600×1700, reduced for Claude Desktop (2000 px a side, 1 MiB a result):
// decoded, halved, scaled by CatmullRom, encoded at the best compression
// until it fits. Target: well under a second.
func BenchmarkFitIssuePicture(b *testing.B) {
	in := resultOf(imageBlock(issuePNG(), "image/png"))
	lim := desktop(b)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if out, _ := Fit(in, lim); len(out) > 1<<20 {
			b.Fatal(len(out))
		}
	}
}

// BenchmarkFitDrawing: a CAD view as a drawing saves it, 2600×1700 in
// three colours (a few hundred KB of PNG), for Claude Desktop: within the
// bytes, over the side: scaled to 2000×1308 by CatmullRom in one pass.
func BenchmarkFitDrawing(b *testing.B) {
	in := resultOf(imageBlock(pngOf(b, drawing(2600, 1700)), "image/png"))
	lim := desktop(b)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, rep := Fit(in, lim); len(rep.Pictures) != 1 || rep.Pictures[0].To != image.Pt(2000, 1308) {
			b.Fatalf("%+v", rep)
		}
	}
}

// BenchmarkFitAsItIs: what a result costs when it goes as it is: a client
// without limits, and one with limits that the result is under. Neither
// allocates.
func BenchmarkFitAsItIs(b *testing.B) {
	picture := resultOf(imageBlock(issuePNG(), "image/png"))
	listing := resultOf(textBlockOf(strings.Repeat("- 101 line on 0: (0, 0) - (10, 0)\n", 25_000)))
	for _, bb := range []struct {
		name   string
		result []byte
		lim    Limits
	}{
		{"no_limit_5.8MB_picture", picture, Limits{}},
		{"desktop_850KB_listing", listing, desktop(b)},
		{"max_result_bytes_850KB_listing", listing, Limits{MaxResultBytes: 1 << 20}},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(bb.result)))
			b.ReportAllocs()
			for b.Loop() {
				if _, rep := Fit(bb.result, bb.lim); rep.Changed {
					b.Fatal("changed")
				}
			}
		})
	}
}

// BenchmarkScalers: the scaler chosen (CatmullRom, after halving when it
// can) against the fast one it beats on quality (ApproxBiLinear), from the
// decoded 2600×1700 picture to 2000×1308 (Claude Desktop's side) and to
// 640×418 (what fits 1 MiB).
func BenchmarkScalers(b *testing.B) {
	src, err := png.Decode(bytes.NewReader(issuePNG()))
	if err != nil {
		b.Fatal(err)
	}
	for _, to := range []image.Point{{2000, 1308}, {640, 418}} {
		b.Run("fit_"+to.String(), func(b *testing.B) {
			for b.Loop() {
				scale(src, to)
			}
		})
		b.Run("ApproxBiLinear_"+to.String(), func(b *testing.B) {
			for b.Loop() {
				dst := image.NewRGBA(image.Rectangle{Max: to})
				xdraw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, src.Bounds(), xdraw.Src, nil)
			}
		})
		b.Run("CatmullRom_"+to.String(), func(b *testing.B) {
			for b.Loop() {
				dst := image.NewRGBA(image.Rectangle{Max: to})
				xdraw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), xdraw.Src, nil)
			}
		})
	}
}

// BenchmarkEncodeDithered: a 2000×1308 picture of black and white noise,
// on which Go's deflate takes seconds at its default compression, tens at
// its best: bounded by pngBudget, then encoded at BestSpeed.
func BenchmarkEncodeDithered(b *testing.B) {
	src := dithered(2000, 1308)
	for b.Loop() {
		var e encoder
		if _, err := e.encode(src, fmtPNG, 0, 0); err != nil {
			b.Fatal(err)
		}
	}
}
