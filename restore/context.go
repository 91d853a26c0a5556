package restore

import (
	"context"
	"time"
)

// Options shape a context. The zero value is a context of DefaultBudget
// tokens counted by the estimator, with the default allocation.
type Options struct {
	// Budget is the most tokens the context may take, as Tokenizer
	// counts them.
	Budget int
	// Tokenizer counts tokens; nil is the estimator.
	Tokenizer Tokenizer
	// Allocation shares the budget between the sections; the zero value
	// is DefaultAllocation.
	Allocation Allocation
	// Wait waits for the turns to be indexed, when they are being
	// indexed in the background; without it, the context is built from
	// what is indexed so far, and says so (Result.Partial).
	Wait bool
	// Scopes are the scopes whose facts may go in: a fact of one of
	// them, or within one ("user" holds "user:dana"). None: every
	// scope.
	Scopes []string
	// FactBudget is the most tokens facts may take, whatever their
	// section: zero is DefaultFactBudget, a negative number no bound
	// but the sections'.
	FactBudget int
	// Left is how many of the candidates that did not go in for lack of
	// room the result tells (Result.Left), best first; none when 0.
	Left int
	// At, when set, answers from what the memory held then: the turns
	// said by then, the nodes that existed, current as they were (a fact
	// superseded later is current, one stated later is not there), and
	// no working memory, which is of now.
	At time.Time
}

// DefaultFactBudget is the most tokens facts take in a context, unless
// Options.FactBudget says otherwise.
const DefaultFactBudget = 500

// DefaultBudget is the budget of a zero Options.
const DefaultBudget = 1000

// Allocation is the share of the budget each part of a context may take
// at most; what one part leaves unused goes to the others, in the order
// knowledge, history, artifacts, working memory. Margin is kept unused
// when the tokenizer is an estimate, and given to the others otherwise.
type Allocation struct {
	Working, Knowledge, Artifacts, History, Margin float64
}

// DefaultAllocation: working memory and the facts always loaded 10%, the
// graph's knowledge 10%, artifacts 10%, turns from the archive 60%, and a
// margin of 10%. Turns get the most because they are the evidence: on the
// LoCoMo dev conversations at 1,000 tokens, moving 30% from knowledge and
// working memory to turns raised evidence recall from 0.70 to 0.74, and
// 5% more from knowledge to turns raised it by 0.008 (0.014 multi-hop),
// on both the conversations tuned on and those checked on.
var DefaultAllocation = Allocation{Working: 0.10, Knowledge: 0.10, Artifacts: 0.10, History: 0.60, Margin: 0.10}

// Result is a context and its provenance.
type Result struct {
	// Text is the context, in sections ("## Standing instructions that
	// apply", "## Working memory", "## About This User", "## About This
	// Workspace", "## Relevant knowledge", "## Decisions", "## Artifacts",
	// "## The chat's course" for a question that spans the chat, "## From
	// earlier conversations").
	Text string `json:"text"`
	// Tokens is the size of Text as Tokenizer counts it; at most Budget.
	Tokens    int    `json:"tokens"`
	Budget    int    `json:"budget"`
	Tokenizer string `json:"tokenizer"`
	// Partial tells that the turns were still being indexed: turns not
	// yet indexed could not be found.
	Partial bool `json:"partial,omitempty"`
	// Warnings tell what an optional provider could not do (the
	// question could not be embedded, say): the context was built
	// without it.
	Warnings []string `json:"warnings,omitempty"`
	// Items are what went in, in the order of Text.
	Items []Item `json:"items"`
	// Left are the best of what was found but did not go in for lack of
	// room, up to Options.Left, with the start of their text: what a
	// larger budget would have added.
	Left []Item `json:"left,omitempty"`
}

// Item is one thing a context includes, and why.
type Item struct {
	// Section is the heading it is under; none for a search's.
	Section string `json:"section,omitempty"`
	// Memory names the memory it comes from, in a composed context
	// (Source.Name).
	Memory string `json:"memory,omitempty"`
	// Kind is summary, goal, node, turn or artifact.
	Kind   string `json:"kind"`
	NodeID string `json:"nodeId,omitempty"`
	// Label is the node's, for an item of a node.
	Label      string    `json:"label,omitempty"`
	Turn       int       `json:"turn,omitzero"`
	ExternalID string    `json:"externalId,omitempty"`
	Timestamp  time.Time `json:"timestamp,omitzero"`
	// Excerpt, when set, says that the item is an excerpt of the turn, not
	// all of it: the bytes of its content from Excerpt.Start to
	// Excerpt.End. A long turn is found and shown in passages.
	Excerpt    *Span  `json:"excerpt,omitempty"`
	ArtifactID string `json:"artifactId,omitempty"`
	Version    int    `json:"version,omitzero"`
	// SupersededBy, when set, says that what the item states is no
	// longer current: the node, or facts its turn stated, were
	// superseded, and by what. The item's line in the text says so too.
	SupersededBy []Supersession `json:"supersededBy,omitempty"`
	// ConflictsWith, when set, says that what the item states is
	// contradicted by another current node (the node, or facts its turn
	// stated): neither replaced the other, and a person should say which
	// holds. The item's line in the text says so too.
	ConflictsWith []Conflict `json:"conflictsWith,omitempty"`
	// Solves are the problems the item's node, a solution, solved;
	// SolvedBy the solutions that solved it, a problem: node ids. Files
	// are the versions of the files the change made, or the changes that
	// solved the problem. The item's line in the text says so too.
	Solves   []string      `json:"solves,omitempty"`
	SolvedBy []string      `json:"solvedBy,omitempty"`
	Files    []FileVersion `json:"files,omitempty"`
	// Text is what a search found: a node's label, a turn's content, a
	// block's summary. A context's items leave it out: their text is the
	// context's.
	Text string `json:"text,omitempty"`
	// Score is what ranked it; Parts what the score is made of (search,
	// graph, importance, activation, …).
	Score  float64            `json:"score"`
	Parts  map[string]float64 `json:"parts,omitempty"`
	Tokens int                `json:"tokens,omitzero"`
}

// Context assembles the context for query. The same document and query
// give the same context, once the turns are indexed.
func (e *Engine) Context(ctx context.Context, query string, opts Options) (*Result, error) {
	return Compose(ctx, query, opts, Source{Engine: e})
}

// Empty is the context of nothing, as opts would count it: no text, no
// items. opts may be nil.
func Empty(opts *Options) *Result {
	var o Options
	if opts != nil {
		o = *opts
	}
	tk, budget := o.counted()
	return &Result{Budget: budget, Tokenizer: tk.Name(), Items: []Item{}}
}

// counted is the tokenizer and the budget of o, defaults filled in.
func (o Options) counted() (Tokenizer, int) {
	tk := o.Tokenizer
	if tk == nil {
		tk = estimator{}
	}
	budget := o.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	return tk, budget
}
