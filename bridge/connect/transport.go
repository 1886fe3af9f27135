package connect

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/streamable/tlscert"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/httpheader"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// PinError is a server certificate that is not the pinned one.
type PinError struct{ Got, Want string }

func (e *PinError) Error() string {
	return fmt.Sprintf("the server's certificate has fingerprint %s, but --fingerprint pins %s: refusing to connect (if the remote made a new certificate, check its log or run doctor there, and update --fingerprint)", e.Got, e.Want)
}

// newHTTPClient builds the client: TLS 1.2 or later; with a pin, the
// certificate's fingerprint replaces the chain check (a self-signed
// certificate has no chain), and nothing else is trusted.
func newHTTPClient(cfg Config) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 15 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 10 * time.Second
	t.MaxIdleConnsPerHost = 16
	// A call's body waits for the remote's 100 Continue (post). A server
	// that never sends one (HTTP/1.1 lets it wait for the body) gets the
	// body after this long, counted as sent; a closed connection shows
	// long before.
	t.ExpectContinueTimeout = 2 * time.Second
	tc := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: cfg.RootCAs}
	if pin := cfg.Fingerprint; pin != nil {
		want := "sha256:" + fmt.Sprintf("%x", pin)
		tc.InsecureSkipVerify = true // replaced by the pin below
		tc.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("the server sent no certificate")
			}
			leaf := cs.PeerCertificates[0].Raw
			if sum := sha256.Sum256(leaf); !bytes.Equal(sum[:], pin) {
				return &PinError{Got: tlscert.Fingerprint(leaf), Want: want}
			}
			return nil
		}
	}
	tc.ClientSessionCache = tls.NewLRUClientSessionCache(4) // a new connection resumes the TLS session
	t.TLSClientConfig = tc
	// Redirects would carry the token elsewhere: none are followed.
	return &http.Client{Transport: t, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// attempt is one POST's outcome. wrote is true once the remote may have
// acted on it: the request was written whole, or for a call, once any of
// its body left.
type attempt struct {
	resp  *http.Response
	err   error
	wrote bool
}

// setCommon sets the headers every request carries.
func (r *relay) setCommon(h http.Header) {
	if r.cfg.Token != "" {
		h.Set("Authorization", "Bearer "+r.cfg.Token)
	}
}

// post sends one message; sent is called once it is on the wire (or
// failed to get there). For a call, only once some of its body left: one
// that did not leave may be sent again (request), and what the client
// wrote after it waits until then, or until request gives up on it.
//
// A call is sent with "Expect: 100-continue": its body, the only part
// that says what to run, leaves only after the remote answered 100 on
// that very connection. A kept-alive connection that the remote closed
// while idle (a restart) breaks before that, and the call provably never
// reached anyone: it may go again. Once any of the body left, a break
// leaves the outcome unknown. Without this, the two look the same, as
// they do once the remote refused the header with 417 (noExpect): calls
// then go without it, and a break on the way counts as unknown.
//
// The remote may stay silent for at most answerIdle (AnswerIdle) at a
// time, from the start until the answer's body is closed: each byte that
// goes out or comes in starts the count again. Past it, the request is
// cancelled with errSilent.
func (r *relay) post(ctx context.Context, body []byte, hdr http.Header, isCall bool, sent func()) attempt {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watchdog{idle: r.cfg.answerIdle, ctx: ctx}
	w.timer = time.AfterFunc(w.idle, func() { cancel(errSilent) })
	var wrote atomic.Bool
	trace := &httptrace.ClientTrace{
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			w.alive()
			if info.Err == nil && !isCall {
				wrote.Store(true)
			}
			if !isCall || wrote.Load() {
				sent()
			}
		},
		GotConn:              func(httptrace.GotConnInfo) { w.alive() },
		Got100Continue:       w.alive,
		GotFirstResponseByte: w.alive,
	}
	var rd io.Reader = &watchedBody{r: bytes.NewReader(body), w: w}
	if isCall {
		rd = &watchedBody{r: rd, read: &wrote}
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost, r.url, rd)
	if err != nil {
		w.timer.Stop()
		cancel(nil)
		return attempt{err: err}
	}
	req.ContentLength = int64(len(body))
	for k, v := range hdr {
		req.Header[k] = v
	}
	r.setCommon(req.Header)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if isCall && !r.noExpect.Load() {
		req.Header.Set("Expect", "100-continue")
	}
	resp, err := r.hc.Do(req)
	if !isCall || wrote.Load() {
		sent()
	}
	if err != nil {
		w.timer.Stop()
		err = w.why(err)
		cancel(nil)
	} else {
		r.markUp()
		resp.Body = &idleBody{ReadCloser: resp.Body, w: w, cancel: cancel}
	}
	return attempt{resp: resp, err: err, wrote: wrote.Load()}
}

// errSilent: the remote sent nothing for AnswerIdle while it owed an
// answer.
var errSilent = errors.New("the remote sent nothing")

// watchdog cancels a request whose remote stays silent too long.
type watchdog struct {
	idle  time.Duration
	ctx   context.Context
	timer *time.Timer
}

// alive starts the count again: a byte went out or came in.
func (w *watchdog) alive() { w.timer.Reset(w.idle) }

// why words err, when the watchdog caused it.
func (w *watchdog) why(err error) error {
	if context.Cause(w.ctx) == errSilent {
		return fmt.Errorf("%w for %v while an answer was owed (a remote mcp-bridge sends a keep-alive every 15 s during a long call): it is gone, or the network between drops everything", errSilent, w.idle)
	}
	return err
}

// idleBody is an answer's body under the watchdog: each read that brings
// bytes starts its count again; Close stops it.
type idleBody struct {
	io.ReadCloser
	w      *watchdog
	cancel context.CancelCauseFunc
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.alive()
	}
	if err != nil && err != io.EOF {
		err = b.w.why(err)
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.w.timer.Stop()
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}

// watchedBody is a request body on its way out: each read starts the
// watchdog's count again (w, when set), and the first notes (read, when
// set) that from then on some of a call may have reached the remote.
type watchedBody struct {
	r    io.Reader
	w    *watchdog
	read *atomic.Bool
}

func (b *watchedBody) Read(p []byte) (int, error) {
	if b.w != nil {
		b.w.alive()
	}
	if b.read != nil {
		b.read.Store(true)
	}
	return b.r.Read(p)
}

// modernHeaders are the 2026-07-28 transport's headers for one request.
// Each value comes from the client's message and is encoded as the
// transport says (httpheader.Encode): one net/http refuses (a control
// character) would fail the request before it left, as if the remote
// could not be reached.
func modernHeaders(o *outgoing) http.Header {
	h := http.Header{}
	h.Set(lifecycle.HeaderVersion, httpheader.Encode(o.req.Version))
	if o.method != "" {
		h.Set(lifecycle.HeaderMethod, httpheader.Encode(o.method))
	}
	if o.method == "tools/call" {
		h.Set(lifecycle.HeaderName, httpheader.Encode(o.req.Tool.Name))
	}
	return h
}

func isSSE(resp *http.Response) bool {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt == "text/event-stream"
}

// readAll reads a body of at most max bytes and closes it.
func readAll(resp *http.Response, max int) ([]byte, error) {
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, int64(max)+1))
	if err == nil && len(b) > max {
		err = fmt.Errorf("the remote's answer is over %d bytes", max)
	}
	return b, err
}

// statusText is an HTTP refusal in words: the status, and the message of
// the JSON-RPC error the body holds, if any.
func statusText(resp *http.Response, body []byte) string {
	s := resp.Status
	if msg := errorMessage(body); msg != "" {
		s += ": " + msg
	} else if t := strings.TrimSpace(string(body)); t != "" && len(t) < 300 && !strings.ContainsAny(t, "{<") {
		s += ": " + t
	}
	return s
}

// errorMessage is the message of a JSON-RPC error response body, or "".
func errorMessage(body []byte) string {
	if resp, ok := rpc.DecodeMessage(bytes.TrimSpace(body)).Msg.(*rpc.Response); ok && resp.Error != nil {
		return resp.Error.Message
	}
	return ""
}

// hint says what to check for an error that kept a request from reaching
// the remote.
func (r *relay) hint(err error) string {
	var pe *PinError
	var ue x509.UnknownAuthorityError
	var he x509.HostnameError
	var rh tls.RecordHeaderError
	switch {
	case errors.As(err, &pe):
		return pe.Error()
	case errors.As(err, &rh):
		return "the server there does not speak TLS: use http:// in the URL, or start the remote bridge with --tls-self-signed or --tls-cert"
	case errors.As(err, &ue), errors.As(err, &he):
		return err.Error() + ": pin the remote's self-signed certificate with --fingerprint sha256:… (the remote bridge logs it at start; doctor prints it there), or give its CA with --ca"
	}
	return err.Error() + ": check that mcp-bridge runs there with --listen on that address and port, the host name, and any firewall between the two machines"
}
