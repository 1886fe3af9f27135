//go:build unix

package launch

import (
	"errors"
	"os/exec"
	"syscall"

	"github.com/rs/zerolog"
)

// startDetached starts cmd in a session of its own (setsid): it is in
// neither the bridge's process group nor its session, so a Ctrl-C in the
// bridge's terminal, a client that kills the bridge's process group, or
// the terminal closing (SIGHUP) does not reach CAD. Its stdin is
// /dev/null and its output a file, never the client's pipes.
func startDetached(cmd *exec.Cmd, _ zerolog.Logger) (*exec.Cmd, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd, cmd.Start()
}

// alive reports whether a process with this id runs (signal 0 checks
// without sending anything; EPERM: it runs, as another user).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
