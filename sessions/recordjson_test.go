package sessions

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/internal/jsonpos"
)

// The reference decoders are what agent-hooks read records with before decodeSession:
// encoding/json into the fields, and again into a map for the keys the fields do not take.

type refMetadata struct {
	GitBranch     string `json:"gitBranch,omitempty"`
	GitCommit     string `json:"gitCommit,omitempty"`
	TotalDuration int64  `json:"totalDuration,omitempty"`

	extra map[string]json.RawMessage
}

func (m *refMetadata) UnmarshalJSON(b []byte) error {
	type plain refMetadata
	var f plain
	extra, err := refUnmarshalWithExtra(b, &f, reflect.TypeFor[plain]())
	if err != nil {
		return err
	}
	*m = refMetadata(f)
	m.extra = extra
	return nil
}

// refSessionType is Session's exported fields, with refMetadata for Metadata.
var refSessionType = sync.OnceValue(func() reflect.Type {
	var fields []reflect.StructField
	for f := range reflect.TypeFor[Session]().Fields() {
		if !f.IsExported() {
			continue
		}
		if f.Type == reflect.TypeFor[Metadata]() {
			f.Type = reflect.TypeFor[refMetadata]()
		}
		fields = append(fields, f)
	}
	return reflect.StructOf(fields)
})

// refUnmarshalWithExtra is the former unmarshalWithExtra: the keys of b that are no exported
// field's JSON name are returned.
func refUnmarshalWithExtra(b []byte, v any, t reflect.Type) (map[string]json.RawMessage, error) {
	if err := json.Unmarshal(b, v); err != nil {
		return nil, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		delete(all, name)
	}
	if len(all) == 0 {
		return nil, nil
	}
	return all, nil
}

// refDecode reads a record as json.Unmarshal into a Session did: the input is checked whole,
// then a null leaves the session empty and anything else goes through refUnmarshalWithExtra.
func refDecode(b []byte) (fields reflect.Value, extra map[string]json.RawMessage, err error) {
	fields = reflect.New(refSessionType())
	if !json.Valid(b) {
		return fields, nil, errInvalid
	}
	extra, err = refUnmarshalWithExtra(b, fields.Interface(), refSessionType())
	return fields, extra, err
}

var errInvalid = &json.SyntaxError{}

// sameAsReference reports how decodeSession's reading of b differs from the reference's.
func sameAsReference(t *testing.T, b []byte) {
	t.Helper()
	ref, refExtra, refErr := refDecode(b)
	var got Session
	doc, err := jsonpos.Parse(b)
	if err == nil {
		err = decodeSession(doc, doc.Root, &got)
	}
	if (err != nil) != (refErr != nil) {
		t.Fatalf("%q: error %v, encoding/json's %v", b, err, refErr)
	}
	if err != nil {
		return
	}
	gv := reflect.ValueOf(got)
	for i := range ref.Elem().NumField() {
		name := refSessionType().Field(i).Name
		want, have := ref.Elem().Field(i).Interface(), gv.FieldByName(name).Interface()
		if m, ok := want.(refMetadata); ok {
			gm := have.(Metadata)
			want = []any{m.GitBranch, m.GitCommit, m.TotalDuration, m.extra}
			have = []any{gm.GitBranch, gm.GitCommit, gm.TotalDuration, gm.extra}
		}
		if !reflect.DeepEqual(have, want) {
			t.Errorf("%q: %s = %#v, encoding/json's %#v", b, name, have, want)
		}
	}
	if !reflect.DeepEqual(got.extra, refExtra) {
		t.Errorf("%q: extra keys %v, encoding/json's %v", b, got.extra, refExtra)
	}
}

// sameHeadAsReference compares decodeRecordHead with Store.recordHead's former json.Unmarshal.
func sameHeadAsReference(t *testing.T, b []byte) {
	t.Helper()
	var ref struct {
		AuditHead *AuditHead `json:"auditHead"`
	}
	refErr := json.Unmarshal(b, &ref)
	var got *AuditHead
	doc, err := jsonpos.Parse(b)
	if err == nil {
		err = decodeRecordHead(doc, doc.Root, &got)
	}
	if (err != nil) != (refErr != nil) {
		t.Fatalf("%q: head error %v, encoding/json's %v", b, err, refErr)
	}
	if err == nil && !reflect.DeepEqual(got, ref.AuditHead) {
		t.Errorf("%q: head %+v, encoding/json's %+v", b, got, ref.AuditHead)
	}
}

// recordSeeds are records as agent-hooks writes them, and the corners of encoding/json's
// decoding that decodeSession keeps.
func recordSeeds(t testing.TB) [][]byte {
	n := 4
	full := Session{
		ID: "session-1-a", StartTime: time.Unix(1, 5).UTC(), EndTime: time.Unix(2, 0).UTC(), Workspace: "/w", Command: "c",
		Args: []string{"a", "b"}, IssuesPlanned: []int{1, 2}, IssuesCompleted: []int{1}, IssuesFailed: []int{2},
		CurrentIssue: &n, Status: StatusActive, Provider: "p", StopBlockCount: 1, SubagentStopBlockCount: 2,
		Agent: "claude", AgentSessionID: "s", FilesModified: []string{"f"}, AuditHead: &AuditHead{Seq: 3, Hash: "ab"},
		Name: "n", EndReason: EndReasonIdle, Metadata: Metadata{GitBranch: "b", GitCommit: "c", TotalDuration: 7},
	}
	b, err := json.MarshalIndent(full, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	seeds := [][]byte{b}
	for _, s := range []string{
		`null`, `[]`, `"x"`, `5`, `{}`, ` {"id": "a"} `, `{"id": "a"} x`,
		`{"id": "a", "other": {"k": [1, 2]}, "metadata": {"gitBranch": "b", "x": true}}`,
		`{"ID": "a", "Id": "b", "iD": null}`,                       // case-insensitive, kept as extra too
		`{"ſtatus": "active", "K": 1}`,                             // Unicode folding (long s)
		`{"args": ["a", "b"], "args": [null]}`,                     // a null element keeps the earlier value
		`{"issuesPlanned": [1, 2, 3], "issuesPlanned": [null, 5]}`, // likewise for numbers
		`{"args": null}`, `{"args": []}`, `{"issuesFailed": []}`, // nil and empty
		`{"auditHead": {"seq": 1}, "auditHead": {"hash": "h"}}`,            // a pointer decodes into what it holds
		`{"auditHead": {"seq": 1}, "auditHead": null}`,                     // and null sets it to nil
		`{"metadata": {"gitBranch": "b"}, "metadata": {"gitCommit": "c"}}`, // metadata is replaced whole
		`{"metadata": {"gitBranch": "b"}, "metadata": null}`,
		`{"currentIssue": 1, "currentIssue": null}`, `{"currentIssue": "1"}`,
		`{"startTime": "2026-01-02T03:04:05.123456789+01:00"}`, `{"startTime": null}`, `{"startTime": 5}`,
		`{"startTime": "2026-01-02T03:04:05Z", "startTime": "bad"}`, `{"startTime": "\u0032026-01-02T03:04:05Z"}`,
		`{"stopBlockCount": 1.5}`, `{"stopBlockCount": 1e2}`, `{"stopBlockCount": -0}`, `{"stopBlockCount": 9223372036854775808}`,
		`{"id": 5}`, `{"id": true}`, `{"id": ["a"]}`, `{"args": "a"}`, `{"args": [1]}`, `{"metadata": 5}`, `{"metadata": []}`,
		`{"auditHead": 5}`, `{"auditHead": {"seq": "1"}}`, `{"auditHead": {"SEQ": 2, "other": 1}}`,
		`{"id": "a\ud800b", "x\u00e9": "\u2028", "bad": "` + "\xff" + `"}`,
		"\xef\xbb\xbf{}", `{"a": 1, "a": 2}`, `{"metadata": {"x": 1, "x": 2}}`,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

func TestDecodeRecordAsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, b := range recordSeeds(t) {
		sameAsReference(t, b)
		sameHeadAsReference(t, b)
	}
}

// FuzzDecodeRecord holds decodeSession and decodeRecordHead to encoding/json's reading of a
// record.
func FuzzDecodeRecord(f *testing.F) {
	for _, b := range recordSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sameAsReference(t, b)
		sameHeadAsReference(t, b)
	})
}
