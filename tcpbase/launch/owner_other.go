//go:build !unix

package launch

import "io/fs"

// mine: on Windows the lock and output files are in the user's own
// %LocalAppData% unless --cache-dir says otherwise, and who may write
// them is their folder's access list's business; only the regular-file
// check stands.
func mine(fs.FileInfo) error { return nil }
