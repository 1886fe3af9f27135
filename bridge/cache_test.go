package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// downBase returns the address of a stopped sim (nothing listens there).
func downBase(t *testing.T) string {
	t.Helper()
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{})
	if err != nil {
		t.Fatal(err)
	}
	addr := sim.Addr()
	sim.Close()
	return addr
}

func atAddr(addr, cacheDir string) func(*Config) {
	return func(c *Config) {
		c.Base = &tcpbase.Client{Addr: addr, ConnectTimeout: time.Second}
		c.BaseAddr = addr
		c.CacheDir = cacheDir
		c.RetryBackoff = 5 * time.Millisecond
		c.ProbeInterval = 20 * time.Millisecond
	}
}

// fillCache runs a bridge against a live sim on addr so that it caches the
// tool list, and returns the list the sim gave.
func fillCache(t *testing.T, addr, dir string) string {
	t.Helper()
	sim, err := simbase.Start(addr, simbase.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	h := newHarness(t, sim, atAddr(addr, dir))
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	line := h.recv()
	h.closeAndWait()
	return line
}

func TestCachedToolsWhileDownThenListChanged(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			dir := t.TempDir()
			addr := downBase(t)
			first := fillCache(t, addr, dir)

			// CAD is not running when the client starts.
			h := newHarness(t, nil, atAddr(addr, dir))
			meta, listenID := "", ""
			if era == "legacy" {
				h.send(initialize("0", "2025-06-18"))
				h.recv()
			} else {
				meta = `,"params":{` + modernMeta + `}`
				listenID = `"L"`
				h.send(`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + modernMeta + `}}`)
				h.recv()
			}
			h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"` + meta + `}`)
			got := h.recv()
			if field(t, got, "result.tools") == nil || len(field(t, got, "result.tools").([]any)) != len(field(t, first, "result.tools").([]any)) {
				t.Fatalf("tools/list with the base down and a cache: %.300s", got)
			}
			callParams := `{"name":"get_drawing_info","arguments":{}}`
			if era == "modern" {
				callParams = `{"name":"get_drawing_info","arguments":{},` + modernMeta + `}`
			}
			h.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":` + callParams + `}`)
			if got := h.recv(); field(t, got, "error.data.kind") != "unreachable" {
				t.Fatalf("tools/call with the base down: %s", got)
			}

			// CAD starts: the bridge notices by itself and tells the client.
			live, err := simbase.Start(addr, simbase.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer live.Close()
			want := `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
			if era == "modern" {
				want = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` + listenID + `}}}`
			}
			h.expect(want)
			h.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":` + callParams + `}`)
			if got := h.recv(); field(t, got, "result.isError") != false {
				t.Fatalf("tools/call after the base came back: %s", got)
			}
			h.closeAndWait()
			if live.CallsFor("3") != 1 {
				t.Errorf("call 3 ran %d times", live.CallsFor("3"))
			}
		})
	}
}

func TestNoCacheBaseDown(t *testing.T) {
	h := newHarness(t, nil, atAddr(downBase(t), t.TempDir()))
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if got := h.recv(); field(t, got, "error.code") != float64(-32603) || field(t, got, "error.data.kind") != "unreachable" {
		t.Fatalf("got %s", got)
	}
	h.closeAndWait()
}

// TestSharedCacheDir: two bridges for the same base address, whose tool
// lists keep changing, write the same cache file at once; a reader always
// finds one whole list, never a mix or a torn file.
func TestSharedCacheDir(t *testing.T) {
	dir := t.TempDir()
	lists := func(tag string) baseFunc {
		n := 0
		return func(_ context.Context, frame []byte) ([]byte, error) {
			n++
			tools := make([]string, 200)
			for i := range tools {
				tools[i] = fmt.Sprintf(`{"name":"%s_%d_%d","inputSchema":{"type":"object"}}`, tag, n, i)
			}
			return []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[` + strings.Join(tools, ",") + `]}}`), nil
		}
	}
	var wg sync.WaitGroup
	for _, tag := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := newHarness(t, nil, func(c *Config) { c.Base = lists(tag); c.BaseAddr = "127.0.0.1:8080"; c.CacheDir = dir })
			for i := range 100 {
				h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i))
				h.recv()
			}
			h.closeAndWait()
		}()
	}
	stop := make(chan struct{})
	readerDone := make(chan int)
	go func() {
		reads := 0
		for {
			select {
			case <-stop:
				readerDone <- reads
				return
			default:
			}
			b, err := os.ReadFile(filepath.Join(dir, "tools-127.0.0.1_8080.json"))
			if err != nil {
				continue
			}
			reads++
			var r struct{ Tools []struct{ Name string } }
			if err := json.Unmarshal(b, &r); err != nil || len(r.Tools) != 200 {
				t.Errorf("torn cache file (%d bytes): %v", len(b), err)
				return
			}
			prefix := r.Tools[0].Name[:strings.LastIndexByte(r.Tools[0].Name, '_')]
			for _, tl := range r.Tools {
				if !strings.HasPrefix(tl.Name, prefix+"_") {
					t.Errorf("mixed cache file: %s and %s", r.Tools[0].Name, tl.Name)
					return
				}
			}
		}
	}()
	wg.Wait()
	close(stop)
	t.Logf("%d reads of the cache while two bridges wrote it", <-readerDone)
	left, _ := filepath.Glob(filepath.Join(dir, ".tools-*.tmp"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
