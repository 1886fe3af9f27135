package streamable

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// newJournal opens a journal in a fresh folder of the test's.
func newJournal(t *testing.T) (string, *journal.Writer) {
	t.Helper()
	return bridgetest.NewJournal(t, testdir.New(t))
}

// httpHarness runs Serve in-process on a loopback port, against the
// simulated base, and talks to it as an HTTP client would.
type httpHarness struct {
	t      *testing.T
	sim    *simbase.Server
	url    string // http://127.0.0.1:port/mcp
	stop   context.CancelFunc
	done   chan error
	client *http.Client
}

func newHTTPHarness(t *testing.T, tweak func(*bridge.Config, *Config)) *httpHarness {
	t.Helper()
	sim := bridgetest.StartSim(t)
	cfg := bridge.Config{
		Base:     &tcpbase.Client{Addr: sim.Addr(), ConnectTimeout: time.Second},
		BaseAddr: sim.Addr(),
		Server:   lifecycle.NewServer("mcp-bridge", "test", "", true),
		Log:      zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel),
	}
	hc := Config{Version: "test"}
	if tweak != nil {
		tweak(&cfg, &hc)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &httpHarness{t: t, sim: sim, url: "http://" + ln.Addr().String() + "/mcp", stop: cancel, done: make(chan error, 1),
		client: &http.Client{Timeout: bridgetest.WaitLimit}}
	go func() { h.done <- Serve(ctx, cfg, hc, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-h.done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(bridgetest.WaitLimit):
			t.Errorf("Serve did not return after its context ended")
		}
	})
	return h
}

// hdr is a request's headers as name, value pairs.
type hdr []string

// jsonHeaders are what a conforming client sends with every POST.
var jsonHeaders = hdr{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}

// modernHeaders adds the 2026-07-28 request metadata headers.
func modernHeaders(method, name string) hdr {
	h := append(hdr{}, jsonHeaders...)
	h = append(h, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method)
	if name != "" {
		h = append(h, "Mcp-Name", name)
	}
	return h
}

// answer is an HTTP answer as a client reads it.
type answer struct {
	status int
	header http.Header
	body   string
}

func (h *httpHarness) do(ctx context.Context, method, url string, headers hdr, body string) answer {
	h.t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if strings.EqualFold(headers[i], "Host") {
			req.Host = headers[i+1]
			continue
		}
		if headers[i+1] == "" { // an empty value removes the header
			req.Header.Del(headers[i])
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatalf("reading the answer: %v", err)
	}
	return answer{resp.StatusCode, resp.Header, strings.TrimSpace(string(b))}
}

// try is a POST from a goroutine: errors are returned, not fatal.
func (h *httpHarness) try(ctx context.Context, headers hdr, body string) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, strings.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, strings.TrimSpace(string(b))}, err
}

// postAsync is a POST from a goroutine; its answer arrives on the
// channel, and an error is reported with t.Error.
func (h *httpHarness) postAsync(headers hdr, body string) <-chan answer {
	done := make(chan answer, 1)
	go func() {
		r, err := h.try(context.Background(), headers, body)
		if err != nil {
			h.t.Error(err)
		}
		done <- r
	}()
	return done
}

// health is the /healthz answer.
func (h *httpHarness) health() string {
	h.t.Helper()
	return h.do(context.Background(), http.MethodGet, strings.TrimSuffix(h.url, "/mcp")+"/healthz", nil, "").body
}

func (h *httpHarness) post(headers hdr, body string) answer {
	h.t.Helper()
	return h.do(context.Background(), http.MethodPost, h.url, headers, body)
}

// initialize opens a legacy session and returns its id.
func (h *httpHarness) initialize(version string) string {
	h.t.Helper()
	r := h.post(jsonHeaders, fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, version))
	id := r.header.Get("Mcp-Session-Id")
	if r.status != http.StatusOK || id == "" {
		h.t.Fatalf("initialize: %d %v %s", r.status, r.header, r.body)
	}
	return id
}

func withSession(id string) hdr { return append(append(hdr{}, jsonHeaders...), "Mcp-Session-Id", id) }

// stream opens a request whose answer is an SSE stream and returns its
// events' data as they come, and a function that closes it.
func (h *httpHarness) stream(method string, headers hdr, body string) (status int, header http.Header, events <-chan string, closeFn func()) {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, method, h.url, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		cancel()
		h.t.Fatalf("%s: %v", method, err)
	}
	ch := make(chan string, 100)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				ch <- data
			}
		}
	}()
	return resp.StatusCode, resp.Header, ch, cancel
}

func next(t *testing.T, events <-chan string) string {
	t.Helper()
	select {
	case e, ok := <-events:
		if !ok {
			t.Fatal("the stream ended")
		}
		return e
	case <-time.After(bridgetest.WaitLimit):
		t.Fatal("no event")
	}
	return ""
}

// restartSim starts a simulated base again on the address of one that was
// closed.
func restartSim(t *testing.T, addr string) *simbase.Server {
	t.Helper()
	s, err := simbase.Start(addr, simbase.Options{Faults: true})
	if err != nil {
		t.Fatalf("restarting the sim: %v", err)
	}
	return s
}
