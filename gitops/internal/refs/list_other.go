//go:build !unix

package refs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// walkLoose calls fn with the name (prefix and the path below dir) and content of every loose
// ref below dir. A folder or file removed meanwhile (a ref deleted or packed) is passed over.
func walkLoose(dir, prefix string, fn func(name string, content []byte)) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if skipLoose(name) {
			continue
		}
		if e.IsDir() {
			if err := walkLoose(filepath.Join(dir, name), prefix+name+"/", fn); err != nil {
				return err
			}
			continue
		}
		content, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		fn(prefix+name, content)
	}
	return nil
}
