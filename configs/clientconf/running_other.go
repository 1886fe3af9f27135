//go:build !windows && !darwin

package clientconf

import (
	"os"
	"path/filepath"
)

// ProcessPaths are the program files of the processes running now that
// this user may see (/proc/PID/exe).
func ProcessPaths() ([]string, error) {
	exes, err := filepath.Glob("/proc/[0-9]*/exe")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range exes {
		if p, err := os.Readlink(e); err == nil {
			out = append(out, p)
		}
	}
	return out, nil
}
