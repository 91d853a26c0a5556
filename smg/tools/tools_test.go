package tools_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/smg-memory/smg/smg/tools"
	"github.com/smg-memory/smg/spec"
)

// compile compiles each tool's input schema as draft 2020-12.
func compile(t testing.TB) map[string]*jsonschema.Schema {
	t.Helper()
	out := map[string]*jsonschema.Schema{}
	for _, d := range tools.Definitions() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.InputSchema))
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		url := "mem:///" + d.Name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		if out[d.Name], err = c.Compile(url); err != nil {
			t.Fatalf("%s: the schema does not compile: %v", d.Name, err)
		}
	}
	return out
}

func TestDefinitions(t *testing.T) {
	defs := tools.Definitions()
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
		if d.Description == "" {
			t.Errorf("%s has no description", d.Name)
		}
		var s struct {
			Type                 string                     `json:"type"`
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal(d.InputSchema, &s); err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s: the input is not a closed object: %s", d.Name, d.InputSchema)
		}
		for _, r := range s.Required {
			if _, ok := s.Properties[r]; !ok {
				t.Errorf("%s requires %q, which it does not define", d.Name, r)
			}
		}
	}
	if want := []string{"save_memory", "remove_memory", "search_memory", "get_context", "record_turns"}; !slices.Equal(names, want) {
		t.Errorf("tools %q, want %q", names, want)
	}
	compile(t)

	// The categories are the format's, in its order.
	for _, d := range defs {
		var s struct {
			Properties struct {
				Category struct {
					Enum []string `json:"enum"`
				} `json:"category"`
			} `json:"properties"`
		}
		json.Unmarshal(d.InputSchema, &s)
		if e := s.Properties.Category.Enum; e != nil && !slices.Equal(e, spec.FactCategories) {
			t.Errorf("%s: categories %q, want %q", d.Name, e, spec.FactCategories)
		}
	}
	if strings.Contains(tools.Guidance, "\t") || !strings.Contains(tools.Guidance, "save_memory") || !strings.Contains(tools.Guidance, `"duplicate": true`) {
		t.Errorf("the guidance:\n%s", tools.Guidance)
	}
}

// sample is a tool's input and whether its schema takes it.
type sample struct {
	tool, input string
	ok          bool
}

var long = strings.Repeat("User writes long sentences. ", 18) // 504 characters

var samples = []sample{
	{"save_memory", `{"content":"User prefers dark mode in every editor","category":"preference","reasoning":"A stated preference for the UI."}`, true},
	{"save_memory", `{"content":"Dana is the user's manager at Acme","category":"relationship","reasoning":"Who the user reports to.","scope":"user:dana"}`, true},
	{"save_memory", `{"content":"The crawler retries a timed-out fetch three times","category":"project","reasoning":"A decision of the team.","scope":"workspace:crawler"}`, true},
	{"save_memory", `{"content":"The team deploys on Thursdays only","category":"project","reasoning":"A rule of the team.","scope":"team"}`, true},
	{"save_memory", `{"category":"preference","reasoning":"no content"}`, false},
	{"save_memory", `{"content":"too short","category":"preference","reasoning":"too short"}`, false},
	{"save_memory", `{"content":"` + long + `","category":"context","reasoning":"too long"}`, false},
	{"save_memory", `{"content":"User collects vintage fountain pens","category":"hobby","reasoning":"not a category"}`, false},
	{"save_memory", `{"content":"User collects vintage fountain pens","reasoning":"no category"}`, false},
	{"save_memory", `{"content":"User collects vintage fountain pens","category":"preference"}`, false},
	{"save_memory", `{"content":"User collects vintage fountain pens","category":"preference","reasoning":""}`, false},
	{"save_memory", `{"content":"User collects vintage fountain pens","category":"preference","reasoning":"why","scope":"planet"}`, false},
	{"save_memory", `{"content":"User collects vintage fountain pens","category":"preference","reasoning":"why","scope":"user:"}`, false},
	{"save_memory", `{"content":"User collects vintage fountain pens","category":"preference","reasoning":"why","scope":"user:a b"}`, false},
	{"save_memory", `{"content":"User collects vintage fountain pens","category":"preference","reasoning":"why","tags":["pens"]}`, false},
	{"save_memory", `{"content":42,"category":"preference","reasoning":"why"}`, false},
	{"save_memory", `["User collects vintage fountain pens"]`, false},

	{"remove_memory", `{"id":"fact-user-prefers-dark-mode"}`, true},
	{"remove_memory", `{"id":"fact-user-prefers-dark-mode","scope":"workspace"}`, true},
	{"remove_memory", `{}`, false},
	{"remove_memory", `{"id":""}`, false},
	{"remove_memory", `{"id":"fact-x","scope":"nowhere"}`, false},
	{"remove_memory", `{"id":"fact-x","all":true}`, false},

	{"search_memory", `{"query":"dark mode"}`, true},
	{"search_memory", `{"query":"dark mode","category":"preference","memory":"user","limit":10}`, true},
	{"search_memory", `{"query":"retries","memory":"workspace","limit":1}`, true},
	{"search_memory", `{}`, false},
	{"search_memory", `{"query":""}`, false},
	{"search_memory", `{"query":"   "}`, false},
	{"search_memory", `{"query":"x","limit":0}`, false},
	{"search_memory", `{"query":"x","limit":51}`, false},
	{"search_memory", `{"query":"x","limit":2.5}`, false},
	{"search_memory", `{"query":"x","category":"hobby"}`, false},
	{"search_memory", `{"query":"x","memory":"team"}`, false},
	{"search_memory", `{"query":"x","sort":"recent"}`, false},

	{"get_context", `{"query":"which editor theme does the user like?"}`, true},
	{"get_context", `{"query":"which editor theme?","budget":500}`, true},
	{"get_context", `{"budget":500}`, false},
	{"get_context", `{"query":"x","budget":50}`, false},
	{"get_context", `{"query":"x","budget":40000}`, false},
	{"get_context", `{"query":"x","budget":"500"}`, false},
	{"record_turns", `{"turns":[{"role":"user","content":"Which cache should we use?"},{"role":"assistant","content":"Redis.","id":"m2","time":"2025-03-14T09:01:00Z"}]}`, true},
	{"record_turns", `{"turns":[{"role":"user","content":"Hi","speaker":"Dana","id":"m1"}],"conversation":"c-17"}`, true},
	{"record_turns", `{"turns":[]}`, false},
	{"record_turns", `{"turns":[{"content":"no role"}]}`, false},
	{"record_turns", `{"turns":[{"role":"human","content":"a role the format has not"}]}`, false},
	{"record_turns", `{"turns":[{"role":"user","content":"  "}]}`, false},
	{"record_turns", `{"turns":[{"role":"user","content":"x","time":"yesterday"}]}`, false},
	{"record_turns", `{"turns":[{"role":"user","content":"x","mood":"glad"}]}`, false},
	{"record_turns", `{"turns":[{"role":"user","content":"x","id":""}]}`, true},
	{"record_turns", `{"turns":{"role":"user","content":"x"}}`, false},
	{"record_turns", `{"turns":[{"role":"user","content":"x"}],"conversation":""}`, true},
	{"record_turns", `{"turns":[{"role":"user","content":"x","id":"` + strings.Repeat("i", 257) + `"}]}`, false},
}

func TestSchemasTakeSamples(t *testing.T) {
	schemas := compile(t)
	for _, s := range samples {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(s.input))
		if err != nil {
			t.Fatal(err)
		}
		err = schemas[s.tool].Validate(inst)
		if (err == nil) != s.ok {
			t.Errorf("%s %s: valid %v, want %v: %v", s.tool, s.input, err == nil, s.ok, err)
		}
	}
	// The pattern of a scope is the format's grammar.
	for _, scope := range []string{"user", "user:dana", "workspace:crawler", "file:a.b_c~d-e", "team:" + strings.Repeat("x", 128),
		"", "User", "user:", "user:" + strings.Repeat("x", 129), "workspace:a/b", "planet:x", "user:dana:x"} {
		in := `{"id":"fact-x","scope":` + string(must(json.Marshal(scope))) + `}`
		inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(in))
		schemaOK := schemas["remove_memory"].Validate(inst) == nil
		if specOK := spec.CheckFactScope(scope) == nil; schemaOK != specOK {
			t.Errorf("scope %q: the schema takes it: %v, spec.CheckFactScope: %v", scope, schemaOK, specOK)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestFormat(t *testing.T) {
	defs := tools.Definitions()
	check := func(format string, want func(raw []byte) []string) {
		t.Helper()
		b, err := tools.Format(defs, format)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(b) || !bytes.Contains(b, []byte("\n  ")) {
			t.Fatalf("%s: not indented JSON:\n%s", format, b)
		}
		if got := want(b); !slices.Equal(got, []string{"save_memory", "remove_memory", "search_memory", "get_context", "record_turns"}) {
			t.Errorf("%s: tools %q:\n%s", format, got, b)
		}
	}
	type schema struct {
		Type string `json:"type"`
	}
	check("openai", func(b []byte) (names []string) {
		var v []struct {
			Type     string `json:"type"`
			Function struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				Parameters  schema `json:"parameters"`
			} `json:"function"`
		}
		must(0, json.Unmarshal(b, &v))
		for _, x := range v {
			if x.Type != "function" || x.Function.Description == "" || x.Function.Parameters.Type != "object" {
				t.Errorf("openai: %+v", x)
			}
			names = append(names, x.Function.Name)
		}
		return names
	})
	check("anthropic", func(b []byte) (names []string) {
		var v []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			InputSchema schema `json:"input_schema"`
		}
		must(0, json.Unmarshal(b, &v))
		for _, x := range v {
			if x.Description == "" || x.InputSchema.Type != "object" {
				t.Errorf("anthropic: %+v", x)
			}
			names = append(names, x.Name)
		}
		return names
	})
	check("mcp", func(b []byte) (names []string) {
		var v struct {
			Tools []struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				InputSchema schema `json:"inputSchema"`
			} `json:"tools"`
		}
		must(0, json.Unmarshal(b, &v))
		for _, x := range v.Tools {
			if x.Description == "" || x.InputSchema.Type != "object" {
				t.Errorf("mcp: %+v", x)
			}
			names = append(names, x.Name)
		}
		return names
	})
	if _, err := tools.Format(defs, "gemini"); err == nil || !strings.Contains(err.Error(), "openai") {
		t.Errorf("an unknown format: %v", err)
	}
}
