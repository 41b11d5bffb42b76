package atomicfile

import (
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadAllAnySize: ReadAll returns the whole stream whatever size it starts with (the file's
// size as fstat saw it, which a file growing or shrinking meanwhile makes wrong).
func TestReadAllAnySize(t *testing.T) {
	t.Parallel()
	content := strings.Repeat("0123456789", 1000)
	for _, size := range []int{0, 1, 9999, 10000, 10001, 50000} {
		got, err := ReadAll(iotest.HalfReader(strings.NewReader(content)), int64(size))
		if err != nil || string(got) != content {
			t.Errorf("size %d: %d bytes, %v; want all %d", size, len(got), err, len(content))
		}
	}
}
