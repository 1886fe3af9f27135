package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/mcp-bridge/mcp-bridge/configs/userfile"
)

// tailChunk is how much Tail reads at a time, from the end back.
const tailChunk = 64 << 10

// Tail returns the journal's last n lines, oldest first, as Each would
// give them but without reading what comes before: it reads the newest
// file from its end back, and older ones only while it has fewer than n,
// so a page that shows the last lines every few seconds costs little
// however long the journal is. It reads at most n×(MaxEntry+1) bytes plus
// one chunk: a file whose lines are longer than any entry (not written by
// a bridge) gives fewer lines, never a longer read. A last line of the
// journal without its line feed is being written and is left out. Line.N
// is 0: counting lines from the start is what Tail avoids. Files are
// opened as Each opens them (no link followed, regular files only), and a
// rotated file that is not one is skipped and named in the error.
func Tail(path string, n int) ([]Line, error) {
	if n <= 0 {
		return nil, nil
	}
	files := Files(path)
	if len(files) == 0 {
		return nil, fmt.Errorf("journal %s: no such file", path)
	}
	budget := int64(n)*(MaxEntry+1) + tailChunk
	var out []Line // newest first while collecting
	var skipped []error
	for i := len(files) - 1; i >= 0 && len(out) < n && budget > 0; i-- {
		name := files[i]
		lines, used, err := tailFile(name, n-len(out), budget, name == path)
		budget -= used
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // rotated away meanwhile
		case errors.Is(err, userfile.ErrNotRegular) && name != path:
			skipped = append(skipped, err)
			continue
		case err != nil:
			return nil, err
		}
		for j := len(lines) - 1; j >= 0; j-- {
			out = append(out, lines[j])
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, errors.Join(skipped...)
}

// tailFile returns up to want last lines of one file, oldest first, and
// the bytes it read. current: the journal itself, whose unterminated last
// line is still being written.
func tailFile(name string, want int, budget int64, current bool) ([]Line, int64, error) {
	f, err := userfile.Open(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	end := st.Size()
	start := end
	var chunks [][]byte // newest first
	feeds := 0
	// Read back until what was read holds want+1 line feeds (a whole
	// first line), the file's start, or the budget's end.
	for start > 0 && feeds <= want && end-start < budget {
		size := min(tailChunk, start, budget-(end-start))
		start -= size
		chunk := make([]byte, size)
		if _, err := f.ReadAt(chunk, start); err != nil && err != io.EOF {
			return nil, end - start, fmt.Errorf("%s: %w", name, err)
		}
		feeds += bytes.Count(chunk, []byte{'\n'})
		chunks = append(chunks, chunk)
	}
	used := end - start
	data := make([]byte, 0, used)
	for i := len(chunks) - 1; i >= 0; i-- {
		data = append(data, chunks[i]...)
	}
	if current {
		if i := bytes.LastIndexByte(data, '\n'); i < 0 {
			data = nil
		} else {
			data = data[:i+1]
		}
	}
	data = bytes.TrimSuffix(data, []byte{'\n'})
	parts := bytes.Split(data, []byte{'\n'})
	if start > 0 && len(parts) > 0 {
		parts = parts[1:] // the first is the end of a line begun before what was read
	}
	if len(data) == 0 {
		parts = nil
	}
	if len(parts) > want {
		parts = parts[len(parts)-want:]
	}
	lines := make([]Line, 0, len(parts))
	for _, p := range parts {
		l := Line{Text: p, File: name}
		var e Entry
		if json.Unmarshal(p, &e) == nil {
			l.Entry = &e
		}
		lines = append(lines, l)
	}
	return lines, used, nil
}
