package httpx

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

const secretURL = "http://127.0.0.1:1/services/T000/B000/XXXXsecretTOKENxxxx"

// TestRedactKeepsCause: an error of net/http quoting a secret URL loses the URL, keeps its cause.
func TestRedactKeepsCause(t *testing.T) {
	t.Parallel()
	_, err := http.Get(secretURL) //nolint:noctx // port 1 refuses at once
	if err == nil {
		t.Skip("something listens on 127.0.0.1:1")
	}
	red := Redact(err, secretURL)
	if strings.Contains(red.Error(), "secretTOKEN") {
		t.Errorf("redacted error shows the URL: %v", red)
	}
	var op *net.OpError
	if !strings.Contains(red.Error(), RedactedURL) || !errors.As(red, &op) {
		t.Errorf("redacted error %q lost its cause", red)
	}
	// Any other error: the URL, and its path on its own, are replaced.
	plain := errors.New("GET " + secretURL + " failed; server said: services/T000/B000/XXXXsecretTOKENxxxx not found")
	if got := Redact(plain, secretURL).Error(); strings.Contains(got, "secretTOKEN") {
		t.Errorf("Redact = %q", got)
	}
	if Redact(nil, secretURL) != nil {
		t.Error("Redact(nil) is not nil")
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		header string
		want   time.Duration
		ok     bool
	}{
		{"", 0, false},
		{"7", 7 * time.Second, true},
		{" 0 ", 0, true},
		{"-3", 0, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"soon", 0, false},
	} {
		h := http.Header{}
		if tc.header != "" {
			h.Set("Retry-After", tc.header)
		}
		if got, ok := RetryAfter(h, now); got != tc.want || ok != tc.ok {
			t.Errorf("Retry-After %q: %v %v, want %v %v", tc.header, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSleepStopsOnCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	if err := Sleep(ctx, 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
	if err := Sleep(ctx, time.Millisecond); err != nil {
		t.Errorf("Sleep(1ms) = %v", err)
	}
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a cancelled context = %v", err)
	}
	if err := Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(0) on a cancelled context = %v", err)
	}
}
