package connect

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// errEventTooLarge: an SSE event over the message limit.
var errEventTooLarge = errors.New("an event of the remote's stream is over the message limit")

// readSSE reads a text/event-stream and calls fn with each event's data
// (its data: lines joined by "\n"), until fn returns false, the stream
// ends (nil), or it fails. Comments, event names, ids and retry hints are
// skipped: the messages are all the relay needs. No event may exceed max
// bytes.
func readSSE(body io.Reader, max int, fn func(data []byte) bool) error {
	br := bufio.NewReaderSize(body, 64<<10)
	var data []byte
	has := false
	for {
		line, err := readLine(br, max)
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if len(line) == 0 {
			if has && !fn(data) {
				return nil
			}
			data, has = data[:0], false
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if string(field) != "data" {
			continue
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if has {
			data = append(data, '\n')
		}
		if len(data)+len(value) > max {
			return errEventTooLarge
		}
		data = append(data, value...)
		has = true
	}
}

// readLine reads one line of at most max bytes, without its "\n" or
// "\r\n" end. A lone "\r", which the event-stream format also allows as a
// line end, is not taken for one: no MCP server is known to send it.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > max+2 {
			return nil, errEventTooLarge
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF && len(line) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}
