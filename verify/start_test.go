package verify

import (
	"errors"
	"os/exec"
	"testing"
)

// TestStartRetriesOnlyTheTransient drives startCmd with a start error of
// its own counted as transient (a real one, Wine's ERROR_INTERNAL_ERROR,
// cannot be made to happen): it takes a start that fails that way twice,
// gives up on the third failure, and never tries again after any other
// error. exec.Cmd's Err is what Start returns before starting anything.
func TestStartRetriesOnlyTheTransient(t *testing.T) {
	errWine := errors.New("Internal error.")
	errOther := errors.New("Access is denied.")
	defer func(f func(error) bool) { isTransientStart = f }(isTransientStart)
	isTransientStart = func(err error) bool { return errors.Is(err, errWine) }

	for _, c := range []struct {
		name      string
		fail      error // what the starts before the last good one fail with
		failures  int   // how many of them
		wantTries int
		wantErr   error
	}{
		{"started at once", nil, 0, 1, nil},
		{"two transient failures, then started", errWine, 2, 3, nil},
		{"three transient failures: given up", errWine, 3, 3, errWine},
		{"another error: not tried again", errOther, 1, 1, errOther},
	} {
		t.Run(c.name, func(t *testing.T) {
			tries := 0
			cmd, err := startCmd(func() (*exec.Cmd, error) {
				tries++
				cmd := exec.Command(bridgeBin, "--version")
				if tries <= c.failures {
					cmd.Err = c.fail
				}
				return cmd, nil
			})
			if !errors.Is(err, c.wantErr) || (err == nil) != (c.wantErr == nil) || tries != c.wantTries {
				t.Fatalf("err %v after %d tries; want %v after %d", err, tries, c.wantErr, c.wantTries)
			}
			if cmd != nil {
				if err := cmd.Wait(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
