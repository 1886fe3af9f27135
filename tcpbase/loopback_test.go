package tcpbase

import "testing"

// TestIsLoopback: keep-alive is left off only for a base whose address is
// on this machine, by IP (either family, IPv4-mapped too) or as localhost;
// any other host, or an address that is not host:port, keeps it.
func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "127.255.255.254:1": true, "[::1]:8080": true, "[::ffff:127.0.0.1]:8080": true,
		"localhost:8080": true, "LocalHost:1": true,
		"128.0.0.1:8080": false, "10.0.0.1:8080": false, "[::2]:8080": false, "cad.example:8080": false,
		"localhost.example:1": false, "127.0.0.1": false, "": false,
	} {
		if got := isLoopback(addr); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
