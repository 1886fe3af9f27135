//go:build !unix

package userfile

// SameOwner does nothing where files have no Unix owner: on Windows a new
// file inherits its folder's access rules.
func SameOwner(path, like string) {}
