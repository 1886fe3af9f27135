package bridge

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// baseFunc is a base made of a function.
type baseFunc func(ctx context.Context, frame []byte) ([]byte, error)

func (f baseFunc) Call(ctx context.Context, frame []byte) ([]byte, error) { return f(ctx, frame) }

// gateBase is a base whose calls wait until the test lets them through:
// one at a time with releaseOne, all with releaseAll. A call whose context
// ends first fails as cancelled, as tcpbase.Client's does.
type gateBase struct {
	started chan string // the raw id of each call, as it reaches the base
	one     chan struct{}
	all     chan struct{}
	allOnce sync.Once
	// hold, when set, keeps a cancelled call from returning until closed.
	hold chan struct{}

	mu    sync.Mutex
	calls []string
}

func newGateBase() *gateBase {
	return &gateBase{started: make(chan string, 1000), one: make(chan struct{}), all: make(chan struct{})}
}

func (g *gateBase) Call(ctx context.Context, frame []byte) ([]byte, error) {
	id := string(rpc.Field(frame, "id"))
	g.mu.Lock()
	g.calls = append(g.calls, id)
	g.mu.Unlock()
	g.started <- id
	select {
	case <-g.one:
	case <-g.all:
	case <-ctx.Done():
		if g.hold != nil {
			<-g.hold
		}
		return nil, &tcpbase.Error{Kind: tcpbase.ErrCanceled, Addr: "gate", Err: ctx.Err()}
	}
	return []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[],"isError":false}}`), nil
}

// waitStarted waits until the next call reaches the base and checks its id.
func (g *gateBase) waitStarted(t *testing.T, id string) {
	t.Helper()
	select {
	case got := <-g.started:
		if got != id {
			t.Fatalf("call %s reached the base, want %s", got, id)
		}
	case <-time.After(waitLimit):
		t.Fatalf("call %s never reached the base", id)
	}
}

func (g *gateBase) releaseOne() { g.one <- struct{}{} }

func (g *gateBase) releaseAll() { g.allOnce.Do(func() { close(g.all) }) }

func (g *gateBase) seen() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.calls...)
}

// sizedBase answers every call with a text result of n bytes of "x".
func sizedBase(n int) baseFunc {
	return func(_ context.Context, frame []byte) ([]byte, error) {
		id := string(rpc.Field(frame, "id"))
		return []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", n) + `"}],"isError":false}}`), nil
	}
}

// changingBase answers tools/list with one list, then another.
