//go:build !unix

package bridge

// openNoFollow: elsewhere the Lstat and SameFile checks in load stand alone.
const openNoFollow = 0
