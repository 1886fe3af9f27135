package bridgetest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// The helpers of the tests of clients' limits (issue 40, bridge/fit.go):
// a client that names itself, the base's own answer to compare with, and
// what a client must find in a picture reduced for it.

// StartLimitSim starts a simulated base with the limit tools (sim_slow,
// sim_picture, sim_listing) and no others but the drawing's.
func StartLimitSim(t testing.TB) *simbase.Server {
	t.Helper()
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{LimitTools: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	return sim
}

// InitializeAs is a handshake-era initialize from a client that names
// itself name.
func InitializeAs(id, name string) string {
	n, _ := json.Marshal(name)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":%s,"version":"1"}}}`, id, n)
}

// ModernAs is a 2026-07-28 request from a client that names itself name
// in its _meta; params are its other params ("" for none), without braces.
func ModernAs(id, name, method, params string) string {
	n, _ := json.Marshal(name)
	if params != "" {
		params += ","
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":{%s"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":%s,"version":"1"}}}}`, id, method, params, n)
}

// BaseResult is the result the base answers to a call of tool, straight
// from the base: what a client without limits must get byte for byte.
func BaseResult(t testing.TB, sim *simbase.Server, tool, args string) []byte {
	t.Helper()
	c := &tcpbase.Client{Addr: sim.Addr(), MaxAnswer: 64 << 20}
	ans, err := c.Call(context.Background(), []byte(Call("1", tool, args)))
	if err != nil {
		t.Fatal(err)
	}
	res := rpc.Field(ans, "result")
	if res == nil {
		t.Fatalf("the base answered no result: %.300s", ans)
	}
	return res
}

// ResultOf is the result of an answer line (over HTTP, the JSON body or
// the data of its last SSE event).
func ResultOf(t testing.TB, line string) []byte {
	t.Helper()
	res := rpc.Field([]byte(line), "result")
	if res == nil {
		t.Fatalf("not a result: %.300s", line)
	}
	return res
}

// CheckReducedPicture checks what a client whose limit is max bytes a
// message and side px a picture's side finds in the answer line to
// sim_picture of w×h: the whole line within max, a valid PNG at most side
// px a side with the picture's aspect ratio (within half a pixel), and the
// note saying it was reduced.
func CheckReducedPicture(t testing.TB, line string, max, side, w, h int) {
	t.Helper()
	if len(line) > max {
		t.Errorf("the answer is %d bytes, over %d", len(line), max)
	}
	var msg struct {
		Result struct {
			Content []struct{ Type, Text, Data, MimeType string }
		}
	}
	if err := json.Unmarshal([]byte(line), &msg); err != nil {
		t.Fatalf("the answer is not JSON: %v", err)
	}
	var pics, notes int
	for i, b := range msg.Result.Content {
		switch b.Type {
		case "image":
			pics++
			data, err := base64.StdEncoding.DecodeString(b.Data)
			if err != nil {
				t.Fatalf("picture %d: %v", i, err)
			}
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil || b.MimeType != "image/png" {
				t.Fatalf("picture %d (%s) is not a valid PNG: %v", i, b.MimeType, err)
			}
			got := img.Bounds().Size()
			if got.X > side || got.Y > side {
				t.Errorf("picture %d is %d×%d, over %d px a side", i, got.X, got.Y, side)
			}
			// The same aspect ratio: the other side as the scale gives
			// it, within half a pixel.
			if d := math.Abs(float64(got.Y) - float64(got.X)*float64(h)/float64(w)); d > 0.5 && math.Abs(float64(got.X)-float64(got.Y)*float64(w)/float64(h)) > 0.5 {
				t.Errorf("picture %d is %d×%d: not the aspect ratio of %d×%d", i, got.X, got.Y, w, h)
			}
			want := fmt.Sprintf("mcp-bridge: the picture above was reduced from %d×%d to %d×%d px", w, h, got.X, got.Y)
			if i+1 < len(msg.Result.Content) && strings.HasPrefix(msg.Result.Content[i+1].Text, want) {
				notes++
			} else {
				t.Errorf("no note %q after the picture", want)
			}
		}
	}
	if pics != 1 || notes != 1 {
		t.Errorf("%d pictures, %d notes; want one of each", pics, notes)
	}
}
