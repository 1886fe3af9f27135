//go:build unix

package desktop

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, so that ending the
// dialog ends whatever it started and left running (a toolkit's helper, a
// wrapper script's background job): they hold the dialog's outputs.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// endGroup kills the dialog program and everything in its process group.
func endGroup(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill() // in case the group could not be made
}
