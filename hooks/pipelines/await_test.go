package pipelines

import "testing"

func TestLoopTemplateBindsLoopVariablesOnly(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"${APPROVAL_API}/status/${SESSION}", "${APPROVAL_API}/status/{{sessionId}}"},
		{"/i/${ITERATION}/${LOOP_ITERATION}/${MAX_ITERATIONS}", "/i/{{iteration}}/{{iteration}}/{{maxIterations}}"},
		{"${LOOP_SESSION}-${ERROR}-${HOME}", "{{sessionId}}-{{error}}-${HOME}"},
		{"$SESSION stays", "$SESSION stays"},
	}
	for _, tc := range tests {
		if got := loopTemplate(tc.in); got != tc.want {
			t.Errorf("loopTemplate(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
