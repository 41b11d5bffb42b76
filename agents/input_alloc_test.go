package agents

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

// TestReadInputCopies: reading a large input allocates it about twice (the blocks read, then
// the one string they are joined into), and a third time only for a string with escapes, which
// is decoded into a string of its own; never the four or more copies of a tee, a decoder's buffer
// and its growth. Not parallel: it counts every byte the process allocates.
func TestReadInputCopies(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		copies     float64
	}{
		{"plain", "0123456789abcdef", 2},
		{"escapes", `0123456789abcd\n`, 3},
	} {
		doc := largeInput(8<<20, tc.line)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		in, _, err := ReadInput(context.Background(), strings.NewReader(doc), 0)
		runtime.ReadMemStats(&after)
		if err != nil || !strings.HasPrefix(in.Args["content"].(string), "0123") {
			t.Fatalf("%s: %v", tc.name, err)
		}
		// A block's unused part, and the small things beside the input, are allowed for.
		allocated := after.TotalAlloc - before.TotalAlloc
		if limit := uint64(tc.copies*float64(len(doc))) + maxBlock + 64<<10; allocated > limit {
			t.Errorf("%s: reading %d bytes allocated %d bytes (%.1f copies), want at most %d", tc.name, len(doc), allocated, float64(allocated)/float64(len(doc)), limit)
		}
	}
}
