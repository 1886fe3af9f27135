// Command floor is the least any relay between an MCP client and the base
// must do, and nothing more: the floor `mcp-bridge bench` measures the
// bridge against. For each line read it dials the base, writes the line,
// copies the answer back and ends it with a newline; over HTTP (-listen),
// the same for each POST body. It parses nothing, answers no protocol
// itself and serves one message at a time. Standard library only, so that
// the bench can build it from this one file (it is embedded in the bench)
// with the same flags as the bridge. http.go adds -listen; the bench
// builds the stdio floor without it, so that it links no net/http.
package main

import (
	"bufio"
	"bytes"
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
			if err := call(w, base, line); err != nil {
				return err
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

// call sends one frame to the base and copies its answer to w, ending it
// with a newline.
func call(w io.Writer, base string, frame []byte) error {
	c, err := net.Dial("tcp", base)
	if err != nil {
		return err
	}
	defer c.Close()
	if len(frame) == 0 || frame[len(frame)-1] != '\n' {
		frame = append(frame, '\n')
	}
	if _, err := c.Write(frame); err != nil {
		return err
	}
	end := &lastByte{w: w}
	if _, err := io.Copy(end, c); err != nil {
		return err
	}
	if end.last != '\n' {
		_, err = w.Write([]byte{'\n'})
	}
	return err
}

// lastByte remembers the last byte written through it.
type lastByte struct {
	w    io.Writer
	last byte
}

func (l *lastByte) Write(p []byte) (int, error) {
	if len(p) > 0 {
		l.last = p[len(p)-1]
	}
	return l.w.Write(p)
}
