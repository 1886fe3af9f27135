//go:build !windows

package userfile

import "os"

// OpenPrivate opens path for appending, creating it readable and
// writable by this user only (0600): a log file, whose lines hold ids,
// methods, tool names and error messages.
func OpenPrivate(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
}
