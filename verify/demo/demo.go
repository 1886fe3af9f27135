// Package demo is `mcp-bridge demo`: a guided exchange between a client and
// the bridge, against the simulated base.
package demo

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
	"github.com/mcp-bridge/mcp-bridge/verify"
)

// Run shows the bridge working end to end: it starts a simulated CAD base
// on a free port, runs the bridge binary bin as a child process the way an
// MCP client does, and prints what goes across.
func Run(w io.Writer, bin string) error {
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Faults: true})
	if err != nil {
		return fmt.Errorf("starting the simulated base: %w", err)
	}
	defer sim.Close()
	addr := sim.Addr()
	port := addr[strings.LastIndexByte(addr, ':')+1:]

	fmt.Fprintf(w, "Simulated CAD base listening on %s.\n", addr)
	d, err := startBridge(w, bin, "--port", port)
	if err != nil {
		return err
	}
	s := d.s
	defer s.Close()

	all := d.tools()
	var names []string
	for _, name := range all {
		if !strings.HasPrefix(name, "fault_") && name != "sim_stats" {
			names = append(names, name)
		}
	}
	fmt.Fprintf(w, "← %d CAD tools (plus %d test-only fault tools of the simulator):\n", len(names), len(all)-len(names))
	d.names(names)

	d.heading("3. Drawing, and seeing the effect")
	d.call(3, "draw_rectangle", `{"corner1":{"x":0,"y":0},"corner2":{"x":40,"y":20}}`)
	d.call(4, "draw_circle", `{"center":{"x":20,"y":10},"radius":5}`)
	d.call(5, "get_drawing_info", `{}`)
	d.call(6, "undo", `{}`)
	d.call(7, "get_drawing_info", `{}`)
	d.call(8, "draw_circle", `{"center":{"x":20,"y":10},"radius":-1}`)

	d.heading("4. An unknown tool: the base's error passes through unchanged")
	d.call(9, "make_coffee", `{}`)

	d.heading("5. ping while CAD is busy with a 2 s call")
	d.send(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"fault_sleep","arguments":{"ms":2000}}}`)
	start := time.Now()
	d.send(`{"jsonrpc":"2.0","id":11,"method":"ping"}`)
	d.recvShow()
	fmt.Fprintf(w, "   ping answered after %.1f ms, while the call runs\n", float64(time.Since(start).Microseconds())/1000)
	d.recvShow()
	fmt.Fprintf(w, "   the call answered after %.1f s\n", time.Since(start).Seconds())

	d.heading("6. The CAD program closes (the base stops)")
	sim.Close()
	d.call(12, "get_drawing_info", `{}`)
	d.step("", `{"jsonrpc":"2.0","id":13,"method":"ping"}`)
	fmt.Fprintln(w, "   the bridge is still alive and answers")

	d.heading("7. The client quits (closes stdin)")
	start = time.Now()
	_ = s.CloseStdin()
	code, err := s.Wait(10 * time.Second)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "bridge exited with code %d, %.1f ms after stdin closed\n", code, float64(time.Since(start).Microseconds())/1000)
	if d.err != nil {
		return d.err
	}
	if bad := s.Impure(); bad != "" {
		return fmt.Errorf("stdout carried something that is not a protocol message: %s", bad)
	}
	fmt.Fprintln(w, "\nEvery byte the bridge wrote to stdout was a JSON-RPC message. Demo done.")
	if code != 0 {
		return fmt.Errorf("the bridge exited with code %d", code)
	}
	return nil
}

type demo struct {
	w   io.Writer
	s   *verify.Bridge
	err error
}

// startBridge starts the bridge binary bin with args the way an MCP client
// does, saying so on w, and shows the handshake (step 1).
func startBridge(w io.Writer, bin string, args ...string) (*demo, error) {
	fmt.Fprintf(w, "Starting the bridge as an MCP client would: %s %s\n", bin, strings.Join(args, " "))
	fmt.Fprintf(w, "(→ is what the client writes to the bridge's stdin, ← what comes back on stdout)\n")
	s, err := verify.Start(bin, append(args, "--log-level", "warn", "--no-cache"), verify.Options{})
	if err != nil {
		return nil, err
	}
	d := &demo{w: w, s: s}
	d.step("1. The handshake",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"demo","version":"1"}}}`)
	d.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(w, "   (a notification: no answer)")
	return d, nil
}

// tools shows step 2's tools/list and returns the names of the tools.
func (d *demo) tools() []string {
	d.heading("2. The tools the CAD base offers")
	d.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var list struct {
		Result struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"result"`
	}
	_ = json.Unmarshal([]byte(d.recv()), &list)
	var names []string
	for _, t := range list.Result.Tools {
		names = append(names, t.Name)
	}
	return names
}

// names prints tool names six to a line.
func (d *demo) names(names []string) {
	for i := 0; i < len(names); i += 6 {
		fmt.Fprintf(d.w, "     %s\n", strings.Join(names[i:min(i+6, len(names))], ", "))
	}
}

func (d *demo) heading(h string) { fmt.Fprintf(d.w, "\n%s\n", h) }

func (d *demo) step(heading, line string) {
	if heading != "" {
		d.heading(heading)
	}
	d.send(line)
	d.recvShow()
}

func (d *demo) call(id int, tool, args string) {
	d.send(verify.ToolCall(strconv.Itoa(id), tool, args))
	line := d.recv()
	var m struct {
		Result *struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal([]byte(line), &m)
	switch {
	case m.Error != nil:
		fmt.Fprintf(d.w, "← error %d: %s\n", m.Error.Code, m.Error.Message)
	case m.Result != nil && len(m.Result.Content) > 0:
		tag := ""
		if m.Result.IsError {
			tag = " (isError: the tool ran and refused)"
		}
		fmt.Fprintf(d.w, "← %s%s\n", m.Result.Content[0].Text, tag)
	default:
		fmt.Fprintf(d.w, "← %s\n", verify.Short(line))
	}
}

func (d *demo) send(line string) {
	fmt.Fprintf(d.w, "→ %s\n", verify.Short(line))
	if err := d.s.Send(line); err != nil && d.err == nil {
		d.err = err
	}
}

func (d *demo) recv() string {
	line, err := d.s.Recv(15 * time.Second)
	if err != nil && d.err == nil {
		d.err = err
	}
	return line
}

func (d *demo) recvShow() { fmt.Fprintf(d.w, "← %s\n", verify.Short(d.recv())) }
