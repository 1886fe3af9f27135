package simbase

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Options configure a Server.
type Options struct {
	// Faults adds the fault_* and sim_stats tools (for tests only).
	Faults bool
	// Conformance adds the tools the official MCP conformance suite calls
	// (conformance.go), and one with x-mcp-header arguments.
	Conformance bool
	// LimitTools adds sim_slow, sim_picture and sim_listing, the test
	// tools for clients' limits (limits.go; for tests only).
	LimitTools bool
	// Newline ends each answer with "\n"; by default an answer ends when
	// the server closes the connection, as the real base does.
	Newline bool
	// ListID, when set, is the id (raw JSON, null included) of every
	// tools/list answer instead of the request's: a base that mixes up its
	// ids. ListError makes tools/list answer with a JSON-RPC error. For
	// tests only.
	ListID    json.RawMessage
	ListError bool
}

// Server is a simulated CAD base. Create it with New, then Listen and Serve
// (or Start), and Close it when done.
type Server struct {
	opts  Options
	tools []tool
	list  []byte // the tools/list result, built once

	mu        sync.Mutex // guards the drawing and its history
	doc       drawing
	undoStack []drawing
	redoStack []drawing

	calls   atomic.Int64
	active  atomic.Int64 // frames being answered now
	maxConc atomic.Int64 // the most frames ever answered at once
	countMu sync.Mutex
	byID    map[string]int
	runs    map[string]int // finished sim_slow runs, by label

	picMu   sync.Mutex // guards the last sim_picture, kept
	picKey  pictureKey
	picData []byte

	ln     net.Listener
	connMu sync.Mutex // guards conns and closed, and orders wg.Add before Close's wg.Wait
	conns  map[net.Conn]struct{}
	closed bool // set by Close: connections accepted after it are closed at once
	wg     sync.WaitGroup
	done   chan struct{}
	once   sync.Once
}

// New returns a Server with an empty drawing.
func New(opts Options) *Server {
	s := &Server{opts: opts, doc: newDrawing("Drawing1"), byID: map[string]int{},
		conns: map[net.Conn]struct{}{}, done: make(chan struct{})}
	s.tools = cadTools()
	if opts.Faults {
		s.tools = append(s.tools, faultTools()...)
	}
	if opts.Conformance {
		s.tools = append(s.tools, conformanceTools()...)
	}
	if opts.LimitTools {
		s.tools = append(s.tools, limitTools()...)
	}
	type listed struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		InputSchema any    `json:"inputSchema"`
	}
	var out struct {
		Tools []listed `json:"tools"`
	}
	for _, t := range s.tools {
		var sch any = t.Schema
		if t.rawSchema != nil {
			sch = t.rawSchema
		}
		out.Tools = append(out.Tools, listed{t.Name, t.Description, sch})
	}
	s.list, _ = json.Marshal(out)
	return s
}

// Start listens on addr ("127.0.0.1:0" for a free port) and serves in the
// background until Close.
func Start(addr string, opts Options) (*Server, error) {
	s := New(opts)
	if err := s.Listen(addr); err != nil {
		return nil, err
	}
	go s.Serve()
	return s, nil
}

// Listen binds the server's address.
func (s *Server) Listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s.ln = ln
	return nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Serve accepts connections until Close. Each connection carries one frame.
func (s *Server) Serve() error {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			select {
			case <-s.done:
				return nil
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		if !s.track(c) {
			c.Close()
			continue
		}
		go func() {
			defer s.wg.Done()
			defer func() {
				s.connMu.Lock()
				delete(s.conns, c)
				s.connMu.Unlock()
				c.Close()
			}()
			s.serveConn(c)
		}()
	}
}

// track registers an accepted connection, unless Close has run: an Accept
// that returned just before Close must not serve a connection Close missed.
func (s *Server) track(c net.Conn) bool {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	return true
}

// Close stops listening, closes every open connection and waits for them.
func (s *Server) Close() error {
	s.once.Do(func() { close(s.done) })
	err := s.ln.Close()
	s.connMu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.connMu.Unlock()
	s.wg.Wait()
	return err
}

// Calls is the number of tools/call requests the server has executed.
func (s *Server) Calls() int64 { return s.calls.Load() }

// idStats counts the distinct ids of executed calls, and those that ran
// more than once.
func (s *Server) idStats() (distinct, repeated int) {
	s.countMu.Lock()
	defer s.countMu.Unlock()
	for _, n := range s.byID {
		if n > 1 {
			repeated++
		}
	}
	return len(s.byID), repeated
}

// MaxConcurrent is the most frames the server was ever answering at once:
// 1 when its clients never overlapped, as a real CAD base needs.
func (s *Server) MaxConcurrent() int64 { return s.maxConc.Load() }

// OpenConns is how many client connections the server holds open now.
func (s *Server) OpenConns() int {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	return len(s.conns)
}

// CallsFor is how many times a tools/call with this raw JSON id ran.
func (s *Server) CallsFor(id string) int {
	s.countMu.Lock()
	defer s.countMu.Unlock()
	return s.byID[id]
}

const maxFrame = 16 << 20

func (s *Server) serveConn(c net.Conn) {
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	frame, err := bufio.NewReader(io.LimitReader(c, maxFrame+1)).ReadBytes('\n')
	if err != nil && (err != io.EOF || len(bytes.TrimSpace(frame)) == 0) {
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	// A frame counts as being answered from its arrival to the first byte of
	// its answer (or the end of the connection): a client that read the
	// answer may send its next frame before this goroutine has returned.
	n := s.active.Add(1)
	for m := s.maxConc.Load(); n > m && !s.maxConc.CompareAndSwap(m, n); m = s.maxConc.Load() {
	}
	answered := sync.OnceFunc(func() { s.active.Add(-1) })
	defer answered()
	c = answeringConn{c, answered}
	d := rpc.DecodeMessage(bytes.TrimSpace(frame))
	if d.Err != nil {
		s.answerError(c, d.ID, d.Err)
		return
	}
	req, ok := d.Msg.(*rpc.Request)
	if !ok {
		return // notifications and stray responses get no reply
	}
	switch req.Method {
	case "tools/list":
		s.listAnswer(c, req.ID)
	case "tools/call":
		s.call(c, req)
	default:
		s.answerError(c, req.ID, rpc.Errorf(rpc.CodeMethodNotFound, "Method not found: %s", req.Method))
	}
}

func (s *Server) call(c net.Conn, req *rpc.Request) {
	s.calls.Add(1)
	s.countMu.Lock()
	s.byID[req.ID.String()]++
	s.countMu.Unlock()

	var p struct {
		Name      *string        `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	if req.Params == nil || rpc.Kind(req.Params) != rpc.KindObject || json.Unmarshal(req.Params, &p) != nil || p.Name == nil {
		s.answerError(c, req.ID, rpc.Errorf(rpc.CodeInvalidParams, "Invalid params: tools/call needs {\"name\": string, \"arguments\": object}"))
		return
	}
	var t *tool
	for i := range s.tools {
		if s.tools[i].Name == *p.Name {
			t = &s.tools[i]
		}
	}
	if t == nil {
		s.answerError(c, req.ID, rpc.Errorf(rpc.CodeInvalidParams, "Unknown tool: %s", *p.Name))
		return
	}
	if p.Arguments == nil {
		p.Arguments = map[string]any{}
	}
	if t.conn != nil {
		t.conn(s, c, req.ID, args(p.Arguments))
		return
	}
	if msg := t.Schema.check("", p.Arguments); msg != "" {
		s.answer(c, req.ID, toolResult("Invalid arguments for "+t.Name+": "+msg, true))
		return
	}
	s.mu.Lock()
	before := s.doc.clone()
	text, err := t.run(s, args(p.Arguments))
	if err == nil && t.mutates {
		s.undoStack = append(s.undoStack, before)
		s.redoStack = nil
		s.doc.Modified = true
	}
	s.mu.Unlock()
	if err != nil {
		s.answer(c, req.ID, toolResult(err.Error(), true))
		return
	}
	s.answer(c, req.ID, toolResult(text, false))
}

func toolResult(text string, isError bool) []byte {
	type content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	out, _ := json.Marshal(struct {
		Content []content `json:"content"`
		IsError bool      `json:"isError"`
	}{[]content{{"text", text}}, isError})
	return out
}

func (s *Server) answer(c net.Conn, id rpc.ID, result []byte) {
	s.send(c, rpc.AppendResult(make([]byte, 0, len(result)+64), id, result))
}

func (s *Server) answerError(c net.Conn, id rpc.ID, e *rpc.WireError) {
	s.send(c, rpc.AppendError(nil, id, e))
}

func (s *Server) send(c net.Conn, msg []byte) {
	if s.opts.Newline {
		msg = append(msg, '\n')
	}
	_ = c.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write(msg); err != nil {
		return
	}
}

// answeringConn ends a frame's count in Server.active at its first write.
type answeringConn struct {
	net.Conn
	answered func()
}

func (c answeringConn) Write(p []byte) (int, error) {
	c.answered()
	return c.Conn.Write(p)
}

// waitClosed blocks until the peer closes c or the server shuts down.
func (s *Server) waitClosed(c net.Conn) {
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-s.done:
			c.Close()
		case <-finished:
		}
	}()
	_, _ = io.Copy(io.Discard, c)
}

// String describes the server for logs.
func (s *Server) String() string {
	return fmt.Sprintf("simulated CAD base on %s (%d tools)", s.Addr(), len(s.tools))
}
