//go:build !windows

package verify

// startTransient: elsewhere a failed start is the program's, or the
// machine's, and says so at once.
func startTransient(error) bool { return false }
