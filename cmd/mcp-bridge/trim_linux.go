package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// unmapUntouched drops this process's mappings of its own binary's code
// and read-only data, so that only the pages used from then on are mapped
// again. Reading a page of a mapped file makes the kernel map the 64 KiB
// around it too (fault-around): the runtime and some 170 package
// initialisers, spread over the whole binary, leave most of it mapped,
// though a stdio bridge goes on to use a small part of it. The pages stay
// in the page cache (shared with every process running the binary); only
// this process's mappings go. Only the read-only mappings: the data
// mapping holds what the program wrote, which MADV_DONTNEED would lose.
func unmapUntouched() {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe || (fields[1] != "r-xp" && fields[1] != "r--p") {
			continue
		}
		lo, hi, _ := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), syscall.MADV_DONTNEED)
	}
}
