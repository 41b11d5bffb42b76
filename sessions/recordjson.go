package sessions

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/autoagent/agent-hooks/internal/jsonpos"
)

// A session record is read on every hook call. Decoding it with encoding/json cost about 3% of
// such a call: the reflection caches of Session and Metadata are built anew in every process,
// and each object was decoded twice (once for its fields, once for the keys it keeps). These
// decoders read a record from one parse (internal/jsonpos) with encoding/json's semantics for
// these types exactly, held to them by FuzzDecodeRecord:
//   - a key names a field by its exact name, or else by a case-insensitive match;
//   - a repeated key decodes again into what the earlier one left (a slice keeps its backing
//     array, so a null element keeps the value an earlier array put there);
//   - null leaves a string, number or time as it is and sets a slice or pointer to nil;
//   - `[]` into a nil slice makes an empty one;
//   - a key that is not a field's exact name is kept, as written, among the extra keys.

// decodeSession decodes v into s as (*Session).UnmarshalJSON does.
func decodeSession(doc *jsonpos.Doc, v *jsonpos.Value, s *Session) error {
	var f sessionFields
	extra, err := decodeFields(doc, v, sessionDecoders, &f, true)
	if err != nil {
		return err
	}
	*s = Session(f)
	s.extra = extra
	return nil
}

// decodeMetadata decodes v into m as (*Metadata).UnmarshalJSON does.
func decodeMetadata(doc *jsonpos.Doc, v *jsonpos.Value, m *Metadata) error {
	var f metadataFields
	extra, err := decodeFields(doc, v, metadataDecoders, &f, true)
	if err != nil {
		return err
	}
	*m = Metadata(f)
	m.extra = extra
	return nil
}

// decodeAuditHead decodes v into h as encoding/json decodes into an AuditHead: into what h
// holds, other keys ignored.
func decodeAuditHead(doc *jsonpos.Doc, v *jsonpos.Value, h *AuditHead) error {
	_, err := decodeFields(doc, v, auditHeadDecoders, h, false)
	return err
}

func decodeHeadPointer(doc *jsonpos.Doc, v *jsonpos.Value, h **AuditHead) error {
	return decodePointer(v, h, func(v *jsonpos.Value, h *AuditHead) error { return decodeAuditHead(doc, v, h) })
}

// decodeRecordHead decodes the audit head of the record v into *h as encoding/json decodes a
// record into a struct with only that field (Store.recordHead).
func decodeRecordHead(doc *jsonpos.Doc, v *jsonpos.Value, h **AuditHead) error {
	_, err := decodeFields(doc, v, recordHeadDecoders, h, false)
	return err
}

// fieldDecoder decodes the member of an object that names one field of a T.
type fieldDecoder[T any] struct {
	name   string // the field's JSON name
	decode func(doc *jsonpos.Doc, v *jsonpos.Value, into *T) error
}

// The fields of a record, of its metadata and of an audit head, by their JSON names (the names
// the struct tags give them for encoding; TestDecodersNameEveryField holds the two together).
var (
	sessionDecoders = []fieldDecoder[sessionFields]{
		{"id", func(_ *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error { return decodeString(v, &f.ID) }},
		{"name", func(_ *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error { return decodeString(v, &f.Name) }},
		{"startTime", func(d *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error {
			return f.StartTime.UnmarshalJSON(d.Raw(v))
		}},
		{"endTime", func(d *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error {
			return f.EndTime.UnmarshalJSON(d.Raw(v))
		}},
		{"workspace", func(_ *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error { return decodeString(v, &f.Workspace) }},
		{"command", func(_ *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error { return decodeString(v, &f.Command) }},
		{"args", func(_ *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error { return decodeStrings(v, &f.Args) }},
		{"issuesPlanned", func(d *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error {
			return decodeInts(d, v, &f.IssuesPlanned)
		}},
		{"issuesCompleted", func(d *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error {
			return decodeInts(d, v, &f.IssuesCompleted)
		}},
		{"issuesFailed", func(d *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error {
			return decodeInts(d, v, &f.IssuesFailed)
		}},
		{"currentIssue", func(d *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error {
			return decodePointer(v, &f.CurrentIssue, func(v *jsonpos.Value, n *int) error { return decodeInt(d, v, n) })
		}},
		{"status", func(_ *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error { return decodeString(v, &f.Status) }},
		{"endReason", func(_ *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error { return decodeString(v, &f.EndReason) }},
		{"provider", func(_ *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error { return decodeString(v, &f.Provider) }},
		{"metadata", func(d *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error {
			return decodeMetadata(d, v, &f.Metadata)
		}},
		{"stopBlockCount", func(d *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error {
			return decodeInt(d, v, &f.StopBlockCount)
		}},
		{"subagentStopBlockCount", func(d *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error {
			return decodeInt(d, v, &f.SubagentStopBlockCount)
		}},
		{"agent", func(_ *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error { return decodeString(v, &f.Agent) }},
		{"agentSessionId", func(_ *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error {
			return decodeString(v, &f.AgentSessionID)
		}},
		{"filesModified", func(_ *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error {
			return decodeStrings(v, &f.FilesModified)
		}},
		{"auditHead", func(d *jsonpos.Doc, v *jsonpos.Value, f *sessionFields) error {
			return decodeHeadPointer(d, v, &f.AuditHead)
		}},
	}
	metadataDecoders = []fieldDecoder[metadataFields]{
		{"gitBranch", func(_ *jsonpos.Doc, v *jsonpos.Value, f *metadataFields) error { return decodeString(v, &f.GitBranch) }},
		{"gitCommit", func(_ *jsonpos.Doc, v *jsonpos.Value, f *metadataFields) error { return decodeString(v, &f.GitCommit) }},
		{"totalDuration", func(d *jsonpos.Doc, v *jsonpos.Value, f *metadataFields) error {
			return decodeInt(d, v, &f.TotalDuration)
		}},
	}
	auditHeadDecoders = []fieldDecoder[AuditHead]{
		{"seq", func(d *jsonpos.Doc, v *jsonpos.Value, h *AuditHead) error { return decodeInt(d, v, &h.Seq) }},
		{"hash", func(_ *jsonpos.Doc, v *jsonpos.Value, h *AuditHead) error { return decodeString(v, &h.Hash) }},
	}
	// recordHeadDecoders read nothing of a record but its audit head.
	recordHeadDecoders = []fieldDecoder[*AuditHead]{{"auditHead", decodeHeadPointer}}
)

// decodeFields decodes the object v into *into member by member, in order, and returns, if
// keep, the members whose keys are not a field's exact name. A null v decodes as an empty object.
func decodeFields[T any](doc *jsonpos.Doc, v *jsonpos.Value, fields []fieldDecoder[T], into *T, keep bool) (map[string]json.RawMessage, error) {
	switch v.Kind {
	case jsonpos.Null:
		return nil, nil
	case jsonpos.Object:
	default:
		return nil, typeError(v, "an object")
	}
	var extra map[string]json.RawMessage
	for _, m := range v.Members {
		i := slices.IndexFunc(fields, func(f fieldDecoder[T]) bool { return f.name == m.Key })
		exact := i >= 0
		if !exact {
			i = slices.IndexFunc(fields, func(f fieldDecoder[T]) bool { return strings.EqualFold(f.name, m.Key) })
		}
		if i >= 0 {
			if err := fields[i].decode(doc, m.Value, into); err != nil {
				return nil, err
			}
		}
		if keep && !exact {
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			extra[m.Key] = json.RawMessage(doc.Raw(m.Value))
		}
	}
	return extra, nil
}

func decodeString[S ~string](v *jsonpos.Value, s *S) error {
	switch v.Kind {
	case jsonpos.String:
		*s = S(v.Str)
	case jsonpos.Null:
	default:
		return typeError(v, "a string")
	}
	return nil
}

func decodeInt[N ~int | ~int64](doc *jsonpos.Doc, v *jsonpos.Value, n *N) error {
	switch v.Kind {
	case jsonpos.Number:
		i, err := strconv.ParseInt(string(doc.Raw(v)), 10, 64)
		if err != nil || int64(N(i)) != i {
			return fmt.Errorf("at byte %d: want an integer, got %s", v.Start, doc.Raw(v))
		}
		*n = N(i)
	case jsonpos.Null:
	default:
		return typeError(v, "a number")
	}
	return nil
}

func decodeStrings(v *jsonpos.Value, s *[]string) error {
	return decodeSlice(v, s, func(v *jsonpos.Value, e *string) error { return decodeString(v, e) })
}

func decodeInts(doc *jsonpos.Doc, v *jsonpos.Value, s *[]int) error {
	return decodeSlice(v, s, func(v *jsonpos.Value, n *int) error { return decodeInt(doc, v, n) })
}

// decodeSlice decodes an array into *s element by element, reusing *s as encoding/json does.
func decodeSlice[T any](v *jsonpos.Value, s *[]T, elem func(*jsonpos.Value, *T) error) error {
	switch v.Kind {
	case jsonpos.Null:
		*s = nil
		return nil
	case jsonpos.Array:
	default:
		return typeError(v, "an array")
	}
	out := *s
	for i, e := range v.Elems {
		switch {
		case i < len(out):
		case i < cap(out):
			out = out[:i+1]
		default:
			var zero T
			out = append(out, zero)
		}
		if err := elem(e, &out[i]); err != nil {
			return err
		}
	}
	out = out[:len(v.Elems)]
	if out == nil {
		out = []T{}
	}
	*s = out
	return nil
}

// decodePointer decodes v into **p, allocating it when nil; null sets it to nil.
func decodePointer[T any](v *jsonpos.Value, p **T, decode func(*jsonpos.Value, *T) error) error {
	if v.Kind == jsonpos.Null {
		*p = nil
		return nil
	}
	if *p == nil {
		*p = new(T)
	}
	return decode(v, *p)
}

func typeError(v *jsonpos.Value, want string) error {
	return fmt.Errorf("at byte %d: want %s, got JSON %s", v.Start, want, v.Kind)
}
