package githubtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// reMinimize is the minimizeComment mutation agent-hooks sends, the comment's node id in $id.
var reMinimize = regexp.MustCompile(`^\s*mutation\s*\(\s*\$id\s*:\s*ID!\s*\)\s*\{\s*minimizeComment\s*\(\s*input\s*:\s*\{\s*subjectId\s*:\s*\$id\s*,\s*classifier\s*:\s*(ABUSE|DUPLICATE|OFF_TOPIC|OUTDATED|RESOLVED|SPAM)\s*\}\s*\)\s*\{\s*minimizedComment\s*\{\s*isMinimized\s+minimizedReason\s*\}\s*\}\s*\}\s*$`)

// graphQLError is a GraphQL answer with one error of type kind at path minimizeComment: GitHub
// answers these 200, with the mutation's data null.
func graphQLError(kind, msg string) reply {
	return reply{status: http.StatusOK, body: map[string]any{
		"data":   map[string]any{"minimizeComment": nil},
		"errors": []any{map[string]any{"type": kind, "path": []any{"minimizeComment"}, "message": msg}},
	}}
}

// minimize hides the issue comment whose node id is variables["id"] with the classifier, as the
// minimizeComment mutation does; the token needs to be able to write issues or pull requests.
func (s *Server) minimize(classifier string, variables map[string]any) reply {
	id, _ := variables["id"].(string)
	var c *Comment
	for _, cm := range s.comments {
		if fmt.Sprintf("IC_%d", cm.ID) == id {
			c = cm
		}
	}
	switch {
	case c == nil:
		return graphQLError("NOT_FOUND", fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id))
	case !s.granted("pull_requests", "write") && !s.granted("issues", "write"):
		return graphQLError("FORBIDDEN", "Resource not accessible by integration")
	}
	c.Minimized = strings.ReplaceAll(strings.ToLower(classifier), "_", "-")
	var body map[string]any
	b, err := api.ReadFile("api/graphql.minimize-comment.json")
	if err == nil {
		err = json.Unmarshal(b, &body)
	}
	if err != nil {
		panic(err)
	}
	body["data"].(map[string]any)["minimizeComment"].(map[string]any)["minimizedComment"].(map[string]any)["minimizedReason"] = c.Minimized
	return reply{status: http.StatusOK, body: body}
}

// reCommentEdits is the query agent-hooks sends for what GitHub records of issue comments' edits,
// the comments' node ids in $ids.
var reCommentEdits = regexp.MustCompile(`^\s*query\s*\(\s*\$ids\s*:\s*\[\s*ID!\s*\]!\s*\)\s*\{\s*nodes\s*\(\s*ids\s*:\s*\$ids\s*\)\s*\{\s*\.\.\.\s*on\s+IssueComment\s*\{\s*id\s+databaseId\s+body\s+lastEditedAt\s+editor\s*\{\s*login\s*\}\s*userContentEdits\s*\(\s*first\s*:\s*1\s*\)\s*\{\s*totalCount\s*\}\s*\}\s*\}\s*\}\s*$`)

// commentEdits answers nodes(ids: $ids) { ... on IssueComment { … } } as GitHub does (schema:
// Comment.lastEditedAt "the moment the editor made the last edit", null until the comment is
// edited; editor "the actor who edited the comment"; userContentEdits "a list of edits to this
// content", which once the comment is edited also holds an entry for its creation,
// includesCreatedEdit): one node per id in order, null for an id that names no comment, with a
// NOT_FOUND error at its path. The token needs to be able to read issues or pull requests.
func (s *Server) commentEdits(variables map[string]any) reply {
	ids, _ := variables["ids"].([]any)
	if !s.granted("pull_requests", "read") && !s.granted("issues", "read") {
		nodes := make([]any, len(ids))
		return reply{status: http.StatusOK, body: map[string]any{
			"data":   map[string]any{"nodes": nodes},
			"errors": []any{map[string]any{"type": "FORBIDDEN", "path": []any{"nodes", 0}, "message": "Resource not accessible by integration"}},
		}}
	}
	nodes := []any{}
	var errs []any
	for i, v := range ids {
		id, _ := v.(string)
		var c *Comment
		for _, cm := range s.comments {
			if fmt.Sprintf("IC_%d", cm.ID) == id {
				c = cm
			}
		}
		if c == nil {
			nodes = append(nodes, nil)
			errs = append(errs, map[string]any{"type": "NOT_FOUND", "path": []any{"nodes", i},
				"message": fmt.Sprintf("Could not resolve to a node with the global id of '%s'.", id)})
			continue
		}
		node := map[string]any{"id": id, "databaseId": c.ID, "body": c.Body, "lastEditedAt": nil, "editor": nil,
			"userContentEdits": map[string]any{"totalCount": 0}}
		if n := len(c.Edits); n > 0 {
			last := c.Edits[n-1]
			node["lastEditedAt"] = last.At.UTC().Format(time.RFC3339)
			node["editor"] = map[string]any{"login": last.Editor}
			node["userContentEdits"] = map[string]any{"totalCount": n + 1}
		}
		nodes = append(nodes, node)
	}
	body := map[string]any{"data": map[string]any{"nodes": nodes}}
	if errs != nil {
		body["errors"] = errs
	}
	return reply{status: http.StatusOK, body: body}
}
