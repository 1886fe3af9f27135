//go:build !windows

package main

import "os"

// openLogFile opens the log file for appending, creating it readable and
// writable by this user only (0600): logs hold ids, methods, tool names
// and error messages.
func openLogFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
}
