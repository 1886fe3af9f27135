//go:build windows

package main

func ignoreSIGPIPE() {}
