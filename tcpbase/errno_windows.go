//go:build windows

package tcpbase

import (
	"errors"
	"syscall"
)

// Winsock reports its own error numbers, not the POSIX ones.
const (
	wsaECONNABORTED syscall.Errno = 10053
	wsaECONNRESET   syscall.Errno = 10054
	wsaECONNREFUSED syscall.Errno = 10061
)

func isRefused(err error) bool { return errors.Is(err, wsaECONNREFUSED) }

func isReset(err error) bool {
	return errors.Is(err, wsaECONNRESET) || errors.Is(err, wsaECONNABORTED) || errors.Is(err, syscall.EPIPE)
}
