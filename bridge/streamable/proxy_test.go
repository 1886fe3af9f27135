package streamable

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestTrustedProxies: X-Forwarded-For names the client only when the peer
// is a trusted proxy; the address taken is the last one no trusted proxy
// wrote.
func TestTrustedProxies(t *testing.T) {
	_, proxies, _ := net.ParseCIDR("10.0.0.0/8")
	cases := []struct {
		peer, xff string
		nets      []*net.IPNet
		want      string
	}{
		{"10.1.1.1:5000", "203.0.113.7", []*net.IPNet{proxies}, "203.0.113.7:0"},
		{"10.1.1.1:5000", "198.51.100.1, 203.0.113.7, 10.2.2.2", []*net.IPNet{proxies}, "203.0.113.7:0"}, // a spoofed first hop is not taken
		{"192.0.2.9:5000", "203.0.113.7", []*net.IPNet{proxies}, "192.0.2.9:5000"},                       // not a trusted peer: ignored
		{"10.1.1.1:5000", "203.0.113.7", nil, "10.1.1.1:5000"},                                           // no --trust-proxy: ignored
		{"10.1.1.1:5000", "not-an-address", []*net.IPNet{proxies}, "10.1.1.1:5000"},
		{"10.1.1.1:5000", "", []*net.IPNet{proxies}, "10.1.1.1:5000"},
		{"10.1.1.1:5000", "[2001:db8::1]", []*net.IPNet{proxies}, "[2001:db8::1]:0"},
	}
	for _, c := range cases {
		var got string
		h := trustedProxies(c.nets, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = r.RemoteAddr }))
		r := httptest.NewRequest(http.MethodGet, "/healthz", nil)
		r.RemoteAddr = c.peer
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
		if got != c.want {
			t.Errorf("peer %s, X-Forwarded-For %q: client %s, want %s", c.peer, c.xff, got, c.want)
		}
	}
}

// TestRemoteHostGroups: the address a client is counted under. IPv6
// addresses of one /64 are one client (a host picks any of them per
// connection); another /64 is another; IPv4, IPv4-mapped IPv6 and the
// loopback addresses are counted one by one.
func TestRemoteHostGroups(t *testing.T) {
	for _, c := range []struct{ remote, want string }{
		{"192.0.2.7:5000", "192.0.2.7"},
		{"[::ffff:192.0.2.7]:5000", "192.0.2.7"},
		{"[2001:db8:1:2::7]:5000", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:aaaa:bbbb:cccc:dddd]:6000", "2001:db8:1:2::/64"},
		{"[2001:db8:1:3::7]:5000", "2001:db8:1:3::/64"},
		{"[fe80::1%eth0]:5000", "fe80::/64"},
		{"[::1]:5000", "::1"},
		{"127.0.0.2:5000", "127.0.0.2"},
		{"pipe", "pipe"},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.RemoteAddr = c.remote
		if got := remoteHost(r); got != c.want {
			t.Errorf("%s counted as %q, want %q", c.remote, got, c.want)
		}
	}
}
