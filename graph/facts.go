package graph

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/smg-memory/smg/classify"
	"github.com/smg-memory/smg/importance"
	"github.com/smg-memory/smg/spec"
)

// Fact is a fact given to be remembered, by a person or by a model's
// save_memory call ([Builder.Remember]).
type Fact struct {
	// Content is the fact. One in the first person is rewritten in the
	// third: "I prefer dark mode" is kept as "User prefers dark mode".
	Content string
	// Category is identity, preference, relationship, project or
	// context; empty, the category the content's cues suggest, or
	// context.
	Category string
	// Scope is whose fact it is (spec §6.1.2: "user", "user:dana",
	// "workspace:crawler"); empty, the memory's own scope, or "user".
	Scope string
	// Source is who saved it: spec.SourceUser or spec.SourceAI (the
	// default).
	Source string
	// Reasoning is why it was saved, kept in the node's metadata.
	Reasoning string
	// CreatedBy names what created it, like "save_memory"; empty, "smg".
	CreatedBy string
	// Pinned: always loaded into context.
	Pinned bool
}

// ErrInvalidFact is wrapped by the [*FactError] of a fact that cannot be
// saved; ErrNoNode by the error of an id the memory does not hold;
// ErrArtifactNode by that of forgetting an artifact's node.
var (
	ErrInvalidFact  = errors.New("invalid fact")
	ErrNoNode       = errors.New("no such node")
	ErrArtifactNode = errors.New("an artifact's node goes only with its artifact")
)

// FactError says what is wrong with a fact, in words a model can act on.
type FactError struct {
	// Field is content, category or scope.
	Field   string
	Message string
}

func (e *FactError) Error() string { return "fact " + e.Field + ": " + e.Message }

func (e *FactError) Unwrap() error { return ErrInvalidFact }

// Remembered is what [Builder.Remember] did.
type Remembered struct {
	// Fact is the fact saved, or, for a duplicate, the fact the memory
	// already holds, with its importance computed.
	Fact spec.Node `json:"fact"`
	// Duplicate: the memory already held the fact; nothing changed.
	Duplicate bool `json:"duplicate"`
	// Similarity is how close a duplicate is to the fact given (1 for
	// the same words), as [classify.Similarity] measures it.
	Similarity float64 `json:"similarity"`
	// Supersedes are the facts the new one replaced: their validity ends
	// when it begins.
	Supersedes []string `json:"supersedes"`
}

// DuplicateSimilarity is the least [classify.Similarity] at which a fact
// is taken for one the memory holds: their terms, without the subject,
// the verbs of liking and the generic nouns, must be nearly the same ("User
// likes TypeScript" and "User prefers using TypeScript for all projects"
// both come to "typescript"; 2 terms of 3 shared give 0.8, 3 of 5 give
// 0.75), and the names and numbers they hold the same. The same terms said the other way round ("User dislikes
// TypeScript") are a contradiction, not a duplicate.
const DuplicateSimilarity = 0.8

// closeFacts compares the statements of two facts: sim is their
// similarity, and near tells whether they say the same of the same
// things, either way round (a fact and its negation are close): the same
// names and numbers ("User's daughter is 5" is not "… is 7") and a
// similarity of at least DuplicateSimilarity.
func closeFacts(a, c classify.Statement) (sim float64, near bool) {
	if !slices.Equal(a.Keys, c.Keys) {
		return 0, false
	}
	sim = classify.Similarity(a, c)
	return sim, sim >= DuplicateSimilarity
}

// The subject of a remembered fact in the third person.
const FactSubject = "User"

// Remember saves a fact, at time at (zero: the builder's clock). A fact the
// memory already holds in the same scope, current and of the same
// polarity, is a duplicate: nothing changes. A fact that contradicts a
// current one (its negation; another value of what a person can have only
// one of: where they live, where they work, their name) supersedes it:
// the old fact's validity ends and a supersedes edge links the new one to
// it, so that history stays. A fact that cannot be saved is a
// [*FactError].
func (b *Builder) Remember(f Fact, at time.Time) (Remembered, error) {
	content := strings.Join(strings.Fields(f.Content), " ")
	if !utf8.ValidString(content) {
		return Remembered{}, &FactError{"content", "is not valid UTF-8"}
	}
	if n := utf8.RuneCountInString(content); n > b.cfg.FactMaxChars {
		return Remembered{}, b.lengthError(n, "")
	}
	category := strings.ToLower(strings.TrimSpace(f.Category))
	if category != "" && !slices.Contains(spec.FactCategories, category) {
		return Remembered{}, &FactError{"category", fmt.Sprintf("%q is not a category; use one of %s", f.Category, strings.Join(spec.FactCategories, ", "))}
	}
	scope := strings.TrimSpace(f.Scope)
	if scope == "" {
		scope = b.DefaultScope()
	}
	if err := spec.CheckFactScope(scope); err != nil {
		return Remembered{}, &FactError{"scope", err.Error()}
	}
	source := f.Source
	switch source {
	case "":
		source = spec.SourceAI
	case spec.SourceAI, spec.SourceUser:
	default:
		return Remembered{}, &FactError{"source", fmt.Sprintf("%q is not a source; use %s or %s", f.Source, spec.SourceUser, spec.SourceAI)}
	}
	// The length of the fact as saved, in the third person: "I use
	// vim" is "User uses vim".
	st := b.an.Statement(content, FactSubject)
	if err := b.checkLength(st.Text); err != nil {
		return Remembered{}, err
	}
	subject := factSubject(st.Text)
	if category == "" && st.Category == "" && subject != FactSubject {
		// About someone named: the category's cues read "Ana lives in
		// Lisbon" as "I live in Lisbon" would be read.
		category = b.an.Statement(content, subject).Category
	}
	if category == "" {
		category = cmp.Or(st.Category, spec.CategoryContext)
	}
	if at.IsZero() {
		at = b.now().UTC().Truncate(time.Second)
	}

	var supersede []string
	for _, id := range b.currentFacts(scope) {
		old := b.statementOf(id)
		sim, near := closeFacts(st, old)
		switch {
		case near && st.Negative == old.Negative:
			return Remembered{Fact: b.factNode(id), Duplicate: true, Similarity: round4(sim)}, nil
		case near:
			supersede = append(supersede, id)
		}
	}
	pred := predicateKey(scope, st.Text, subject)
	if pred != "" {
		for _, id := range b.factPreds[pred] {
			if n := b.store.Node(id); n != nil && n.ValidTo.IsZero() && !slices.Contains(supersede, id) {
				supersede = append(supersede, id)
			}
		}
	}

	key := string(spec.NodeFact) + ":" + NameKey(st.Text)
	if id := b.ents.byKey[key]; id != "" && b.store.Node(id).Scope != scope {
		key = string(spec.NodeFact) + "@" + scope + ":" + NameKey(st.Text) // the same words, of another scope
	}
	id := b.ents.byKey[key]
	var n *spec.Node
	if id == "" {
		id = b.newID(string(spec.NodeFact), firstWords(st.Text, 8), key)
		b.ents.byKey[key] = id
		n = b.create(id, spec.NodeFact, "")
	} else {
		// The same words, said before and superseded since: valid again.
		n = b.store.Node(id)
		n.ValidTo = time.Time{}
		n.Version++
	}
	n.Label = clipLabel(st.Text)
	if n.Label != st.Text {
		n.Description = st.Text
	}
	n.Category, n.Scope, n.Source = category, scope, source
	n.CreatedBy = cmp.Or(f.CreatedBy, "smg")
	n.Confidence = 0.9
	if source == spec.SourceUser {
		n.Confidence = 1
	}
	n.Pinned = n.Pinned || f.Pinned
	n.ValidFrom = at
	md := map[string]any{"remembered": true}
	if st.Specific {
		md["specific"] = true
	}
	if st.Vague {
		md["vague"] = true
	}
	if r := strings.TrimSpace(f.Reasoning); r != "" {
		md["reasoning"] = r
	}
	n.Metadata = md
	// No mention: no turn said it, and a context must not take the last
	// turn for its source.
	info := b.info[id]
	info.predicate, info.statement = pred, &st
	if pred != "" && !slices.Contains(b.factPreds[pred], id) {
		b.factPreds[pred] = append(b.factPreds[pred], id)
	}
	for _, c := range b.conceptsNamed(st.Text) {
		b.store.Link(id, c, spec.RelAbout, aboutMentioned)
	}
	for _, old := range supersede {
		if old == id {
			continue
		}
		b.supersede(id, old, at)
	}
	slices.Sort(supersede)
	supersede = slices.DeleteFunc(supersede, func(s string) bool { return s == id })
	b.touchMeta(at)
	return Remembered{Fact: b.factNode(id), Supersedes: supersede}, nil
}

// checkLength checks the length of a fact as it is saved.
func (b *Builder) checkLength(text string) error {
	if n := utf8.RuneCountInString(text); n < b.cfg.FactMinChars || n > b.cfg.FactMaxChars {
		return b.lengthError(n, text)
	}
	return nil
}

// lengthError is the error of a fact of n characters, text as saved
// (quoted when short) or "" for the text as given.
func (b *Builder) lengthError(n int, text string) *FactError {
	what := "is"
	if text != "" && n < b.cfg.FactMinChars {
		what = fmt.Sprintf("saved as %q, is", text)
	} else if text != "" {
		what = "saved in the third person, is"
	}
	return &FactError{"content", fmt.Sprintf("%s %d characters long; a fact takes %d to %d: one self-contained sentence that says who or what it is about", what, n, b.cfg.FactMinChars, b.cfg.FactMaxChars)}
}

// Scope is whose memory this is (spec §4.3), or nil.
func (b *Builder) Scope() *spec.Scope { return b.meta.Scope }

// DefaultScope is the scope of a fact saved without one: the memory's own
// scope (spec §4.3), or "user".
func (b *Builder) DefaultScope() string {
	if s := b.meta.Scope.FactScope(); s != "" {
		return s
	}
	return spec.ScopeUser
}

// EditFact rewrites a fact's content, as [Builder.Remember] would save it.
// The old text is kept in the node's previousSummaries (at most
// spec.MaxPreviousSummaries, the oldest dropped) and its version goes up.
func (b *Builder) EditFact(id, content string, at time.Time) (spec.Node, error) {
	n := b.store.Node(id)
	if n == nil || n.Type != spec.NodeFact {
		return spec.Node{}, fmt.Errorf("%w: no fact %q", ErrNoNode, id)
	}
	content = strings.Join(strings.Fields(content), " ")
	if !utf8.ValidString(content) {
		return spec.Node{}, &FactError{"content", "is not valid UTF-8"}
	}
	if n := utf8.RuneCountInString(content); n > b.cfg.FactMaxChars {
		return spec.Node{}, b.lengthError(n, "")
	}
	if at.IsZero() {
		at = b.now().UTC().Truncate(time.Second)
	}
	st := b.an.Statement(content, FactSubject)
	if err := b.checkLength(st.Text); err != nil {
		return spec.Node{}, err
	}
	old := FactText(n)
	if old == st.Text {
		return b.factNode(id), nil
	}
	n.PreviousSummaries = append(n.PreviousSummaries, spec.PreviousSummary{Version: n.Version, Text: old, ReplacedAt: at})
	if k := len(n.PreviousSummaries) - spec.MaxPreviousSummaries; k > 0 {
		n.PreviousSummaries = slices.Delete(n.PreviousSummaries, 0, k)
	}
	n.Version++
	n.Label, n.Description = clipLabel(st.Text), ""
	if n.Label != st.Text {
		n.Description = st.Text
	}
	b.info[id].statement, b.info[id].topic = &st, nil
	b.touchMeta(at)
	return b.factNode(id), nil
}

// Forgotten is what [Builder.Forget] did.
type Forgotten struct {
	// ID is the node removed.
	ID string `json:"id"`
	// Restored are the nodes that the removed one, being current,
	// superseded, and that no other current node supersedes: current
	// again, as they were before it replaced them. In id order.
	Restored []string `json:"restored,omitempty"`
}

// Forget removes a node and its edges. What the node, being current,
// superseded (a fact, a decision) is current again, unless another
// current node supersedes it too: forgetting "User lives in Berlin"
// brings back "User lives in Paris". An artifact node goes with its
// artifact, not alone: forgetting one is an error that wraps
// ErrArtifactNode.
func (b *Builder) Forget(id string, at time.Time) (Forgotten, error) {
	n := b.store.Node(id)
	if n == nil {
		return Forgotten{}, fmt.Errorf("%w: %q", ErrNoNode, id)
	}
	if n.Type == spec.NodeArtifact {
		return Forgotten{}, fmt.Errorf("%q is the node of artifact %s: %w", id, n.ArtifactID, ErrArtifactNode)
	}
	var restore []string
	if n.ValidTo.IsZero() {
		for _, old := range b.store.Out(id) {
			o := b.store.Node(old)
			if _, ok := b.store.Strength(id, old, spec.RelSupersedes); ok && o != nil && !o.ValidTo.IsZero() && !b.supersededBy(old, id) {
				restore = append(restore, old)
			}
		}
	}
	b.remove(id)
	for _, old := range restore {
		o := b.store.Node(old)
		o.ValidTo = time.Time{}
		o.Version++
	}
	if at.IsZero() {
		at = b.now().UTC().Truncate(time.Second)
	}
	b.touchMeta(at)
	return Forgotten{ID: id, Restored: restore}, nil
}

// supersededBy tells whether a current node other than but supersedes id.
func (b *Builder) supersededBy(id, but string) bool {
	for _, from := range b.store.In(id) {
		if _, ok := b.store.Strength(from, id, spec.RelSupersedes); ok && from != but {
			if n := b.store.Node(from); n != nil && n.ValidTo.IsZero() {
				return true
			}
		}
	}
	return false
}

// ClearFacts forgets every fact within scope ("user" clears "user:dana"
// too; "" clears all) and returns their ids.
func (b *Builder) ClearFacts(scope string, at time.Time) []string {
	var gone []string
	for _, id := range b.store.IDs() {
		n := b.store.Node(id)
		if n.Type == spec.NodeFact && (scope == "" || spec.InScopes(n.Scope, []string{scope})) {
			gone = append(gone, id)
		}
	}
	for _, id := range gone {
		b.remove(id)
	}
	if len(gone) > 0 {
		if at.IsZero() {
			at = b.now().UTC().Truncate(time.Second)
		}
		b.touchMeta(at)
	}
	return gone
}

// Pin sets whether a node is pinned: always loaded into context, at full
// activation.
func (b *Builder) Pin(id string, pinned bool, at time.Time) error {
	n := b.store.Node(id)
	if n == nil {
		return fmt.Errorf("%w: %q", ErrNoNode, id)
	}
	if n.Pinned != pinned {
		n.Pinned = pinned
		if at.IsZero() {
			at = b.now().UTC().Truncate(time.Second)
		}
		b.touchMeta(at)
	}
	return nil
}

// remove deletes a node, its edges, and what the builder keeps of it.
func (b *Builder) remove(id string) {
	b.store.Remove(id)
	delete(b.info, id)
	for k, v := range b.ents.byKey {
		if v == id {
			b.ents.forget(k)
		}
	}
	for k, v := range b.decisionKeys {
		if v == id {
			delete(b.decisionKeys, k)
		}
	}
	for k, ids := range b.factPreds {
		b.factPreds[k] = slices.DeleteFunc(ids, func(s string) bool { return s == id })
	}
	b.openProblems = slices.DeleteFunc(b.openProblems, func(s string) bool { return s == id })
	b.lastAsked.ids = slices.DeleteFunc(b.lastAsked.ids, func(s string) bool { return s == id })
	if b.lastDecision.id == id {
		b.lastDecision.id = ""
	}
}

// touchMeta records a change made at time at.
func (b *Builder) touchMeta(at time.Time) {
	if at.After(b.meta.Modified) {
		b.meta.Modified = at
	}
	if b.meta.Created.IsZero() {
		b.meta.Created = at
	}
}

// ScopeFacts are copies of the current facts of exactly scope, in id
// order, with their importance: what a duplicate test compares a new fact
// with, without the cost of a whole [Builder.Document].
func (b *Builder) ScopeFacts(scope string) []spec.Node {
	ids := b.currentFacts(scope)
	out := make([]spec.Node, 0, len(ids))
	for _, id := range ids {
		out = append(out, b.factNode(id))
	}
	return out
}

// currentFacts are the ids of the facts of scope whose validity has not
// ended, in id order.
func (b *Builder) currentFacts(scope string) []string {
	var out []string
	for _, id := range b.store.IDs() {
		n := b.store.Node(id)
		if n.Type == spec.NodeFact && n.Scope == scope && n.ValidTo.IsZero() {
			out = append(out, id)
		}
	}
	return out
}

// statementOf is how classify reads a fact of the graph, read once.
func (b *Builder) statementOf(id string) classify.Statement {
	info := b.info[id]
	if info.statement == nil {
		st := b.an.Statement(FactText(b.store.Node(id)), FactSubject)
		info.statement = &st
	}
	return *info.statement
}

// FactText is a fact's whole text: its label, or its description when the
// label is the description cut short. (A fact found in a turn has for
// description the sentence as written, in the first person.)
func FactText(n *spec.Node) string {
	if n.Description != "" && n.Label != n.Description && strings.HasPrefix(n.Description, strings.TrimSuffix(n.Label, "…")) {
		return n.Description
	}
	return n.Label
}

// conceptsNamed are the concepts whose keys are terms, or pairs of
// consecutive terms, of text.
func (b *Builder) conceptsNamed(text string) []string {
	terms := b.an.Terms(text)
	var out []string
	add := func(key string) {
		if id := b.ents.byKey[key]; id != "" && !slices.Contains(out, id) {
			if n := b.store.Node(id); n != nil && n.Type == spec.NodeConcept {
				out = append(out, id)
			}
		}
	}
	for i, t := range terms {
		add("name:" + t)
		if i+1 < len(terms) {
			add("name:" + t + " " + terms[i+1])
		}
	}
	return out
}

// factNode is a copy of a fact with its importance computed.
func (b *Builder) factNode(id string) spec.Node {
	n := *b.store.Node(id)
	n.Mentions = slices.Clone(n.Mentions)
	n.Metadata = cloneMap(n.Metadata)
	n.PreviousSummaries = slices.Clone(n.PreviousSummaries)
	n.Importance = b.factImportance(&n)
	return n
}

// factImportance is a fact's importance: its category and boosts (spec
// §6.3).
func (b *Builder) factImportance(n *spec.Node) float64 {
	return round4(b.cfg.Weights.FactScore(importance.Fact{
		Category: n.Category,
		Remember: n.Source == spec.SourceUser,
		Specific: n.Metadata["specific"] == true,
		Vague:    n.Metadata["vague"] == true,
	}))
}

// FactFilter selects facts ([Facts]). The zero value selects the current
// facts of every scope.
type FactFilter struct {
	// Scopes: facts of these scopes, or within them ("user" holds
	// "user:dana"); none, every scope.
	Scopes []string
	// Category: facts of this category only.
	Category string
	// Superseded: the facts whose validity has ended too.
	Superseded bool
	// Pinned: pinned facts only.
	Pinned bool
}

// Facts returns the facts of doc that f selects: by category, from the
// most important (identity) to the least (context), then by importance,
// then by id.
func Facts(doc *spec.Document, f FactFilter) []spec.Node {
	var out []spec.Node
	for _, n := range doc.SemanticGraph.Nodes {
		if n.Type != spec.NodeFact || !spec.InScopes(n.Scope, f.Scopes) ||
			f.Category != "" && n.Category != f.Category ||
			!f.Superseded && !n.ValidTo.IsZero() || f.Pinned && !n.Pinned {
			continue
		}
		out = append(out, n)
	}
	rank := func(c string) int {
		if i := slices.Index(spec.FactCategories, c); i >= 0 {
			return i
		}
		return len(spec.FactCategories)
	}
	slices.SortStableFunc(out, func(a, b spec.Node) int {
		return cmp.Or(cmp.Compare(rank(a.Category), rank(b.Category)), cmp.Compare(b.Importance, a.Importance), strings.Compare(a.ID, b.ID))
	})
	return out
}
