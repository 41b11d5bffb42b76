package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// graphQL runs one GraphQL query or mutation and decodes its data into out. GraphQL lives at
// /graphql beside the REST root, or at /api/graphql on GitHub Enterprise Server (REST at
// /api/v3). GitHub answers GraphQL's errors with status 200 and an errors list: the first one is
// the error, its type (FORBIDDEN, NOT_FOUND, …) in front.
func (c *Client) graphQL(ctx context.Context, what, query string, variables map[string]any, out any) error {
	errs, err := c.graphQLPartial(ctx, what, query, variables, out)
	if err == nil && len(errs) > 0 {
		err = errs[0].err(what)
	}
	return err
}

// graphQLError is one error of a GraphQL answer: its type (FORBIDDEN, NOT_FOUND, …), message and
// the path of the field it is about.
type graphQLError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Path    []any  `json:"path"`
}

func (e graphQLError) err(what string) error {
	msg := oneLine(e.Message)
	if e.Type != "" {
		msg = e.Type + ": " + msg
	}
	return fmt.Errorf("%s: GraphQL: %s", what, msg)
}

// graphQLPartial is graphQL for a query whose answer may hold data beside errors about some of
// its fields (a node that does not resolve): it decodes the data and returns the errors.
func (c *Client) graphQLPartial(ctx context.Context, what, query string, variables map[string]any, out any) ([]graphQLError, error) {
	endpoint := "graphql"
	if strings.HasSuffix(c.gh.BaseURL.Path, "/api/v3/") {
		endpoint = "../graphql"
	}
	var resp struct {
		Data   json.RawMessage `json:"data"`
		Errors []graphQLError  `json:"errors"`
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
		return nil, err
	case len(resp.Errors) > 0 && (len(resp.Data) == 0 || string(resp.Data) == "null"):
		return nil, resp.Errors[0].err(what)
	}
	if err := json.Unmarshal(resp.Data, out); err != nil {
		return nil, fmt.Errorf("%s: GraphQL answered %s: %w", what, oneLine(string(resp.Data)), err)
	}
	return resp.Errors, nil
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

// CommentEdits is what GitHub records of an issue comment's edits (GraphQL IssueComment).
type CommentEdits struct {
	ID   int64  // databaseId: the REST id
	Body string // the body now
	// LastEditedAt is "the moment the editor made the last edit": zero while the comment was never
	// edited. Unlike updated_at it moves only when the body is edited.
	LastEditedAt time.Time
	Editor       string // who made the last edit ("" when never edited, or a deleted account)
	Edits        int    // userContentEdits' totalCount: the edit history's entries (0: never edited)
}

// GetBody is the body GitHub records, "" for a comment that is gone (nil).
func (e *CommentEdits) GetBody() string {
	if e == nil {
		return ""
	}
	return e.Body
}

// Edited reports whether the comment was ever edited after it was posted, by anyone.
func (e *CommentEdits) Edited() bool { return !e.LastEditedAt.IsZero() || e.Edits > 0 }

// commentEditsQuery asks, for issue comments by node id, their body and their edits. Anyone with
// read access sees a comment's edit history; revisions deleted from it still count in it.
const commentEditsQuery = `query($ids: [ID!]!) { nodes(ids: $ids) { ... on IssueComment { id databaseId body lastEditedAt editor { login } userContentEdits(first: 1) { totalCount } } } }`

// maxNodes is the most ids GraphQL's nodes takes at once.
const maxNodes = 100

// CommentEdits reads what GitHub records of the edits of the issue comments with the given node
// ids, by node id; a comment that no longer exists (deleted) is missing from the map. REST's
// updated_at cannot tell an edit (GitHub may move it just after a comment is posted): GraphQL's
// lastEditedAt and edit history can.
func (c *Client) CommentEdits(ctx context.Context, nodeIDs []string) (map[string]*CommentEdits, error) {
	out := map[string]*CommentEdits{}
	for len(nodeIDs) > 0 {
		batch := nodeIDs[:min(len(nodeIDs), maxNodes)]
		nodeIDs = nodeIDs[len(batch):]
		var data struct {
			Nodes []*struct {
				ID           string     `json:"id"`
				DatabaseID   int64      `json:"databaseId"`
				Body         string     `json:"body"`
				LastEditedAt *time.Time `json:"lastEditedAt"`
				Editor       *struct {
					Login string `json:"login"`
				} `json:"editor"`
				UserContentEdits *struct {
					TotalCount int `json:"totalCount"`
				} `json:"userContentEdits"`
			} `json:"nodes"`
		}
		what := fmt.Sprintf("read the edits of %d comment(s)", len(batch))
		errs, err := c.graphQLPartial(ctx, what, commentEditsQuery, map[string]any{"ids": batch}, &data)
		if err != nil {
			return nil, err
		}
		for _, e := range errs {
			// A comment deleted since it was listed does not resolve; any other error leaves
			// the comments' edits unknown.
			if e.Type != "NOT_FOUND" || len(e.Path) != 2 || e.Path[0] != "nodes" {
				return nil, e.err(what)
			}
		}
		if len(data.Nodes) != len(batch) {
			return nil, fmt.Errorf("%s: GraphQL answered %d nodes for %d ids", what, len(data.Nodes), len(batch))
		}
		for i, n := range data.Nodes {
			if n == nil {
				continue
			}
			if n.ID != batch[i] {
				return nil, fmt.Errorf("%s: GraphQL answered node %q for %q", what, n.ID, batch[i])
			}
			e := &CommentEdits{ID: n.DatabaseID, Body: n.Body}
			if n.LastEditedAt != nil {
				e.LastEditedAt = *n.LastEditedAt
			}
			if n.Editor != nil {
				e.Editor = n.Editor.Login
			}
			if n.UserContentEdits != nil {
				e.Edits = n.UserContentEdits.TotalCount
			}
			out[batch[i]] = e
		}
	}
	return out, nil
}
