package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v60/github"
)

// graphQL runs one GraphQL query or mutation and decodes its data into out. GraphQL lives at
// /graphql beside the REST root, or at /api/graphql on GitHub Enterprise Server (REST at
// /api/v3). GitHub answers GraphQL's errors with status 200 and an errors list: the first one is
// the error, its type (FORBIDDEN, NOT_FOUND, …) in front.
func (c *Client) graphQL(ctx context.Context, what, query string, variables map[string]any, out any) error {
	endpoint := "graphql"
	if strings.HasSuffix(c.gh.BaseURL.Path, "/api/v3/") {
		endpoint = "../graphql"
	}
	var resp struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	body := map[string]any{"query": query}
	if variables != nil {
		body["variables"] = variables
	}
	err := c.call(ctx, what, func() (*gh.Response, error) {
		req, err := c.gh.NewRequest(http.MethodPost, endpoint, body)
		if err != nil {
			return nil, err
		}
		return c.gh.Do(ctx, req, &resp)
	})
	switch {
	case err != nil:
		return err
	case len(resp.Errors) > 0:
		e := resp.Errors[0]
		msg := oneLine(e.Message)
		if e.Type != "" {
			msg = e.Type + ": " + msg
		}
		return fmt.Errorf("%s: GraphQL: %s", what, msg)
	}
	if err := json.Unmarshal(resp.Data, out); err != nil {
		return fmt.Errorf("%s: GraphQL answered %s: %w", what, oneLine(string(resp.Data)), err)
	}
	return nil
}

// MinimizeComment hides a comment (by its node id) as outdated, as "Hide → Outdated" does on
// github.com (GraphQL minimizeComment, classifier OUTDATED). The token needs to be able to
// write the pull request's comments (pull-requests: write or issues: write).
func (c *Client) MinimizeComment(ctx context.Context, nodeID string) error {
	var out struct {
		MinimizeComment struct {
			MinimizedComment struct {
				IsMinimized bool `json:"isMinimized"`
			} `json:"minimizedComment"`
		} `json:"minimizeComment"`
	}
	const mutation = `mutation($id: ID!) { minimizeComment(input: {subjectId: $id, classifier: OUTDATED}) { minimizedComment { isMinimized minimizedReason } } }`
	what := "hide the comment " + nodeID + " as outdated"
	if err := c.graphQL(ctx, what, mutation, map[string]any{"id": nodeID}, &out); err != nil {
		return err
	}
	if !out.MinimizeComment.MinimizedComment.IsMinimized {
		return fmt.Errorf("%s: GitHub did not hide it", what)
	}
	return nil
}
