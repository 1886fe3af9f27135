package simbase

import (
	"io"
	"net"
	"testing"
	"time"
)

// lateListener hands out one connection, but only when released: an Accept
// that lands while Close runs. Later Accepts fail once it is closed.
type lateListener struct {
	net.Listener
	conn    net.Conn
	release chan struct{}
	closed  chan struct{}
	handed  bool
}

func (l *lateListener) Accept() (net.Conn, error) {
	if !l.handed {
		l.handed = true
		<-l.release
		return l.conn, nil
	}
	<-l.closed
	return nil, net.ErrClosed
}

func (l *lateListener) Close() error {
	close(l.closed)
	return l.Listener.Close()
}

// TestCloseWinsOverALateAccept: a connection accepted just as Close runs
// is closed too, not served after Close has returned.
func TestCloseWinsOverALateAccept(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	late := &lateListener{Listener: ln, conn: conn, release: make(chan struct{}), closed: make(chan struct{})}
	s := New(Options{})
	s.ln = late
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	close(late.release) // Accept returns the connection after Close
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if n := s.OpenConns(); n != 0 {
		t.Errorf("%d connections open after Close", n)
	}
	// The client sees its connection end (well before the 30 s read deadline
	// a served connection would get).
	_ = client.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := client.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("client read: %v, want EOF", err)
	}
}
