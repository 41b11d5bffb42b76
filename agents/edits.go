package agents

import "strings"

// FilePaths are the string values of keys in a tool input (Claude Code's file_path,
// notebook_path), for a Host's EditedFiles.
func FilePaths(input map[string]any, keys ...string) []string {
	var out []string
	for _, k := range keys {
		if s, ok := input[k].(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// patchBegin starts the patch format of Codex's apply_patch.
const patchBegin = "*** Begin Patch"

// PatchFiles are the files a patch in Codex's apply_patch format changes, in order, each once:
// those it adds, updates and deletes, and the new name of a moved file. text may hold more than
// the patch (a shell command wrapping it in a heredoc); "" in, nothing out.
func PatchFiles(text string) []string {
	var files []string
	seen := map[string]bool{}
	in := false
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case strings.TrimSpace(line) == patchBegin:
			in = true
			continue
		case strings.TrimSpace(line) == "*** End Patch":
			in = false
			continue
		case !in:
			continue
		}
		for _, prefix := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if p, ok := strings.CutPrefix(line, prefix); ok {
				if p = strings.TrimSpace(p); p != "" && !seen[p] {
					seen[p] = true
					files = append(files, p)
				}
			}
		}
	}
	return files
}

// HasPatch reports whether text holds an apply_patch patch.
func HasPatch(text string) bool { return strings.Contains(text, patchBegin) }
