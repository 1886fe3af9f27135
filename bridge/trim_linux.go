package bridge

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/rs/zerolog"
)

// unmapUntouched drops this process's mappings of its own binary's code
// and read-only data, so that only the pages used from then on are mapped
// again. Reading a page of a mapped file makes the kernel map the 64 KiB
// around it too (fault-around): the runtime and some 170 package
// initialisers, spread over the whole binary, leave most of it mapped,
// though a stdio bridge goes on to use a small part of it. The pages stay
// in the page cache (shared with every process running the binary); only
// this process's mappings go, and a page used again is mapped again from
// the page cache.
//
// Only mappings whose every page is still the file's own are dropped: a
// read-only mapping can hold pages the loader wrote (a position-independent
// build's relocated data, made read-only after: RELRO), and dropping those
// would map the file's unrelocated bytes back in their place. smaps says so
// per mapping (Private_Dirty, Anonymous); the writable data mapping is
// never touched.
func unmapUntouched(log zerolog.Logger) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return
	}
	defer f.Close()
	var dropped, kept uint64
	var cur struct {
		start, end uint64
		ours       bool
		dirty      bool
	}
	drop := func() {
		if !cur.ours {
			return
		}
		if cur.dirty {
			kept += cur.end - cur.start
			return
		}
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, uintptr(cur.start), uintptr(cur.end-cur.start), syscall.MADV_DONTNEED); e == 0 {
			dropped += cur.end - cur.start
		}
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if name, value, ok := strings.Cut(fields[0], ":"); ok && value == "" && len(fields) >= 2 && !strings.Contains(name, "-") {
			// A "Key: N kB" line of the mapping above.
			if name == "Anonymous" && fields[1] != "0" {
				cur.dirty = true
			}
			continue
		}
		// A mapping's header: "start-end perms offset dev inode path".
		drop()
		cur.ours, cur.dirty = false, false
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok || len(fields) < 6 || fields[5] != exe || (fields[1] != "r-xp" && fields[1] != "r--p") {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		cur.start, cur.end, cur.ours = start, end, true
	}
	drop()
	log.Debug().Uint64("dropped_kib", dropped/1024).Uint64("kept_kib", kept/1024).Msg("dropped the binary's clean mappings after the first answer")
}
