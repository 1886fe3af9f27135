//go:build !unix && !windows

package launch

import (
	"os/exec"

	"github.com/rs/zerolog"
)

// startDetached: these systems have no sessions or process groups to
// leave; stdin and output are still not the client's.
func startDetached(cmd *exec.Cmd, _ zerolog.Logger) (*exec.Cmd, error) { return cmd, cmd.Start() }

// alive: not known here; an earlier launch is not waited for.
func alive(int) bool { return false }
