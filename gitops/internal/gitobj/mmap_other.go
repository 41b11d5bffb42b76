//go:build !(linux || darwin || freebsd)

package gitobj

import "os"

// mapFile reads the file path into memory.
func mapFile(path string) ([]byte, func() error, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return nil }, nil
}
