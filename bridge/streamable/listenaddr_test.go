package streamable

import "testing"

// TestIsLoopbackAddr: what counts as a listen address that only this
// machine reaches (served without a token): loopback IPs and localhost,
// not a name the resolver asks DNS for, not every interface.
func TestIsLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8931":       true,
		"127.255.255.254:8931": true,
		"[::1]:8931":           true,
		"localhost:8931":       true,
		"LOCALHOST.:8931":      true,
		"cad.localhost:8931":   false, // DNS decides where that binds
		"localhostx:8931":      false,
		"128.0.0.1:8931":       false,
		"126.255.255.255:8931": false,
		"[::2]:8931":           false,
		"0.0.0.0:8931":         false,
		"[::]:8931":            false,
		":8931":                false, // every interface
		"127.0.0.1":            false, // no port: not an address
	} {
		if got := IsLoopbackAddr(addr); got != want {
			t.Errorf("IsLoopbackAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}
