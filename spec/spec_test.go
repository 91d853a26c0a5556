package spec_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/spec"
)

// members returns the JSON member names of a struct type and, recursively,
// of the structs it holds, keyed by member name, with the Go type they
// were found in.
func members(t reflect.Type, out map[string]string, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] || t == reflect.TypeFor[time.Time]() {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			continue // the embedded fallback for unknown members
		}
		out[name] = t.Name()
		members(f.Type, out, seen)
	}
}

func documentMembers() map[string]string {
	out := map[string]string{}
	members(reflect.TypeFor[spec.Document](), out, map[reflect.Type]bool{})
	return out
}

// TestContextMapsEveryMember checks that every member of the Go types is a
// term the JSON-LD context defines explicitly, so that expansion maps it
// to the vocabulary by design and not through @vocab by accident.
func TestContextMapsEveryMember(t *testing.T) {
	var ctx struct {
		Context map[string]any `json:"@context"`
	}
	if err := json.Unmarshal(spec.Context(), &ctx); err != nil {
		t.Fatal(err)
	}
	if ctx.Context["@vocab"] != spec.VocabIRI {
		t.Errorf("@vocab is %v, want %s", ctx.Context["@vocab"], spec.VocabIRI)
	}
	for name, in := range documentMembers() {
		if strings.HasPrefix(name, "@") {
			continue
		}
		if _, ok := ctx.Context[name]; !ok {
			t.Errorf("member %q (of %s) is not a term of context.jsonld", name, in)
		}
	}
	for _, typ := range spec.NodeTypes {
		if _, ok := ctx.Context[string(typ)]; !ok {
			t.Errorf("node type %q is not a term of context.jsonld", typ)
		}
	}
	for _, r := range spec.Relations {
		if r == spec.RelMentions {
			continue // the term of the mentions member, the same IRI
		}
		if _, ok := ctx.Context[string(r)]; !ok {
			t.Errorf("relation %q is not a term of context.jsonld", r)
		}
	}
}

// TestSchemaNamesEveryMember checks that every member of the Go types is a
// property somewhere in the JSON Schema.
func TestSchemaNamesEveryMember(t *testing.T) {
	var schema any
	if err := json.Unmarshal(spec.Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	props := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if p, ok := v["properties"].(map[string]any); ok {
				for name := range p {
					props[name] = true
				}
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(schema)
	for name, in := range documentMembers() {
		if !props[name] {
			t.Errorf("member %q (of %s) is not a property in smg-v1.schema.json", name, in)
		}
	}
}

func TestEditBlock(t *testing.T) {
	got := spec.EditBlock("TIMEOUT = 5", "TIMEOUT = 10")
	want := "<<<<<<< SEARCH\nTIMEOUT = 5\n=======\nTIMEOUT = 10\n>>>>>>> REPLACE\n"
	if got != want {
		t.Errorf("EditBlock = %q, want %q", got, want)
	}
	if got := spec.EditBlock("", ""); got != "<<<<<<< SEARCH\n\n=======\n\n>>>>>>> REPLACE\n" {
		t.Errorf("EditBlock of empty texts = %q: each is an empty line", got)
	}
}

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in           string
		major, minor int
		ok           bool
	}{
		{"1.0", 1, 0, true},
		{"1.12", 1, 12, true},
		{"2.0", 2, 0, true},
		{"1", 0, 0, false},
		{"1.0.0", 0, 0, false},
		{"01.0", 0, 0, false},
		{"1.-1", 0, 0, false},
		{"+1.0", 0, 0, false},
		{"", 0, 0, false},
		{"1.9999999999", 0, 0, false},
	} {
		major, minor, err := spec.ParseVersion(tc.in)
		if (err == nil) != tc.ok || major != tc.major || minor != tc.minor {
			t.Errorf("ParseVersion(%q) = %d, %d, %v", tc.in, major, minor, err)
		}
	}
}

func TestMarshalCanonical(t *testing.T) {
	got, err := spec.MarshalCanonical(map[string]any{
		"b": []any{3.0, 1e21, 0.000001, -0.0},
		"a": "<&>\u2028é\x01",
		// Sorted by UTF-16 code units: U+1F600 (D83D DE00) before U+FF01,
		// where code point order would put it after.
		"\uFF01": 1, "\U0001F600": 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":"<&>` + "\u2028" + `é\u0001","b":[3,1e+21,0.000001,0],"` + "\U0001F600" + `":2,"` + "\uFF01" + `":1}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
