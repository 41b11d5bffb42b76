package cli

import (
	"errors"
	"os"
	"os/exec"
	"strings"
)

// run runs the program at path as a child with this process's stdio (Windows has no exec) and
// returns its exit code. With replay, its stdin is stdin: what this process read of its own.
func run(path string, argv, env []string, stdin string, replay bool) (int, error) {
	cmd := exec.Command(path, argv[1:]...)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, os.Stdin, os.Stdout, os.Stderr
	if replay {
		cmd.Stdin = strings.NewReader(stdin)
	}
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	if err != nil {
		return 0, err
	}
	return 0, nil
}
