package gitcmd

import "testing"

// typicalCommands are Bash tool calls as coding agents write them: most run no git at all.
var typicalCommands = []string{
	`cd /repo && go test ./... 2>&1 | tail -20`,
	`git add -A && git commit -m "fix: handle empty input" && git push origin HEAD`,
	`grep -rn "TODO" --include=*.go . | head -50`,
	`npm run build && npm test -- --coverage`,
	`git status --short && git diff --stat`,
	`for f in $(ls *.txt); do wc -l "$f"; done`,
}

// BenchmarkScan reads typical Bash tool calls, as every PreToolUse of a shell tool does.
func BenchmarkScan(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range typicalCommands {
			Scan(c)
		}
	}
}
