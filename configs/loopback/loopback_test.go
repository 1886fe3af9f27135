package loopback

import "testing"

// TestLoopback: every edge the rule's four former copies handled (the
// base's dialer, cmd's warning about the base, the HTTP front end's Host
// and Origin checks, its listen address), for Host and Name at once. Name
// alone counts a name under .localhost (a browser's).
func TestLoopback(t *testing.T) {
	for _, tt := range []struct {
		in         string
		host, name bool
	}{
		// Loopback IPs, either family, at the edges of 127.0.0.0/8.
		{"127.0.0.1", true, true},
		{"127.0.0.0", true, true},
		{"127.255.255.254", true, true},
		{"127.255.255.255", true, true},
		{"126.255.255.255", false, false},
		{"128.0.0.1", false, false},
		{"::1", true, true},
		{"0:0:0:0:0:0:0:1", true, true},
		{"::2", false, false},
		{"::ffff:127.0.0.1", true, true}, // IPv4-mapped
		{"::ffff:7f00:1", true, true},
		{"::ffff:10.0.0.1", false, false},
		{"::1%lo", true, true}, // a zone
		{"fe80::1%eth0", false, false},
		{"[::1]", true, true}, // brackets, as a Host header carries them
		{"[::2]", false, false},
		{"[127.0.0.1]", true, true},
		{"[::1", false, false},
		{"10.0.0.1", false, false},
		{"0.0.0.0", false, false}, // every interface
		{"::", false, false},
		{"", false, false},
		{"127.1", false, false}, // not an address Go reads
		// localhost: any case, the final dot of a fully qualified name.
		{"localhost", true, true},
		{"LocalHost", true, true},
		{"LOCALHOST.", true, true},
		{"localhost..", false, false},
		{"localhostx", false, false},
		{"xlocalhost", false, false},
		{"localhost-", false, false},
		{"localhost.example", false, false},
		{"localhost.attacker.example", false, false},
		{"127.0.0.1.evil.example", false, false},
		// Names under .localhost: a browser's, never the resolver's.
		{"cad.localhost", false, true},
		{"A.LOCALHOST.", false, true},
		{"a.b.localhost", false, true},
		{"a.localhostx", false, false},
		{"cad.example", false, false},
	} {
		if got := Host(tt.in); got != tt.host {
			t.Errorf("Host(%q) = %v, want %v", tt.in, got, tt.host)
		}
		if got := Name(tt.in); got != tt.name {
			t.Errorf("Name(%q) = %v, want %v", tt.in, got, tt.name)
		}
	}
}

// TestAddr: a listen or base address that only this machine reaches
// (served without a token; dialled without keep-alive): host:port with
// Host's rule, not a name the resolver asks DNS for, not every interface.
func TestAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8931":          true,
		"127.255.255.254:1":       true,
		"[::1]:8931":              true,
		"[::ffff:127.0.0.1]:8080": true,
		"[::1%lo]:8080":           true,
		"localhost:8931":          true,
		"LocalHost:1":             true,
		"LOCALHOST.:8931":         true,
		"cad.localhost:8931":      false, // DNS decides where that binds
		"localhostx:8931":         false,
		"localhost.example:1":     false,
		"cad.example:8080":        false,
		"128.0.0.1:8931":          false,
		"126.255.255.255:8931":    false,
		"10.0.0.1:8080":           false,
		"[::2]:8931":              false,
		"0.0.0.0:8931":            false,
		"[::]:8931":               false,
		":8931":                   false, // every interface
		"127.0.0.1":               false, // no port: not an address
		"[::1]":                   false,
		"":                        false,
	} {
		if got := Addr(addr); got != want {
			t.Errorf("Addr(%q) = %v, want %v", addr, got, want)
		}
	}
}
