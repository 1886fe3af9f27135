// Command floor is the least any relay between an MCP client and the base
// must do, and nothing more: the floor `mcp-bridge bench` measures the
// bridge against. For each line read it dials the base, writes the line,
// reads the whole answer and writes it back on one line; over HTTP
// (-listen), the same for each POST body. It parses nothing, answers no
// protocol itself and serves one message at a time. Standard library only,
// so that the bench can build it wherever it runs (the files are embedded
// in the bench) with the same flags as the bridge. http.go adds -listen;
// the stdio floor is built without it, so that it links no net/http.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
)

// serveHTTP is set by http.go when it is built in.
var serveHTTP func(addr, base string) error

func main() {
	base := flag.String("base", "", "the base's host:port")
	listen := flag.String("listen", "", "serve HTTP POSTs at this address instead of stdio")
	flag.Parse()
	var err error
	switch {
	case *listen != "" && serveHTTP == nil:
		err = fmt.Errorf("-listen: built without http.go")
	case *listen != "":
		err = serveHTTP(*listen, *base)
	default:
		err = relay(os.Stdin, os.Stdout, *base)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

// relay answers each line of in on out, one at a time, until in ends.
func relay(in io.Reader, out io.Writer, base string) error {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriterSize(out, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			ans, err := call(base, line)
			if err != nil {
				return err
			}
			w.Write(ans)
			if ans[len(ans)-1] != '\n' {
				w.WriteByte('\n')
			}
			if err := w.Flush(); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// call sends one frame to the base and returns its whole answer: a relay
// must have all of it before passing it on, or a base that fails half-way
// would leave the client half a message.
func call(base string, frame []byte) ([]byte, error) {
	c, err := net.Dial("tcp", base)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if frame[len(frame)-1] != '\n' {
		frame = append(frame, '\n')
	}
	if _, err := c.Write(frame); err != nil {
		return nil, err
	}
	ans, err := io.ReadAll(c)
	if err == nil && len(ans) == 0 {
		err = errors.New("the base closed without answering")
	}
	return ans, err
}
