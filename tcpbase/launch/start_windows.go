//go:build windows

package launch

import (
	"errors"
	"os/exec"
	"syscall"

	"github.com/rs/zerolog"
	"golang.org/x/sys/windows"
)

// detachFlags: a process group of its own (a Ctrl-C or Ctrl-Break for the
// bridge's console group does not reach CAD), no console at all (a
// console program opens no console window; a GUI program such as acad.exe
// shows its own windows as usual), and out of the bridge's job object: a
// client that runs its servers in a job and kills the job when it quits
// (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE) would otherwise take CAD with it.
const detachFlags = windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS

// startDetached starts cmd detached. Breaking away from a job needs the
// job's leave (JOB_OBJECT_LIMIT_BREAKAWAY_OK); without it CreateProcess
// fails with ERROR_ACCESS_DENIED, and the program is started inside the
// job instead, with a warning.
func startDetached(cmd *exec.Cmd, log zerolog.Logger) (*exec.Cmd, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: detachFlags | windows.CREATE_BREAKAWAY_FROM_JOB}
	err := cmd.Start()
	if err == nil || !errors.Is(err, windows.ERROR_ACCESS_DENIED) || cmd.Process != nil {
		return cmd, err
	}
	retry := exec.Command(cmd.Path, cmd.Args[1:]...)
	retry.Stdin, retry.Stdout, retry.Stderr, retry.Env, retry.Dir = cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env, cmd.Dir
	retry.SysProcAttr = &syscall.SysProcAttr{CreationFlags: detachFlags}
	if err := retry.Start(); err != nil {
		return nil, err
	}
	log.Warn().Msg("the CAD program could not leave the job object mcp-bridge runs in (its client does not allow it): it may be closed when the client quits")
	return retry, nil
}

// alive reports whether a process with this id runs.
func alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_ACCESS_DENIED) // it exists, as someone else's
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return false
	}
	return code == 259 // STILL_ACTIVE
}
