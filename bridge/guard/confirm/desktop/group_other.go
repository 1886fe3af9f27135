//go:build !unix

package desktop

import "os/exec"

// ownGroup does nothing where there are no process groups to kill at once
// (no dialog program runs on Windows: its message box is asked in-process).
func ownGroup(*exec.Cmd) {}

// endGroup kills the dialog program.
func endGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
