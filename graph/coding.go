package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/smg-memory/smg/classify"
	"github.com/smg-memory/smg/spec"
)

// A coding session is a history of the work (issue 36): what the user
// asked, the changes the agent made for it (a commit, or the edits its
// tool applied), to which files, and the problems they fixed. A request is
// a fact of kind request; a change a solution of kind change, linked from
// its request (resulted_in), to the files it changed (about), and to the
// problems reported with the request (solves). The session is a coding
// agent's once its tool applies an edit or makes a commit: a request made
// before that is kept until then.

// askWindow is how many of a chat's first turns are read for requests
// before a coding agent's tool speaks: a session that starts with asks
// keeps them; a chat with an assistant is not read for them after.
const askWindow = 64

// editWindow is how many turns back a change looks for the agent's turn
// that holds its edits.
const editWindow = 3

// codingState is what the builder knows of a coding session.
type codingState struct {
	// On: the session is a coding agent's: its tool applied an edit or
	// made a commit. Agent: a tool has spoken, or a turn wrote an edit
	// block.
	On, Agent bool
	// Request is the node of the latest request. Pending are the
	// requests made since the session was last known to be one (the
	// latest last), each made a node once it is.
	Request string
	Pending []Pending
	// Problems are the problems reported since the latest request.
	Problems []string
	// EditTurn is the agent's latest turn that edited files, Edited the
	// artifact nodes of the files it edited.
	EditTurn int
	Edited   []string
	// Changes are the change nodes by commit hash.
	Changes map[string]string
	// EditWhy is what the agent's latest turn that edited files said
	// before its first edit, EditSaid what its edits change when they
	// are small; NoEdit, its edits change nothing.
	EditWhy, EditSaid string
	NoEdit            bool
	// Asked are the latest requests, by their terms: one asked again in
	// other words is the same request.
	Asked []Asked
}

// Pending is a request not yet made a node: its text and turn.
type Pending struct {
	Text string
	Turn int
}

// maxPending bounds the requests a session keeps before it is known to be
// a coding agent's: those before are not kept.
const maxPending = 32

// Asked is a request made, by its node and its analyzed terms.
type Asked struct {
	ID    string
	Terms []string
}

// maxAsked is how many of the latest requests a new one is compared with;
// askedAgain, the share of the shorter's terms two requests share when
// one asks again for the other.
const (
	maxAsked   = 64
	askedAgain = 0.75
)

// again is the node of a recent request that terms ask for again, or "".
func (c *codingState) again(terms []string) string {
	if len(terms) == 0 {
		return ""
	}
	for i := len(c.Asked) - 1; i >= 0; i-- {
		a := c.Asked[i]
		shared := 0
		for _, t := range terms {
			if slices.Contains(a.Terms, t) {
				shared++
			}
		}
		shorter := terms
		if len(a.Terms) < len(terms) {
			shorter = a.Terms
		}
		short := len(shorter)
		if shared == len(terms) && shared == len(a.Terms) || shared >= 2 && float64(shared) >= askedAgain*float64(short) ||
			shared == short && max(len(terms), len(a.Terms)) <= short+1 && slices.ContainsFunc(shorter, isFileTerm) {
			// The same words, most of them, or the same file with a word
			// more ("fix the error in a.ts", "fix the backend error in
			// a.ts").
			return a.ID
		}
	}
	return ""
}

// isFileTerm reports whether an analyzed term is a file's name or path.
func isFileTerm(t string) bool { return strings.ContainsAny(t, "./\\") }

// coding puts what a turn says of a coding session into the graph: a
// user's request, an agent's edits, its tool's commits. arts are the
// artifact nodes of the turn.
func (b *Builder) coding(ts *turnState, s classify.Signals, arts []string) {
	c := &b.code
	switch ts.t.Role {
	case spec.RoleUser:
		if s.Role == spec.RoleAssistant {
			return // a relay of the agent's own words
		}
		if s.Request == nil {
			if len(s.Problems) > 0 {
				c.Problems = append(c.Problems, b.fixable(ts)...)
			}
			return
		}
		c.Problems = b.fixable(ts)
		c.Request = ""
		if c.Pending = append(c.Pending, Pending{strings.Clone(s.Request.Text), ts.turn}); len(c.Pending) > maxPending {
			c.Pending = slices.Delete(c.Pending, 0, len(c.Pending)-maxPending)
		}
		if c.On {
			b.request()
		}
	case spec.RoleAssistant:
		var files []string
		for _, id := range arts {
			if b.store.Node(id).Label != "" && b.vault.isFile(b.store.Node(id).ArtifactID) {
				files = append(files, id)
			}
		}
		if slices.ContainsFunc(s.Artifacts, func(a classify.Artifact) bool { return a.Edit != nil }) {
			c.Agent = true // an edit block: an agent's (a chat's assistant shows files)
		}
		if len(files) > 0 && edits(s.Artifacts) {
			c.EditTurn, c.Edited = ts.turn, files
			c.EditWhy = strings.Clone(classify.EditWhy(ts.t.Content, s.Artifacts))
			c.EditSaid = strings.Clone(classify.EditSentence(s.Artifacts))
			c.NoEdit = classify.NoEdit(s.Artifacts)
		}
	case spec.RoleTool:
		c.Agent = true
		if len(s.Applied) > 0 || len(s.Commits) > 0 || len(s.Undone) > 0 {
			c.On = true
			b.changes(ts, s)
		}
		// What the tool reports after its commits (a lint run, a failed
		// build) is what the next change fixes.
		c.Problems = append(c.Problems, b.fixable(ts)...)
	}
}

// changes makes the changes a tool's turn tells: its commits, the edits
// it applied without one, the commits it undid.
func (b *Builder) changes(ts *turnState, s classify.Signals) {
	c := &b.code
	for _, cm := range s.Commits {
		b.change(ts, cm)
	}
	if len(s.Uncommitted) > 0 {
		b.change(ts, classify.Commit{Files: s.Uncommitted})
	}
	for _, u := range s.Undone {
		// Undoing a commit is a change of its own, which ends the one it
		// undid.
		if id := c.Changes[u.Hash]; id != "" {
			if n := b.store.Node(id); n.ValidTo.IsZero() {
				n.ValidTo = ts.t.Timestamp
			}
			c.Problems = append(c.Problems, b.unsolve(id)...)
		}
		b.change(ts, classify.Commit{Message: "Undid " + u.Hash + ": " + u.Message, Own: true, Files: b.changeFiles(c.Changes[u.Hash])})
	}
}

// unsolve makes a change undone no fix: what it solved is open again, and
// returned.
func (b *Builder) unsolve(id string) []string {
	delete(b.store.Node(id).Metadata, "fixes")
	var open []string
	for _, to := range b.store.Out(id) {
		if _, ok := b.store.Strength(id, to, spec.RelSolves); ok {
			open = append(open, to)
		}
	}
	for _, p := range open {
		b.store.Unlink(id, p, spec.RelSolves)
		if !slices.Contains(b.openProblems, p) {
			b.openProblems = append(b.openProblems, p)
		}
	}
	return open
}

// edits reports whether a turn's artifacts edit files: an edit block, or
// a file written whole.
func edits(arts []classify.Artifact) bool {
	return slices.ContainsFunc(arts, func(a classify.Artifact) bool { return a.Edit != nil || a.Filename != "" })
}

// fixable are the problems the turn being applied touched that a change
// of the code may fix: not those of the agent's own set-up (its model's
// provider refused the call).
func (b *Builder) fixable(ts *turnState) []string {
	return slices.DeleteFunc(b.turnNodes(ts, spec.NodeProblem), func(id string) bool { return b.store.Node(id).Metadata["setup"] == true })
}

// turnNodes are the nodes of type typ the turn being applied touched.
func (b *Builder) turnNodes(ts *turnState, typ spec.NodeType) []string {
	var out []string
	for _, id := range ts.touched {
		if b.store.Node(id).Type == typ {
			out = append(out, id)
		}
	}
	return out
}

// request makes the nodes of the pending requests, each at its turn, and
// returns the latest request's; "" when there is none. A request asked
// again, in other words, is the same request, now of its turn too.
func (b *Builder) request() string {
	c := &b.code
	for _, p := range c.Pending {
		terms := b.an.AskTerms(p.Text)
		id := c.again(terms)
		if id == "" {
			text := capitalize(p.Text)
			var n *spec.Node
			id, n = b.statement(spec.NodeFact, "request:"+text, text)
			if n != nil {
				n.Description = strings.Clone(p.Text)
				n.Category, n.Scope, n.Source, n.CreatedBy = spec.CategoryProject, "user", spec.SourceAI, "smg"
				n.Confidence = 0.9
				n.ValidFrom = b.times[p.Turn-1]
				n.Kind = spec.KindRequest
			}
			if c.Asked = append(c.Asked, Asked{ID: id, Terms: terms}); len(c.Asked) > maxAsked {
				c.Asked = slices.Delete(c.Asked, 0, len(c.Asked)-maxAsked)
			}
		}
		b.mention(id, p.Turn)
		c.Request = id
	}
	c.Pending = nil
	return c.Request
}

// changeFiles are the files a change node changed, by its metadata.
func (b *Builder) changeFiles(id string) []string {
	if id == "" {
		return nil
	}
	var out []string
	fs, _ := b.store.Node(id).Metadata["files"].([]any)
	for _, f := range fs {
		if p, ok := f.(string); ok {
			out = append(out, p)
		}
	}
	return out
}

// change makes the node of a change: a commit, or (no hash) the edits the
// tool applied without one, to cm.Files. A change the agent made is its
// turn that holds the edits, which the tool's confirms; one of the user's
// own edits (Own), or an undo, is the tool's turn.
func (b *Builder) change(ts *turnState, cm classify.Commit) {
	c := &b.code
	if c.Changes == nil {
		c.Changes = map[string]string{}
	}
	applied := cm.Files
	var files []string
	for _, p := range applied {
		if vid := b.vault.byFile[p]; vid != "" && b.vault.node[vid] != "" {
			files = append(files, b.vault.node[vid])
		}
	}
	editTurn := 0
	if !cm.Own && c.EditTurn > 0 && ts.turn-c.EditTurn <= editWindow {
		editTurn = c.EditTurn
		if len(files) == 0 {
			files = c.Edited
		}
	}
	if editTurn > 0 && c.NoEdit && cm.Hash == "" {
		return // edits that change nothing
	}
	// A change solves the problems reported with its request, unless it
	// is the user's own, an undo, or by what it says fixes nothing; one
	// whose commit says it fixes does. One its commit types as a feature
	// or a tidying fixes only what was reported, not what its message,
	// the request or the agent's words call trouble.
	said := cm.Message
	if editTurn > 0 {
		said += " " + c.EditWhy
	}
	req := b.request()
	asked := ""
	if req != "" {
		asked = b.store.Node(req).Description
	}
	// A feature's or a tidying's commit that bundles several pieces of
	// work is work of its own, not the fix of what was reported.
	problems := c.Problems
	if classify.Tidies(cm.Message) && classify.Bundles(cm.Message) {
		problems = nil
	}
	// What fixes nothing (logging, error handling) is read in the
	// commit's message, which says what the change is, and in the
	// agent's words only without one: "remove the parameter and handle
	// errors differently" is a fix its commit names.
	what := cm.Message
	if what == "" {
		what = said
	}
	solved := !cm.Own && !classify.FixesNothing(what) && (len(problems) > 0 || !classify.Tidies(cm.Message) && (classify.CommitFixes(cm.Message) || classify.AsksFix(asked) || classify.SaysFix(said)))
	// It is a solution, one of what the memory knows fixed something, when
	// it says what it changed: its commit's message, or the agent's
	// words. Edits that say nothing ("Edited a.ts") solve the problem
	// they fixed all the same.
	stated := cm.Message != ""
	label := cm.Message
	key := "change:" + cm.Hash + ":" + label
	if label == "" {
		// Edits applied without a commit: named by the files and what
		// the agent said of them, one change a turn.
		label = "Edited " + joinNames(applied)
		why := classify.ChangeSentence(c.EditWhy)
		if why == "" && len(label)+len(": ")+len(c.EditSaid) <= maxLabel {
			why = c.EditSaid // the lines it changed, when the label holds them whole
		}
		if editTurn > 0 && why != "" {
			label += ": " + why
			stated = true
		} else if solved && len(problems) > 0 {
			// What it fixed says which change it was.
			label += " to fix: " + b.store.Node(problems[0]).Label
		}
		key = fmt.Sprintf("change:%d:%s", ts.turn, label)
	}
	if cm.Hash != "" && c.Changes[cm.Hash] != "" {
		return // the same commit, told again
	}
	fixes := solved && stated
	id, n := b.statement(spec.NodeSolution, key, clipLabel(label))
	if n != nil {
		desc := "Changed " + joinNames(applied)
		if len(applied) == 0 {
			desc = "A change"
		}
		if cm.Hash != "" {
			desc += " (commit " + cm.Hash + ")"
		}
		n.Description = strings.Clone(desc + ": " + cm.Message)
		if cm.Message == "" {
			n.Description = strings.Clone(desc + ".")
		}
		if editTurn > 0 && c.EditWhy != "" {
			n.Description += " " + c.EditWhy
		}
		n.Confidence = 0.9
		n.ValidFrom = ts.t.Timestamp
		n.Kind = spec.KindChange
		md := map[string]any{}
		if cm.Hash != "" {
			md["commit"] = strings.Clone(cm.Hash)
		}
		if fixes {
			md["fixes"] = true // what fixed something: a solution
		}
		if len(applied) > 0 {
			var ps []any
			for _, p := range applied {
				ps = append(ps, strings.Clone(p))
			}
			md["files"] = ps
		}
		if len(md) > 0 {
			n.Metadata = md
		}
	}
	if cm.Hash != "" {
		c.Changes[cm.Hash] = id
	}
	// The change is the agent's turn that holds its edits, which the
	// tool's confirms.
	if editTurn > 0 {
		b.mention(id, editTurn)
	}
	b.mention(id, ts.turn)
	if req != "" {
		b.store.Link(req, id, spec.RelResultedIn, resultedIn)
	}
	for _, f := range files {
		b.store.Link(id, f, spec.RelAbout, about)
		b.info[f].artifactRel = true
	}
	if solved {
		for _, p := range problems {
			b.store.Link(id, p, spec.RelSolves, solves)
			b.openProblems = slices.DeleteFunc(b.openProblems, func(x string) bool { return x == p })
		}
		c.Problems = nil // solved: the next change fixes what is reported next
	}
}

// joinNames is the base names of paths, for people: "a.go, b.go and c.go".
func joinNames(paths []string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = p[strings.LastIndexByte(p, '/')+1:]
	}
	switch len(names) {
	case 0:
		return "files"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
