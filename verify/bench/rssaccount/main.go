// Command rssaccount says where a running process's resident memory is:
// its pages by kind (the binary's code, read-only data and data, anonymous
// memory), the binary's resident pages by ELF section, and its resident
// code by Go package. It reads /proc/PID/smaps, /proc/PID/pagemap and the
// binary's section headers and symbol table, so the binary must keep its
// symbols (a build without -s -w: the same layout in memory, since the
// symbols are in sections that are never loaded). `mcp-bridge bench
// --symbols` builds it from this file (embedded, standard library only,
// as the floor) and runs it on an idle bridge, so that debug/elf is not
// linked into the bridge.
//
//	rssaccount -pid PID BINARY
//
// prints JSON: the total in KiB and the account as text.
package main

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

func main() {
	pid := flag.Int("pid", 0, "the process")
	flag.Parse()
	if *pid == 0 || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: rssaccount -pid PID BINARY")
		os.Exit(2)
	}
	a, err := Account(*pid, flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "rssaccount:", err)
		os.Exit(1)
	}
	var text strings.Builder
	printAccount(&text, a)
	out, _ := json.Marshal(struct {
		TotalKiB int    `json:"total_kib"`
		Text     string `json:"text"`
	}{a.TotalKiB, text.String()})
	fmt.Println(string(out))
}

// RSSAccount is where a process's resident memory is.
type RSSAccount struct {
	Binary   string `json:"binary"`
	TotalKiB int    `json:"total_kib"`
	// Kinds are the process's resident pages by what they are.
	Kinds []Part `json:"kinds"`
	// Sections are the binary's resident pages by section.
	Sections []Part `json:"sections"`
	// Packages are the binary's resident code (.text) by package, the
	// largest first; the rest in one line.
	Packages []Part `json:"packages"`
}

// Part is one line of an account, in KiB, with the size it could have had
// (a section's or package's size in the binary) where that means something.
type Part struct {
	Name   string  `json:"name"`
	KiB    float64 `json:"kib"`
	OfKiB  float64 `json:"of_kib,omitempty"`
	Detail string  `json:"detail,omitempty"`
}

const pageSize = 4096

// mapping is one line of /proc/PID/smaps with the fields the account uses.
type mapping struct {
	start, end uint64
	perms      string
	path       string
	rss, anon  int // KiB
}

func readSmaps(pid int) ([]mapping, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ms []mapping
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if k, ok := strings.CutSuffix(fields[0], ":"); ok {
			if len(ms) == 0 || len(fields) < 2 {
				continue
			}
			v, _ := strconv.Atoi(fields[1])
			switch k {
			case "Rss":
				ms[len(ms)-1].rss = v
			case "Anonymous":
				ms[len(ms)-1].anon = v
			}
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok || len(fields) < 5 {
			continue
		}
		m := mapping{perms: fields[1]}
		if m.start, err = strconv.ParseUint(lo, 16, 64); err != nil {
			continue
		}
		if m.end, err = strconv.ParseUint(hi, 16, 64); err != nil {
			continue
		}
		if len(fields) >= 6 {
			m.path = strings.Join(fields[5:], " ")
		}
		ms = append(ms, m)
	}
	return ms, sc.Err()
}

// resident reports, for each page of [start, end), whether it is in the
// process's page tables (pagemap's bit 63).
func resident(pid int, start, end uint64) ([]bool, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/pagemap", pid))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n := (end - start) / pageSize
	buf := make([]byte, n*8)
	if _, err := f.ReadAt(buf, int64(start/pageSize*8)); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	present := make([]bool, n)
	for i := range present {
		present[i] = binary.LittleEndian.Uint64(buf[i*8:])&(1<<63) != 0
	}
	return present, nil
}

// residentSet is the binary's resident pages, by page address.
type residentSet map[uint64]bool

// overlap is how many bytes of [lo, hi) are on resident pages.
func (r residentSet) overlap(lo, hi uint64) float64 {
	var n uint64
	for p := lo &^ (pageSize - 1); p < hi; p += pageSize {
		if r[p] {
			n += min(hi, p+pageSize) - max(lo, p)
		}
	}
	return float64(n)
}

// Account measures the idle process pid, which runs binary (a build with
// its symbols).
func Account(pid int, binary string) (*RSSAccount, error) {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return nil, err
	}
	ms, err := readSmaps(pid)
	if err != nil {
		return nil, err
	}
	acc := &RSSAccount{Binary: filepath.Base(binary)}
	kinds := map[string]float64{}
	res := residentSet{}
	for i, m := range ms {
		acc.TotalKiB += m.rss
		switch {
		case m.path == "" && i > 0 && ms[i-1].path == exe && ms[i-1].end == m.start:
			// The zeroed data (.bss, .noptrbss) the kernel maps right
			// after the file's data: package-level variables.
			kinds["binary: zeroed data, .bss (anonymous)"] += float64(m.rss)
		case m.path == exe:
			name := map[string]string{"r-xp": "binary: code (r-x)", "r--p": "binary: read-only data (r--)", "rw-p": "binary: data, file pages (rw-)"}[m.perms]
			if name == "" {
				name = "binary: " + m.perms
			}
			kinds[name] += float64(m.rss - m.anon)
			if m.anon > 0 {
				kinds["binary: data written since start (anonymous)"] += float64(m.anon)
			}
			present, err := resident(pid, m.start, m.end)
			if err != nil {
				return nil, fmt.Errorf("pagemap: %w", err)
			}
			for i, p := range present {
				if p {
					res[m.start+uint64(i)*pageSize] = true
				}
			}
		case m.path == "[stack]":
			kinds["main thread's stack"] += float64(m.rss)
		case strings.HasPrefix(m.path, "["):
			kinds["kernel's pages ("+m.path+")"] += float64(m.rss)
		case m.path == "":
			kinds["anonymous mappings: heap, goroutine stacks, runtime"] += float64(m.rss)
		default:
			kinds["other files ("+filepath.Base(m.path)+")"] += float64(m.rss)
		}
	}
	for k, v := range kinds {
		acc.Kinds = append(acc.Kinds, Part{Name: k, KiB: v})
	}
	sortParts(acc.Kinds)

	f, err := elf.Open(binary)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Type == elf.SHT_NOBITS || s.Size == 0 {
			continue
		}
		if kib := res.overlap(s.Addr, s.Addr+s.Size) / 1024; kib > 0 {
			acc.Sections = append(acc.Sections, Part{Name: s.Name, KiB: kib, OfKiB: float64(s.Size) / 1024})
		}
	}
	sortParts(acc.Sections)

	syms, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("%s has no symbols (built with -s?): %w", binary, err)
	}
	text := f.Section(".text")
	if text == nil {
		return nil, errors.New(binary + " has no .text")
	}
	byPkg, sizes := map[string]float64{}, map[string]float64{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 || s.Value < text.Addr || s.Value >= text.Addr+text.Size {
			continue
		}
		pkg := symbolPackage(s.Name)
		byPkg[pkg] += res.overlap(s.Value, s.Value+s.Size) / 1024
		sizes[pkg] += float64(s.Size) / 1024
	}
	var pkgs []Part
	for p, kib := range byPkg {
		if kib > 0 {
			pkgs = append(pkgs, Part{Name: p, KiB: kib, OfKiB: sizes[p]})
		}
	}
	sortParts(pkgs)
	const top = 25
	if len(pkgs) > top {
		rest := Part{Name: fmt.Sprintf("%d other packages", len(pkgs)-top)}
		for _, p := range pkgs[top:] {
			rest.KiB += p.KiB
			rest.OfKiB += p.OfKiB
		}
		pkgs = append(pkgs[:top], rest)
	}
	acc.Packages = pkgs
	return acc, nil
}

func sortParts(ps []Part) {
	slices.SortFunc(ps, func(a, b Part) int {
		if a.KiB != b.KiB {
			if a.KiB > b.KiB {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// symbolPackage is the import path of the package a function symbol
// belongs to: "net/http" for "net/http.(*Client).Do", "slices" for
// "slices.Sort[go.shape.string]"; the runtime's assembly and the linker's
// own symbols go to "runtime".
func symbolPackage(name string) string {
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i] // type arguments may hold paths and dots
	}
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot < 0 {
		return "runtime"
	}
	pkg := name[:slash+1+dot]
	if strings.HasPrefix(pkg, "go:") || strings.HasPrefix(pkg, "type:") {
		return "runtime"
	}
	return pkg
}

// printAccount writes the account as three small tables.
func printAccount(w io.Writer, a *RSSAccount) {
	fmt.Fprintf(w, "idle RSS of %s (stdio, after initialize): %.1f MiB\n", a.Binary, float64(a.TotalKiB)/1024)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(p Part) {
		of := ""
		if p.OfKiB > 0 {
			of = fmt.Sprintf("of %.0f KiB", p.OfKiB)
		}
		fmt.Fprintf(tw, "  %.0f KiB\t%s\t  %s\n", p.KiB, of, p.Name)
	}
	fmt.Fprintln(w, "by kind of page:")
	for _, p := range a.Kinds {
		row(p)
	}
	tw.Flush()
	fmt.Fprintln(w, "the binary's resident pages by section:")
	for _, p := range a.Sections {
		row(p)
	}
	tw.Flush()
	fmt.Fprintln(w, "the binary's resident code (.text) by package:")
	for _, p := range a.Packages {
		row(p)
	}
	tw.Flush()
}
