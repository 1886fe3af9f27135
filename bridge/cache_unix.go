//go:build unix

package bridge

import "syscall"

// openNoFollow opens without following a link and without waiting for a
// FIFO's writer.
const openNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
