package githubtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
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
