package main

import (
	"bufio"
	"net"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRelay: each line reaches the base on a connection of its own, and
// each answer comes back on one line, in order, whether or not the base
// ended it with a newline.
func TestRelay(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	seen := make(chan string, 10)
	go func() {
		for i := 0; ; i++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(c).ReadString('\n')
			seen <- line
			ans := `{"n":` + strings.TrimSpace(line) + `}`
			if i%2 == 0 {
				ans += "\n"
			}
			c.Write([]byte(ans))
			c.Close()
		}
	}()
	var out strings.Builder
	if err := relay(strings.NewReader("1\n\n2\n3"), &out, ln.Addr().String()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n", out.String()); diff != "" {
		t.Errorf("client saw (-want +got):\n%s", diff)
	}
	close(seen)
	var got []string
	for l := range seen {
		got = append(got, l)
	}
	if diff := cmp.Diff([]string{"1\n", "2\n", "3\n"}, got); diff != "" {
		t.Errorf("base saw (-want +got):\n%s", diff)
	}
}
