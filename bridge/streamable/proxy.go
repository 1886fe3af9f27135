package streamable

import (
	"net"
	"net/http"
	"strings"
)

// trustedProxies wraps h so that a request coming from one of nets (a
// reverse proxy the user named with --trust-proxy) is taken to come from
// the client X-Forwarded-For names: the address right of which only
// trusted proxies stand. Fair turns and logs then see the real client.
// From any other peer the header is ignored: anyone can write it.
func trustedProxies(nets []*net.IPNet, h http.Handler) http.Handler {
	if len(nets) == 0 {
		return h
	}
	trusted := func(addr string) bool {
		ip := net.ParseIP(strings.Trim(strings.TrimSpace(addr), "[]"))
		if ip == nil {
			return false
		}
		for _, n := range nets {
			if n.Contains(ip) {
				return true
			}
		}
		return false
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		peer, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil || !trusted(peer) {
			h.ServeHTTP(w, r)
			return
		}
		var hops []string
		for _, v := range r.Header.Values("X-Forwarded-For") {
			hops = append(hops, strings.Split(v, ",")...)
		}
		for i := len(hops) - 1; i >= 0; i-- {
			hop := strings.TrimSpace(hops[i])
			if trusted(hop) {
				continue
			}
			if ip := net.ParseIP(strings.Trim(hop, "[]")); ip != nil {
				r2 := r.Clone(r.Context())
				r2.RemoteAddr = net.JoinHostPort(ip.String(), "0")
				h.ServeHTTP(w, r2)
				return
			}
			break // not an address: keep the proxy's own
		}
		h.ServeHTTP(w, r)
	})
}
