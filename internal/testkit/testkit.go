// Package testkit is what the tests of several packages share: a buffer that hooks and
// goroutines may write to at once, and a clock that moves on at every reading. Only tests import
// it.
package testkit

import (
	"bytes"
	"sync"
	"time"
)

// Buffer is a bytes.Buffer safe for concurrent writes (a hook's live output, a goroutine's
// warnings).
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Reset empties the buffer.
func (s *Buffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

// Clock advances by a second on every reading, from T, so that sessions created one after the
// other have distinct, ordered ids.
type Clock struct {
	mu sync.Mutex
	T  time.Time
}

// Now is the next second.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.T = c.T.Add(time.Second)
	return c.T
}
