//go:build darwin

package clientconf

import (
	"os/exec"
	"strings"
)

// ProcessPaths are the program files of the processes running now, as ps
// names them (an application's full path).
func ProcessPaths() ([]string, error) {
	out, err := exec.Command("/bin/ps", "-axo", "comm=").Output()
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			paths = append(paths, l)
		}
	}
	return paths, nil
}
