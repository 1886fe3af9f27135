//go:build !linux

package main

// unmapUntouched: only Linux maps pages around the one read and lets a
// process say otherwise (trim_linux.go).
func unmapUntouched() {}
