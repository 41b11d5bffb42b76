// Package httpurl checks a URL that may be a secret (a webhook's, a poll's) without ever quoting
// it. It links no HTTP client: the configuration loaders of the program run on every tool call
// use it.
package httpurl

import (
	"errors"
	"net/url"
)

// Check reports whether rawURL is an absolute http(s) URL, without ever quoting it.
func Check(rawURL string) error {
	if rawURL == "" {
		return errors.New("empty URL")
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return errors.New("not a valid URL (not shown: it is a secret)")
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return errors.New("must be an absolute http:// or https:// URL (not shown: it is a secret)")
	}
	return nil
}
