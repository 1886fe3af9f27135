package bench

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

// The marks around the part of docs/performance.md that `make bench`
// writes: the figures are never typed by hand, the text around them is.
const (
	docBegin = "<!-- make bench writes from here to the end mark: edit the text around it, not this -->"
	docEnd   = "<!-- end of what make bench writes -->"
)

// WriteDoc puts the report between the marks in the markdown file at path,
// and leaves every other byte of it as it was.
func WriteDoc(path string, rep *Report) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var table strings.Builder
	Print(&table, rep)
	block := fmt.Sprintf("Written by `make bench` on %s: %d CPUs (%s), %s, %s; the bridge %s. The floor relay was built and measured in the same run, in turns with the bridge; every figure is the median of %d rounds.\n\n```text\n%s```\n",
		rep.Date, rep.CPUs, orUnknown(rep.CPUModel), rep.OS, rep.GoVersion, orUnknown(rep.Bridge), rep.Rounds, table.String())
	out, err := replaceBlock(doc, block)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, out, 0o644)
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// replaceBlock is doc with what stands between its begin and end marks
// (each alone on a line, once) replaced by block.
func replaceBlock(doc []byte, block string) ([]byte, error) {
	begin := []byte(docBegin + "\n")
	end := []byte("\n" + docEnd)
	i, j := bytes.Index(doc, begin), bytes.Index(doc, end)
	if i < 0 || j < i || bytes.Count(doc, begin) != 1 || bytes.Count(doc, end) != 1 {
		return nil, fmt.Errorf("want the marks %q and %q once each, in that order, each on a line of its own", docBegin, docEnd)
	}
	var out bytes.Buffer
	out.Write(doc[:i+len(begin)])
	out.WriteString("\n" + strings.TrimRight(block, "\n") + "\n")
	out.Write(doc[j:])
	return out.Bytes(), nil
}
