package verify

import (
	"os/exec"
)

// isTransientStart is startTransient; a test puts another rule here to
// drive the retries on a platform without Wine's failure.
var isTransientStart = startTransient

// startAttempts is how many times a process start that failed in Wine's
// own start-up is tried (see startTransient).
const startAttempts = 3

// startCmd starts the command newCmd makes, making a new one (with its
// pipes) when a start failed in a way startTransient says is the
// platform's and not the program's. An exec.Cmd cannot be started twice,
// and Start has already closed the pipes of one that failed, hence newCmd.
func startCmd(newCmd func() (*exec.Cmd, error)) (*exec.Cmd, error) {
	for attempt := 1; ; attempt++ {
		cmd, err := newCmd()
		if err != nil {
			return nil, err
		}
		err = cmd.Start()
		if err == nil {
			return cmd, nil
		}
		if attempt == startAttempts || !isTransientStart(err) {
			return nil, err
		}
	}
}
