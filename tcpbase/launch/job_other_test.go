//go:build !windows

package launch_test

// jobHelper: job objects are Windows'.
func jobHelper() {}
