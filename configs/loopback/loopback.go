// Package loopback is the one rule for "does this stay on this machine":
// the CAD base's host, a listen address served without a token, a Host
// header or an Origin a browser sent. It imports only the standard
// library, so that every layer (tcpbase, the HTTP front end, telemetry,
// cmd) reads the same rule.
package loopback

import (
	"net"
	"net/netip"
	"strings"
)

// Host reports whether host, a name or an address this program dials or
// listens on itself, is this machine only: localhost (in any case, with
// or without the final dot of a fully qualified name) or a loopback IP
// (127.0.0.0/8 or ::1, an IPv4-mapped one or one with a zone too),
// brackets allowed. A name under .localhost is not: the resolver asks DNS
// for it, and an answer with another address would reach the network.
func Host(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(unbracket(host), "."))
	return host == "localhost" || ip(host)
}

// Addr is Host for host:port (a listen address, a base's address); an
// address without a port is not one, and ":port" binds every interface.
func Addr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && Host(host)
}

// Name reports whether a host name a browser sent (a Host header's, an
// Origin's) is loopback: what Host accepts, and any name under
// .localhost, which browsers resolve to this machine themselves without
// asking DNS (RFC 6761 §6.3).
func Name(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(unbracket(host), "."))
	return host == "localhost" || strings.HasSuffix(host, ".localhost") || ip(host)
}

func unbracket(host string) string {
	if len(host) >= 2 && host[0] == '[' && host[len(host)-1] == ']' {
		return host[1 : len(host)-1]
	}
	return host
}

// ip: a loopback IP address, IPv4-mapped or with a zone.
func ip(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.WithZone("").Unmap().IsLoopback()
}
