package runnertest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Cache emulates actions/cache with a store directory that outlives jobs, as GitHub's cache
// service does: at its step it restores the entry of the exact key, else the newest entry whose
// key begins with one of restore-keys (in their order), and outputs cache-hit ("true" only for the
// exact key); its post step saves the paths under the key when the job succeeded, the key had no
// entry, and every path exists. A path is restored to where it was saved from (by its position in
// path:).
func Cache(store string) Uses {
	return func(_ context.Context, call *UsesCall) (map[string]string, func(bool) error, error) {
		key := call.With["key"]
		if key == "" {
			return nil, nil, errors.New("actions/cache: key is required")
		}
		paths := lines(call.With["path"])
		if len(paths) == 0 {
			return nil, nil, errors.New("actions/cache: path is required")
		}
		hit := ""
		if _, err := os.Stat(entryDir(store, key)); err == nil {
			hit = key
		} else {
			for _, prefix := range lines(call.With["restore-keys"]) {
				if hit = newestWithPrefix(store, prefix); hit != "" {
					break
				}
			}
		}
		if hit != "" {
			for i, p := range paths {
				src := filepath.Join(entryDir(store, hit), strconv.Itoa(i))
				if _, err := os.Stat(src); err != nil {
					continue
				}
				if err := os.RemoveAll(p); err != nil {
					return nil, nil, err
				}
				if err := copyTree(src, p); err != nil {
					return nil, nil, fmt.Errorf("actions/cache: restore %s: %w", p, err)
				}
			}
		}
		exact := hit == key
		post := func(jobFailed bool) error {
			if jobFailed || exact {
				return nil
			}
			for _, p := range paths {
				if _, err := os.Stat(p); err != nil {
					return nil // the action warns and saves nothing
				}
			}
			tmp := entryDir(store, key) + ".saving"
			for i, p := range paths {
				if err := copyTree(p, filepath.Join(tmp, strconv.Itoa(i))); err != nil {
					return fmt.Errorf("actions/cache: save %s: %w", p, err)
				}
			}
			if err := os.WriteFile(filepath.Join(tmp, "key"), []byte(key+"\n"+strconv.FormatInt(time.Now().UnixNano(), 10)), 0o644); err != nil {
				return err
			}
			return os.Rename(tmp, entryDir(store, key))
		}
		return map[string]string{"cache-hit": strconv.FormatBool(exact), "cache-matched-key": hit}, post, nil
	}
}

var unsafeKey = regexp.MustCompile(`[^A-Za-z0-9._-]`)

func entryDir(store, key string) string {
	return filepath.Join(store, unsafeKey.ReplaceAllString(key, "_")+"-"+strconv.Itoa(len(key)))
}

// newestWithPrefix is the key of the newest entry whose key begins with prefix, or "".
func newestWithPrefix(store, prefix string) string {
	entries, _ := os.ReadDir(store)
	best, bestAt := "", int64(-1)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(store, e.Name(), "key"))
		if err != nil {
			continue
		}
		key, at, _ := strings.Cut(string(b), "\n")
		n, _ := strconv.ParseInt(at, 10, 64)
		if strings.HasPrefix(key, prefix) && n > bestAt {
			best, bestAt = key, n
		}
	}
	return best
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// copyTree copies the file or directory src to dst (copies, not links: a later job must not
// change what the store holds), leaving every copied directory writable.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil { // src itself a file or link
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return copyFile(p, target, info.Mode().Perm())
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// SetupGo emulates actions/setup-go with the Go toolchain installed in goroot: it requires
// go-version-file to exist and that toolchain to be at least its go directive, puts goroot/bin
// first on PATH and outputs go-version. Its cache must be off ("cache: false"): setup-go keys it
// on hashFiles(cache-dependency-path), which the runner evaluates inside the workspace only, so for
// an action used from another repository it never restores.
func SetupGo(goroot, goVersion string) Uses {
	return func(_ context.Context, call *UsesCall) (map[string]string, func(bool) error, error) {
		file := call.With["go-version-file"]
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, nil, fmt.Errorf("actions/setup-go: go-version-file: %w", err)
		}
		m := regexp.MustCompile(`(?m)^go (\S+)`).FindSubmatch(src)
		if m == nil {
			return nil, nil, fmt.Errorf("actions/setup-go: no go directive in %s", file)
		}
		if !versionAtLeast(strings.TrimPrefix(goVersion, "go"), string(m[1])) {
			return nil, nil, fmt.Errorf("actions/setup-go: %s wants go %s; the emulated toolchain is %s", file, m[1], goVersion)
		}
		if call.With["cache"] != "false" {
			return nil, nil, errors.New("actions/setup-go: cache is on; its key uses hashFiles(), which sees only the workspace (set cache: false and cache the action's own paths)")
		}
		call.AddPath(filepath.Join(goroot, "bin"))
		return map[string]string{"go-version": strings.TrimPrefix(goVersion, "go"), "cache-hit": "false"}, nil, nil
	}
}

// versionAtLeast compares dotted versions numerically (1.26.8 >= 1.26).
func versionAtLeast(have, want string) bool {
	h, w := strings.Split(have, "."), strings.Split(want, ".")
	for i := 0; i < len(w); i++ {
		var a, b int
		if i < len(h) {
			a, _ = strconv.Atoi(h[i])
		}
		b, _ = strconv.Atoi(w[i])
		if a != b {
			return a > b
		}
	}
	return true
}
