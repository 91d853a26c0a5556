package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/spec"
)

// The memories a handler knows, as replies name them.
const (
	UserMemory      = "user"
	WorkspaceMemory = "workspace"
)

// Options shape what a [Handler] does.
type Options struct {
	// Now is the clock, for the turns given to record_turns without a
	// time; nil is time.Now.
	Now func() time.Time
	// Context is how get_context builds a context: its tokenizer (nil:
	// the estimate) and the share of each section. Its Budget is the
	// budget of a call that names none; zero is 1,000 tokens.
	Context smg.ContextOptions
}

// Handler carries out a model's calls of the tools against a user's memory
// and, optionally, a workspace's, each kept in a file ([smg.FileMemory]) or
// elsewhere ([smg.Kept]): every change is kept, in a file under its lock,
// before the call returns, so that other processes on the same memories
// lose nothing. It is safe for concurrent use; its calls are serialized.
//
// Where a call goes:
//
//   - save_memory saves into the workspace's memory a fact whose scope is of
//     a workspace kind (workspace, drive, app, team, file), when there is
//     one, and any other fact into the user's;
//   - remove_memory looks in the memory its scope names, or in both;
//   - search_memory searches both (or the one it names) and labels each
//     result with its memory;
//   - get_context joins the context of the user's memory and the
//     workspace's, each within a share of the budget;
//   - record_turns records the conversation's turns in the user's memory
//     (see [smg.Memory.Record]): those it holds already are not stored
//     again.
type Handler struct {
	user, workspace smg.Kept
	opts            Options

	mu sync.Mutex
}

// NewHandler returns a handler of the user's memory and the workspace's,
// kept in files (see [NewKeptHandler]); workspace may be nil, and so may
// opts.
func NewHandler(user, workspace *smg.FileMemory, opts *Options) *Handler {
	var ws smg.Kept
	if workspace != nil {
		ws = workspace
	}
	return NewKeptHandler(user, ws, opts)
}

// NewKeptHandler returns a handler of the user's memory and the
// workspace's, kept wherever they are; workspace may be nil, and so may
// opts.
func NewKeptHandler(user, workspace smg.Kept, opts *Options) *Handler {
	h := &Handler{user: user, workspace: workspace}
	if opts != nil {
		h.opts = *opts
	}
	return h
}

// Reply is a tool's answer to the model, in the shape of the blah.chat
// tools: {"success": true, …} when the call did what it was asked;
// {"success": false, "duplicate": true, "existing": {…}, "message": …} for
// a fact the memory already holds; {"success": false, "error": …} for a
// call the model should change, with what to change. Each tool fills the
// fields it documents; the others stay empty and are left out of the JSON.
type Reply struct {
	Success bool `json:"success"`
	// Error says what is wrong with the call, in words a model can act on.
	Error string `json:"error,omitzero"`
	// Duplicate: save_memory found the fact already saved, Existing.
	Duplicate bool      `json:"duplicate,omitzero"`
	Existing  *Existing `json:"existing,omitzero"`

	// ID and Content are the fact saved or removed: its id and its text
	// (as saved: in the third person). Category, Scope and Importance are
	// those of the fact saved; Supersedes the facts it replaced.
	ID         string   `json:"id,omitzero"`
	Content    string   `json:"content,omitzero"`
	Category   string   `json:"category,omitzero"`
	Scope      string   `json:"scope,omitzero"`
	Importance float64  `json:"importance,omitzero"`
	Supersedes []string `json:"supersedes,omitzero"`
	// Memory is the memory saved into or removed from: user or workspace.
	Memory string `json:"memory,omitzero"`

	// Results are what search_memory found, best first; an empty list
	// when nothing matched.
	Results []Hit `json:"results,omitzero"`

	// Context is the text get_context assembled; Tokens its size and
	// Budget the most it could take.
	Context string `json:"context,omitzero"`
	Tokens  int    `json:"tokens,omitzero"`
	Budget  int    `json:"budget,omitzero"`

	// Added and Held are how many of the turns given to record_turns
	// were recorded, and how many the memory held already; Warnings say
	// what it recorded that needs a look (a message id used again with
	// other text).
	Added    int      `json:"added,omitzero"`
	Held     int      `json:"held,omitzero"`
	Warnings []string `json:"warnings,omitzero"`

	// Message says what happened in a sentence, for the model to relay.
	Message string `json:"message,omitzero"`
}

// IsError reports whether the reply is an error the model should act on.
// A duplicate is not one.
func (r Reply) IsError() bool { return r.Error != "" }

// Existing is the fact a memory already holds.
type Existing struct {
	ID      string `json:"id"`
	Content string `json:"content"`
}

// Hit is one thing search_memory found.
type Hit struct {
	// Memory is the memory it is in: user or workspace.
	Memory string `json:"memory"`
	// Kind is a node's type (fact, decision, concept, problem, solution,
	// artifact), or turn (a message of an earlier conversation), or block
	// (a summary of earlier conversations).
	Kind string `json:"kind"`
	// ID is a node's or a block's id; Turn a turn's number, and Date its
	// day when it has one.
	ID   string `json:"id,omitzero"`
	Turn int    `json:"turn,omitzero"`
	Date string `json:"date,omitzero"`
	// Content is its text: a fact or a node's label, the start of a turn,
	// a block's summary.
	Content string `json:"content"`
	// Category and Scope are a fact's; Superseded tells a fact replaced
	// by a later one, kept for history.
	Category   string  `json:"category,omitzero"`
	Scope      string  `json:"scope,omitzero"`
	Superseded bool    `json:"superseded,omitzero"`
	Score      float64 `json:"score"`
}

// Call carries out the call of the named tool with its input, a JSON
// object. What the model should fix (an unknown tool, input that is not
// what the tool takes, a fact that cannot be saved, an id no memory holds)
// is a reply with Error set, not an error: the error is for what the model
// cannot fix, like a memory file that cannot be read or written, or ctx
// ending.
func (h *Handler) Call(ctx context.Context, name string, input json.RawMessage) (Reply, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var r Reply
	var err error
	switch name {
	case SaveMemory:
		r, err = h.save(ctx, input)
	case RemoveMemory:
		r, err = h.remove(ctx, input)
	case SearchMemory:
		r, err = h.search(ctx, input)
	case GetContext:
		r, err = h.context(ctx, input)
	case RecordTurns:
		r, err = h.record(ctx, input)
	default:
		return failed("there is no tool %q: the tools are %s, %s, %s, %s and %s", name, SaveMemory, RemoveMemory, SearchMemory, GetContext, RecordTurns), nil
	}
	if ie, ok := errors.AsType[*inputError](err); ok {
		return failed("%s", ie.msg), nil
	}
	return r, err
}

func failed(format string, args ...any) Reply {
	return Reply{Error: fmt.Sprintf(format, args...)}
}

type saveInput struct {
	Content, Category, Reasoning, Scope string
}

func (h *Handler) save(ctx context.Context, input json.RawMessage) (Reply, error) {
	var in saveInput
	if err := decode(SaveMemory, input, []param{
		{"content", &in.Content, true},
		{"category", &in.Category, true},
		{"reasoning", &in.Reasoning, true},
		{"scope", &in.Scope, false},
	}); err != nil {
		return Reply{}, err
	}
	if in.Category == "" {
		return failed("category is missing: use one of %s", strings.Join(spec.FactCategories, ", ")), nil
	}
	if n := utf8.RuneCountInString(strings.TrimSpace(in.Reasoning)); n == 0 || n > 300 {
		return failed("reasoning is %d characters long; say in 1 to 300 why the fact is worth remembering", n), nil
	}
	if in.Scope != "" {
		if err := spec.CheckFactScope(in.Scope); err != nil {
			return failed("%v", err), nil
		}
	}
	label, f := h.route(in.Scope)
	r, err := f.Remember(ctx, smg.Fact{
		Content: in.Content, Category: in.Category, Scope: in.Scope,
		Source: spec.SourceAI, Reasoning: strings.TrimSpace(in.Reasoning), CreatedBy: SaveMemory,
	})
	if fe, ok := errors.AsType[*smg.FactError](err); ok {
		if strings.HasPrefix(fe.Message, "is ") {
			return failed("%s %s", fe.Field, fe.Message), nil // "content is 9 characters long; …"
		}
		return failed("%s", fe.Message), nil
	}
	if err != nil {
		return Reply{}, err
	}
	content := smg.FactText(r.Fact)
	if r.Duplicate {
		return Reply{
			Duplicate: true,
			Existing:  &Existing{ID: r.Fact.ID, Content: content},
			Memory:    label,
			Message:   "Already saved: " + content,
		}, nil
	}
	msg := "Saved: " + content
	if len(r.Supersedes) > 0 {
		msg += fmt.Sprintf(" (it replaces %s, kept as history)", strings.Join(r.Supersedes, ", "))
	}
	return Reply{
		Success:    true,
		ID:         r.Fact.ID,
		Content:    content,
		Category:   r.Fact.Category,
		Scope:      r.Fact.Scope,
		Importance: round(r.Fact.Importance, 2),
		Supersedes: r.Supersedes,
		Memory:     label,
		Message:    msg,
	}, nil
}

// route is the memory a fact of the given scope goes to: the workspace's
// for a scope of a workspace kind, when there is one; else the user's.
func (h *Handler) route(scope string) (string, smg.Kept) {
	kind, _, _ := strings.Cut(scope, ":")
	if h.workspace != nil && kind != "" && kind != spec.ScopeUser {
		return WorkspaceMemory, h.workspace
	}
	return UserMemory, h.user
}

type labeled struct {
	label string
	f     smg.Kept
}

// memories are the handler's memories, the user's first.
func (h *Handler) memories() []labeled {
	out := []labeled{{UserMemory, h.user}}
	if h.workspace != nil {
		out = append(out, labeled{WorkspaceMemory, h.workspace})
	}
	return out
}

// errNotHere: the memory has no fact of the id.
var errNotHere = fmt.Errorf("%w: no such fact", smg.ErrNoNode)

func (h *Handler) remove(ctx context.Context, input json.RawMessage) (Reply, error) {
	var id, scope string
	if err := decode(RemoveMemory, input, []param{{"id", &id, true}, {"scope", &scope, false}}); err != nil {
		return Reply{}, err
	}
	id = strings.TrimSpace(id)
	if id == "" {
		return failed("id is empty: give the id of a saved fact, as save_memory or search_memory gave it"), nil
	}
	where := h.memories()
	if scope != "" {
		if err := spec.CheckFactScope(scope); err != nil {
			return failed("%v", err), nil
		}
		label, f := h.route(scope)
		where = []labeled{{label, f}}
	}
	for _, w := range where {
		var gone spec.Node
		var restored []string
		err := w.f.Update(ctx, func(m *smg.Memory) error {
			facts := m.Facts(smg.FactFilter{Superseded: true})
			i := slices.IndexFunc(facts, func(n spec.Node) bool { return n.ID == id })
			if i < 0 {
				return errNotHere
			}
			gone = facts[i]
			f, err := m.Forget(ctx, id)
			for _, r := range f.Restored {
				if j := slices.IndexFunc(facts, func(n spec.Node) bool { return n.ID == r }); j >= 0 {
					restored = append(restored, smg.FactText(facts[j]))
				}
			}
			return err
		})
		if errors.Is(err, smg.ErrNoNode) {
			continue
		}
		if err != nil {
			return Reply{}, err
		}
		content := smg.FactText(gone)
		msg := "Removed: " + content
		for _, r := range restored {
			msg += "\nCurrent again (it had replaced it): " + r
		}
		return Reply{Success: true, ID: id, Content: content, Memory: w.label, Message: msg}, nil
	}
	return failed("no saved fact has the id %q; search_memory gives the ids of saved facts", id), nil
}

func (h *Handler) search(ctx context.Context, input json.RawMessage) (Reply, error) {
	var query, category, memory string
	limit := 5
	if err := decode(SearchMemory, input, []param{
		{"query", &query, true},
		{"category", &category, false},
		{"memory", &memory, false},
		{"limit", within{&limit, 1, 50, ""}, false},
	}); err != nil {
		return Reply{}, err
	}
	if strings.TrimSpace(query) == "" {
		return failed("query is empty: give the words to look for"), nil
	}
	if n := utf8.RuneCountInString(query); n > 1000 {
		return failed("query is %d characters long; keep it under 1000: a few keywords or a question", n), nil
	}
	if category != "" && !slices.Contains(spec.FactCategories, category) {
		return failed("%q is not a category; use one of %s", category, strings.Join(spec.FactCategories, ", ")), nil
	}
	where := h.memories()
	switch memory {
	case "":
	case UserMemory:
		where = where[:1]
	case WorkspaceMemory:
		if h.workspace == nil {
			return failed("there is no workspace memory here; search the user's memory (leave out memory)"), nil
		}
		where = where[1:]
	default:
		return failed("memory is %q; it takes user or workspace", memory), nil
	}
	hits := []Hit{}
	for _, w := range where {
		found, err := searchOne(ctx, w, query, category, limit)
		if err != nil {
			return Reply{}, err
		}
		hits = append(hits, found...)
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
	hits = hits[:min(len(hits), limit)]
	msg := fmt.Sprintf("Found %d in memory.", len(hits))
	if len(hits) == 0 {
		msg = "Nothing in memory matches the query."
	}
	return Reply{Success: true, Results: hits, Message: msg}, nil
}

// searchOne searches one memory: facts of category only, when it is set.
func searchOne(ctx context.Context, w labeled, query, category string, limit int) ([]Hit, error) {
	m, err := w.f.Memory(ctx)
	if err != nil {
		return nil, err
	}
	if err := m.WaitIndex(ctx); err != nil && !errors.Is(err, smg.ErrIndexCache) {
		return nil, err
	}
	n := limit
	if category != "" {
		n = max(10*limit, 100) // most hits are not facts of the category
	}
	found, err := m.Search(ctx, query, n)
	if err != nil {
		return nil, err
	}
	var nodes map[string]spec.Node
	if slices.ContainsFunc(found, func(f smg.Found) bool { return f.Kind == "node" }) {
		doc := m.Document()
		nodes = make(map[string]spec.Node, len(doc.SemanticGraph.Nodes))
		for _, n := range doc.SemanticGraph.Nodes {
			nodes[n.ID] = n
		}
	}
	var out []Hit
	for _, f := range found {
		hit := Hit{Memory: w.label, Kind: f.Kind, ID: f.NodeID, Turn: f.Turn, Content: clip(f.Text, 300), Score: round(f.Score, 4)}
		if !f.Timestamp.IsZero() {
			hit.Date = f.Timestamp.UTC().Format("2006-01-02")
		}
		if n, ok := nodes[f.NodeID]; ok && f.Kind == "node" {
			hit.Kind = string(n.Type)
			if n.Type == spec.NodeFact {
				hit.Content = smg.FactText(n)
				hit.Category, hit.Scope, hit.Superseded = n.Category, n.Scope, !n.ValidTo.IsZero()
			}
		}
		if category != "" && (hit.Kind != string(spec.NodeFact) || hit.Category != category) {
			continue
		}
		out = append(out, hit)
	}
	return out, nil
}

func (h *Handler) context(ctx context.Context, input json.RawMessage) (Reply, error) {
	var query string
	budget := cmp.Or(h.opts.Context.Budget, smg.DefaultBudget)
	if err := decode(GetContext, input, []param{{"query", &query, true}, {"budget", within{&budget, 100, 32000, "tokens"}, false}}); err != nil {
		return Reply{}, err
	}
	if strings.TrimSpace(query) == "" {
		return failed("query is empty: give the question or task the context is for"), nil
	}
	if n := utf8.RuneCountInString(query); n > 1000 {
		return failed("query is %d characters long; keep it under 1000", n), nil
	}
	text, tokens, err := h.compose(ctx, query, budget)
	if err != nil {
		return Reply{}, err
	}
	r := Reply{Success: true, Context: text, Tokens: tokens, Budget: budget}
	if text == "" {
		r.Message = "The memory holds nothing about this yet."
	}
	return r, nil
}

// compose builds the context of query within budget from the user's
// memory and, when there is one, the workspace's (smg.Compose).
func (h *Handler) compose(ctx context.Context, query string, budget int) (string, int, error) {
	o := h.opts.Context
	o.Wait, o.Budget = true, budget
	if o.Tokenizer == nil {
		o.Tokenizer, _ = smg.NewTokenizer(smg.Estimate)
	}
	var ms []*smg.Memory
	for _, f := range []smg.Kept{h.user, h.workspace} {
		if f == nil {
			continue
		}
		m, err := f.Memory(ctx)
		if err != nil {
			return "", 0, err
		}
		ms = append(ms, m)
	}
	r, err := smg.Compose(ctx, query, &smg.ComposeOptions{ContextOptions: o}, ms...)
	if err != nil {
		return "", 0, err
	}
	return r.Text, r.Tokens, nil
}

// clip cuts s to at most n runes, on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

func round(x float64, digits int) float64 {
	p := math.Pow10(digits)
	return math.Round(x*p) / p
}

// inputError is input that is not what a tool takes.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

// param is one member of a tool's input: its name, where it goes (a
// *string or an *int) and whether it is required.
type param struct {
	name     string
	dst      any
	required bool
}

// within is where an integer parameter goes, with the range it takes, of
// unit ("" for none).
type within struct {
	dst    *int
	lo, hi int
	unit   string
}

// decode reads a tool's input, a JSON object, into its params. Missing
// input is an empty object, and a member that is null is taken for one
// left out (the schemas do not allow it, but models send it).
func decode(tool string, input json.RawMessage, params []param) error {
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.name
	}
	takes := fmt.Sprintf("%s takes %s", tool, strings.Join(names, ", "))
	var obj map[string]json.RawMessage
	if len(input) > 0 && string(input) != "null" {
		if !json.Valid(input) {
			return &inputError{fmt.Sprintf("the input is not valid JSON; %s, in a JSON object", takes)}
		}
		if err := json.Unmarshal(input, &obj); err != nil {
			return &inputError{fmt.Sprintf("the input is not a JSON object; %s", takes)}
		}
	}
	var unknown []string
	for k := range obj {
		if !slices.Contains(names, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return &inputError{fmt.Sprintf("unknown parameter %q; %s", unknown[0], takes)}
	}
	for _, p := range params {
		raw, ok := obj[p.name]
		if !ok || string(raw) == "null" {
			if p.required {
				return &inputError{fmt.Sprintf("%s is missing; %s", p.name, takes)}
			}
			continue
		}
		switch dst := p.dst.(type) {
		case *string:
			if json.Unmarshal(raw, dst) != nil {
				return &inputError{fmt.Sprintf("%s must be a string", p.name)}
			}
		case *json.RawMessage:
			*dst = raw
		case within:
			var f float64
			if json.Unmarshal(raw, &f) != nil || f != math.Trunc(f) {
				return &inputError{fmt.Sprintf("%s must be an integer from %d to %d", p.name, dst.lo, dst.hi)}
			}
			if f < float64(dst.lo) || f > float64(dst.hi) {
				unit := ""
				if dst.unit != "" {
					unit = " " + dst.unit
				}
				return &inputError{fmt.Sprintf("%s is %s%s; it takes %d to %d", p.name, raw, unit, dst.lo, dst.hi)}
			}
			*dst.dst = int(f)
		default:
			panic("tools: a param of an unknown type")
		}
	}
	return nil
}
