package smg

import "github.com/smg-memory/smg/restore"

// Counting tokens: a context is packed under a budget of a model's tokens.
type (
	// Tokenizer counts tokens as a model does; [NewTokenizer] makes one.
	Tokenizer = restore.Tokenizer
)

// Tokenizer names, for [NewTokenizer].
const (
	CL100K   = restore.CL100K   // OpenAI's cl100k_base (GPT-4, GPT-3.5)
	O200K    = restore.O200K    // OpenAI's o200k_base (GPT-4o and later)
	Estimate = restore.Estimate // no model: a calibrated estimate
)

// Budgets of a context when [ContextOptions] leave them zero.
const (
	// DefaultBudget is the tokens of a whole context.
	DefaultBudget = restore.DefaultBudget
	// DefaultFactBudget is the most tokens its facts take.
	DefaultFactBudget = restore.DefaultFactBudget
)

// NewTokenizer returns the tokenizer of the given name: [CL100K], [O200K]
// or [Estimate]. Its tables are in the binary: nothing is downloaded.
func NewTokenizer(name string) (Tokenizer, error) { return restore.NewTokenizer(name) }

// Query is a query of the memory's graph in smg's query language, like
// "FIND decisions WHERE CURRENT" ([ParseQuery]); [Query.Run] runs it over a
// document.
type Query = restore.Query

// QueryError is a query that does not parse, or asks for what does not
// exist: where, and what is wrong there; [QueryError.Excerpt] shows it.
type QueryError = restore.QueryError

// ParseQuery parses a query of smg's query language; the error of a query
// that does not parse is a [*QueryError].
func ParseQuery(src string) (*Query, error) { return restore.ParseQuery(src) }
