package verify

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// StartSim runs `bin sim --port 0 --faults`, the simulated base with its
// fault tools in a process of its own, and returns its address.
func StartSim(bin string) (*exec.Cmd, string, error) {
	var out io.ReadCloser
	cmd, err := startCmd(func() (*exec.Cmd, error) {
		cmd := exec.Command(bin, "sim", "--port", "0", "--faults")
		var err error
		out, err = cmd.StdoutPipe()
		return cmd, err
	})
	if err != nil {
		return nil, "", err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on ") {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, "", fmt.Errorf("simulated base did not start: %q %v", line, err)
	}
	return cmd, strings.TrimSpace(strings.TrimPrefix(line, "listening on ")), nil
}

// ProcStatus reads a kB figure such as VmHWM from /proc/<pid>/status.
func ProcStatus(pid int, key string) (float64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return f, err == nil
		}
	}
	return 0, false
}
