package connect

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/streamable"
	"github.com/mcp-bridge/mcp-bridge/bridge/streamable/tlscert"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// waitLimit bounds every wait, so that a broken test fails instead of
// hanging; no assertion depends on it.
const waitLimit = 30 * time.Second

const testToken = "t0ken"

// remote is an HTTPS mcp-bridge (streamable.Serve behind the same TLS listener
// the binary uses) on a fixed loopback address, that a test can kill and
// start again there. It records every HTTP request it reads, after TLS.
type remote struct {
	t    *testing.T
	sim  *simbase.Server
	cert tls.Certificate
	addr string

	tweak     func(*bridge.Config)     // applied at each start
	httpTweak func(*streamable.Config) // applied at each start

	mu    sync.Mutex
	conns []*recConn // every connection ever accepted, in order
	stop  context.CancelFunc
	done  chan error
}

func newRemote(t *testing.T) *remote { return newRemoteWith(t, nil) }

func newRemoteWith(t *testing.T, tweak func(*bridge.Config)) *remote {
	t.Helper()
	return newRemoteFull(t, tweak, nil)
}

func newRemoteFull(t *testing.T, tweak func(*bridge.Config), httpTweak func(*streamable.Config)) *remote {
	t.Helper()
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Faults: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	cert, _, err := tlscert.SelfSigned(testdir.New(t))
	if err != nil {
		t.Fatal(err)
	}
	r := &remote{t: t, sim: sim, cert: cert, addr: "127.0.0.1:0", tweak: tweak, httpTweak: httpTweak}
	r.start()
	t.Cleanup(r.kill)
	return r
}

func (r *remote) url() string { return "https://" + r.addr + "/mcp" }
func (r *remote) fingerprint() []byte {
	f, _ := tlscert.ParseFingerprint(tlscert.LeafFingerprint(r.cert))
	return f
}

// start serves on r.addr (a free port the first time, the same one after).
func (r *remote) start() {
	r.t.Helper()
	var ln net.Listener
	var err error
	for i := 0; i < 100; i++ { // the old socket may linger for a moment
		if ln, err = net.Listen("tcp", r.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		r.t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	cfg := bridge.Config{
		Base:     &tcpbase.Client{Addr: r.sim.Addr(), ConnectTimeout: time.Second},
		BaseAddr: r.sim.Addr(),
		Server:   lifecycle.NewServer("mcp-bridge", "test", "", true),
		Log:      zerolog.New(zerolog.NewTestWriter(r.t)).Level(zerolog.ErrorLevel),
		Grace:    10 * time.Millisecond,
	}
	if r.tweak != nil {
		r.tweak(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	rl := &recListener{Listener: tls.NewListener(ln, tlscert.ServerConfig(r.cert)), r: r}
	hc := streamable.Config{Token: testToken, Version: "test"}
	if r.httpTweak != nil {
		r.httpTweak(&hc)
	}
	go func() {
		done <- streamable.Serve(ctx, cfg, hc, rl)
	}()
	r.mu.Lock()
	r.stop, r.done = cancel, done
	r.mu.Unlock()
}

// kill drops every connection at once, as a killed process does, and
// stops serving.
func (r *remote) kill() {
	r.mu.Lock()
	stop, done := r.stop, r.done
	r.stop = nil
	for _, c := range r.conns {
		c.Conn.Close()
	}
	r.mu.Unlock()
	if stop == nil {
		return
	}
	stop()
	select {
	case <-done:
	case <-time.After(waitLimit):
		r.t.Errorf("the remote did not stop")
	}
}

// recorded is one HTTP request the remote read.
type recorded struct {
	Method    string // HTTP method
	Session   string // its Mcp-Session-Id
	RPCMethod string // the JSON-RPC method of a POST's body
}

func (q recorded) String() string {
	if q.Method != http.MethodPost {
		return q.Method
	}
	return "POST " + q.RPCMethod
}

// requests parses what the remote has read so far.
func (r *remote) requests() []recorded {
	r.mu.Lock()
	conns := slices.Clone(r.conns)
	r.mu.Unlock()
	var out []recorded
	for _, c := range conns {
		br := bufio.NewReader(bytes.NewReader(c.bytes()))
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				break
			}
			body, _ := io.ReadAll(req.Body)
			q := recorded{Method: req.Method, Session: req.Header.Get("Mcp-Session-Id")}
			var m struct{ Method string }
			if json.Unmarshal(body, &m) == nil {
				q.RPCMethod = m.Method
			}
			if q.RPCMethod == "" && req.Method == http.MethodPost {
				q.RPCMethod = "(response)"
			}
			out = append(out, q)
		}
	}
	return out
}

// since is what the remote read after the snapshot before, as sorted
// request names (connections run in parallel: only the multiset is
// certain).
func since(before, after []recorded) []string {
	count := map[string]int{}
	for _, q := range before {
		count[q.String()]--
	}
	var out []string
	for _, q := range after {
		if count[q.String()] < 0 {
			count[q.String()]++
			continue
		}
		out = append(out, q.String())
	}
	sort.Strings(out)
	return out
}

type recListener struct {
	net.Listener
	r *remote
}

func (l *recListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	rc := &recConn{Conn: c}
	l.r.mu.Lock()
	l.r.conns = append(l.r.conns, rc)
	l.r.mu.Unlock()
	return rc, nil
}

// recConn keeps a copy of what it reads.
type recConn struct {
	net.Conn
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *recConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.buf.Write(p[:n])
	c.mu.Unlock()
	return n, err
}

func (c *recConn) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.buf.Bytes())
}

// client is connect.Run in-process, driven through pipes as a stdio MCP
// client drives it.
type client struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan error
	stop  context.CancelFunc
}

func startConnect(t *testing.T, cfg Config) *client {
	t.Helper()
	cfg.ProbeInterval = 10 * time.Millisecond
	cfg.MaxProbe = 50 * time.Millisecond
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &client{t: t, in: inW, lines: make(chan string, 100), done: make(chan error, 1), stop: cancel}
	go func() {
		c.done <- Run(ctx, cfg, inR, outW)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 32<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		c.wait()
	})
	return c
}

func (c *client) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

// recv returns the next line connect writes.
func (c *client) recv() string {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("connect closed stdout")
		}
		return l
	case <-time.After(waitLimit):
		c.t.Fatalf("no answer from connect")
	}
	return ""
}

// answer returns the next line that answers id, skipping notifications.
func (c *client) answer(id string) map[string]any {
	c.t.Helper()
	for {
		l := c.recv()
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			c.t.Fatalf("not JSON: %q", l)
		}
		if raw, ok := m["id"]; ok {
			if b, _ := json.Marshal(raw); string(b) == id {
				return m
			}
		}
	}
}

// wait ends stdin and waits for Run to return.
func (c *client) wait() error {
	c.in.Close()
	select {
	case err := <-c.done:
		c.done <- err
		return err
	case <-time.After(waitLimit):
		c.t.Errorf("connect did not exit")
		return nil
	}
}

func (c *client) handshake(version string) {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if res := c.answer("0"); res["result"] == nil {
		c.t.Fatalf("initialize: %v", res)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func call(id, tool, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// errorOf returns an answer's error message and data.kind ("" for a result).
func errorOf(m map[string]any) (msg, kind string) {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return "", ""
	}
	msg, _ = e["message"].(string)
	if d, ok := e["data"].(map[string]any); ok {
		kind, _ = d["kind"].(string)
	}
	return msg, kind
}

// waitFor polls cond until it holds (or fails the test at waitLimit).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (r *remote) config(t *testing.T) Config {
	return Config{URL: r.url(), Token: testToken, Fingerprint: r.fingerprint(), Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel)}
}

// healthSessions reads the remote's open session count from /healthz.
func (r *remote) healthSessions(t *testing.T) float64 {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, Timeout: waitLimit}
	req, _ := http.NewRequest(http.MethodGet, "https://"+r.addr+"/healthz", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h struct{ Sessions float64 }
	_ = json.NewDecoder(resp.Body).Decode(&h)
	return h.Sessions
}

// deleteSession ends a session on the remote behind connect's back, as
// the remote's idle timeout does.
func (r *remote) deleteSession(t *testing.T, id string) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, Timeout: waitLimit}
	req, _ := http.NewRequest(http.MethodDelete, "https://"+r.addr+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s", resp.Status)
	}
}

// lastSession is the session id of the last request that carried one.
func (r *remote) lastSession() string {
	s := ""
	for _, q := range r.requests() {
		if q.Session != "" {
			s = q.Session
		}
	}
	return s
}
