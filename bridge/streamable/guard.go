package streamable

import (
	"crypto/sha256"
	"crypto/subtle"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/configs/loopback"
)

// guard holds the checks every HTTP request passes before anything else:
// Origin (a web page must not drive the CAD program), Host (DNS
// rebinding) and the optional bearer token.
type guard struct {
	listenHost string          // the host part of the listen address
	origins    map[string]bool // allowed Origin values besides loopback ones, lower case
	hosts      map[string]bool // Host names besides the listen address: the TLS certificate's, lower case
	// tokenSum is the SHA-256 of the bearer token; nil: no token
	// required. Digests are compared, not the tokens: their lengths are
	// equal, so the time taken says nothing about the token's length.
	tokenSum []byte
}

// newGuard is the guard of a server listening on listenAddr: hosts are
// the Host names allowed besides it and loopback ones, origins the Origin
// values besides loopback ones, token "" for none.
func newGuard(listenAddr string, hosts, origins []string, token string) guard {
	g := guard{origins: map[string]bool{}, hosts: map[string]bool{}}
	if host, _, err := net.SplitHostPort(listenAddr); err == nil {
		g.listenHost = host
	}
	for _, h := range hosts {
		g.hosts[strings.ToLower(h)] = true
	}
	for _, o := range origins {
		g.origins[strings.ToLower(strings.TrimSuffix(o, "/"))] = true
	}
	if token != "" {
		g.setToken(token)
	}
	return g
}

// Guarded serves h behind the checks /mcp has (Origin, Host, the bearer
// token when token is not ""), for a server of its own listening on
// listenAddr (--metrics-listen): loopback is not private from a browser,
// whose pages reach it by DNS rebinding or a cross-site request.
func Guarded(listenAddr, token string, h http.Handler) http.Handler {
	g := newGuard(listenAddr, nil, nil, token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if code, msg := g.check(r); code != 0 {
			if code == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="mcp-bridge"`)
			}
			http.Error(w, msg, code)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (g *guard) setToken(token string) {
	sum := sha256.Sum256([]byte(token))
	g.tokenSum = sum[:]
}

// check returns the HTTP status and message for a request that must be
// refused, or 0.
func (g *guard) check(r *http.Request) (int, string) {
	if o := r.Header.Get("Origin"); o != "" && !g.originAllowed(o) {
		return http.StatusForbidden, "Forbidden: Origin " + o + " is not allowed (see --allow-origin)"
	}
	if g.tokenSum != nil {
		// A DNS-rebinding page cannot send the token: with one, any Host
		// is fine (remote clients may use the machine's name).
		given := sha256.Sum256(bearerToken(r.Header.Get("Authorization")))
		if subtle.ConstantTimeCompare(given[:], g.tokenSum) != 1 {
			return http.StatusUnauthorized, "Unauthorized: a valid bearer token is required"
		}
		return 0, ""
	}
	if !g.hostAllowed(r.Host) {
		return http.StatusForbidden, "Forbidden: Host " + r.Host + " is not this server's listen address or a loopback name (DNS rebinding protection); " +
			"to reach it by that name, set a token (--token-file or CAD_MCP_TOKEN): with a token any Host is accepted"
	}
	return 0, ""
}

// bearerToken is the credentials of an Authorization header whose scheme
// is Bearer, in any case (RFC 9110 §11.1); nil for any other.
func bearerToken(h string) []byte {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil
	}
	return []byte(strings.TrimSpace(token))
}

// originAllowed: a loopback origin (http://localhost:3000, http://127.0.0.1)
// or one named by --allow-origin. "null" (a sandboxed page or file://) is
// not loopback.
func (g *guard) originAllowed(origin string) bool {
	if g.origins[strings.ToLower(origin)] || g.origins["*"] {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	return loopback.Name(u.Hostname())
}

// hostAllowed: the Host header names the listen address or a loopback
// name, with any port. A page served from evil.example that rebinds its
// name to 127.0.0.1 still sends "Host: evil.example".
func (g *guard) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if loopback.Name(host) || g.hosts[strings.ToLower(host)] {
		return true
	}
	if g.listenHost == "" || g.listenHost == "0.0.0.0" || g.listenHost == "::" {
		// Listening on every interface: any address of this machine is fine,
		// a name is not (names are what DNS rebinding uses).
		return net.ParseIP(host) != nil
	}
	return strings.EqualFold(host, g.listenHost)
}

// jsonContent reports whether a Content-Type is application/json (any
// parameters, e.g. charset=utf-8).
func jsonContent(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// accepts reports whether the Accept header lines list every one of the
// media types wants (or a wildcard for it), reading each part once. No
// Accept header accepts nothing: the transport requires a client to list
// what it takes, and both official SDKs answer such a request 406.
func accepts(accept []string, wants ...string) bool {
	missing := 1<<len(wants) - 1 // a bit for each want not yet listed
	for _, line := range accept {
		for part := range strings.SplitSeq(line, ",") {
			mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			for i, want := range wants {
				if mt == want || mt == "*/*" || (strings.HasSuffix(mt, "/*") && strings.HasPrefix(want, strings.TrimSuffix(mt, "*"))) {
					missing &^= 1 << i
				}
			}
			if missing == 0 {
				return true
			}
		}
	}
	return false
}
