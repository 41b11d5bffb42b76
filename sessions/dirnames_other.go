//go:build !linux

package sessions

import (
	"errors"
	"io"
	"os"
)

// readNames calls fn with the name of every entry of dir, in the order the system lists them,
// reading them in batches.
func readNames(dir string, fn func(name []byte)) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	for {
		names, err := d.Readdirnames(4096)
		for _, name := range names {
			fn([]byte(name))
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
