package restore

import (
	"errors"
	"slices"
	"sort"
	"strings"

	"github.com/blevesearch/bleve/v2"

	"github.com/smg-memory/smg/restore/vec"
	"github.com/smg-memory/smg/spec"
)

// Standing instructions. A user's standing instruction ("Always include
// version numbers when I ask about software dependencies") is honoured
// when the question bears on it, and a question seldom names it: "Which
// libraries are used in this project?". A context gives the instructions
// that bear on its question a section of their own, first, so that the
// model that reads it knows which apply.
//
// An instruction bears on a question by meaning, when the memory has
// vectors of the question's model: the cosine of the question with the
// instruction's turn. Measured with the built-in encoder on beam-dev's
// questions (instruction_following against the rest), the cosine of the
// instruction a question follows is 0.27–0.66, that of the best
// instruction of the other questions 0.26 and up (median 0.35): no
// threshold tells them apart, but the instruction a question follows is
// the nearest in 18 of 20. So the nearest instruction applies when its
// cosine is at least instructionFloor, and any other at least
// instructionNear; at most maxInstructions.
//
// Without vectors, those that share at least instructionTerms distinct
// terms with the question apply, best first by BM25 over the
// instructions. One shared term is often chance ("sessions", "week"): on
// beam-dev, applying every instruction that shared one put 185 in the
// contexts of its 179 questions asked chat by chat, against 66 at two,
// with the same recall of the questions that follow an instruction; asked
// of the ten chats as one memory, 184 of other chats than the question's,
// against 29. They are searched for in an index of their own: the
// memory's best hits, in a memory of many chats, fill with documents that
// hold the question's terms more often, and hide them (as one memory:
// instruction_following 0.463 when the best hits had to hold them, 0.512
// now; chat by chat 0.613 both).
const (
	instructionFloor = 0.25
	instructionNear  = 0.40
	maxInstructions  = 2
	instructionTerms = 2
)

// secInstructions is the section of the standing instructions that bear
// on a question.
const secInstructions = "Standing instructions that apply"

// instructionIDs are the current standing instructions of the graph, in
// id order.
func instructionIDs(nodes map[string]*spec.Node) []string {
	var out []string
	for id, n := range nodes {
		if n.Kind == spec.KindInstruction && n.ValidTo.IsZero() {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// instructionsChanged drops the index of the instructions when their
// texts (nodeText) changed since it was made: the next context that needs
// it makes it again. e.rw is held, or e is new.
func (e *Engine) instructionsChanged() {
	var text strings.Builder
	for _, id := range e.instr {
		text.WriteString(id + "\x00" + nodeText(e.nodes[id]) + "\x00")
	}
	if text.String() == e.instrText {
		return
	}
	e.instrText = text.String()
	e.instrMu.Lock()
	defer e.instrMu.Unlock()
	if e.instrIx != nil {
		e.instrIx.Close()
	}
	e.instrIx, e.instrTerms = nil, nil
}

// instructionIndex returns the index of the texts of the current
// instructions and their terms by id, made now if need be: nil when there
// are none, or when it cannot be made (no instruction then applies
// without vectors). Made when first needed, not with the graph: a memory
// with vectors seldom needs it (on 50 instructions, about 2 ms). e.rw is
// held for reading.
func (e *Engine) instructionIndex() (bleve.Index, map[string]map[string]bool) {
	e.instrMu.Lock()
	defer e.instrMu.Unlock()
	if e.instrIx != nil || len(e.instr) == 0 || e.instrClosed {
		return e.instrIx, e.instrTerms
	}
	ix, err := NewTextIndex()
	if err != nil {
		return nil, nil
	}
	an := ix.Mapping().AnalyzerNamed(analyzerName)
	if an == nil {
		ix.Close()
		return nil, nil
	}
	b := ix.NewBatch()
	terms := make(map[string]map[string]bool, len(e.instr))
	for _, id := range e.instr {
		text := nodeText(e.nodes[id])
		err = errors.Join(err, b.Index(kindNode+":"+id, indexDoc{Text: text}))
		terms[id] = termSet(an, text)
	}
	if err = errors.Join(err, ix.Batch(b)); err != nil {
		ix.Close()
		return nil, nil
	}
	e.instrIx, e.instrTerms = ix, terms
	return ix, terms
}

// instructions makes the standing instructions that bear on the question
// candidates that must go in, in their section: of cs, the candidates
// made so far, an instruction's own is replaced.
func (e *Engine) instructions(cs []cand, query string, q *queryVector, scopes []string) []cand {
	if len(e.instr) == 0 {
		return cs
	}
	type scored struct {
		id  string
		cos float64
	}
	var apply []scored
	if x := e.vecs; q != nil && x != nil && x.model == q.model && x.dims == len(q.v) {
		var all []scored
		for _, id := range e.instr {
			if t, ok := e.source[id]; ok {
				if c, ok := x.turnCos(t, q.v); ok {
					all = append(all, scored{id, c})
				}
			}
		}
		sort.SliceStable(all, func(i, j int) bool { return all[i].cos > all[j].cos })
		for i, s := range all {
			if i == 0 && s.cos >= instructionFloor || s.cos >= instructionNear {
				apply = append(apply, s)
			}
		}
	} else if ix, instrTerms := e.instructionIndex(); ix != nil {
		// Hits are best first; a search that fails applies none.
		var hits []hit
		var terms map[string]bool
		if an, err := e.analyzer(); err == nil {
			hits, _ = search(ix, query, len(e.instr), nil)
			terms = termSet(an, query)
		}
		for _, h := range hits {
			shared := 0
			for t := range instrTerms[h.key] {
				if terms[t] {
					shared++
				}
			}
			if shared >= instructionTerms && h.kind == kindNode && e.nodes[h.key] != nil {
				apply = append(apply, scored{h.key, h.score / hits[0].score})
			}
		}
	}
	if len(apply) > maxInstructions {
		apply = apply[:maxInstructions]
	}
	for _, s := range apply {
		cs = slices.DeleteFunc(cs, func(c cand) bool { return c.key == "n:"+s.id })
		c, ok := e.nodeCand(e.nodes[s.id], s.cos, map[string]float64{"instruction": s.cos}, scopes)
		if !ok {
			continue
		}
		c.item.Section, c.must = secInstructions, true
		cs = append(cs, c)
	}
	return cs
}

// turnCos is the cosine of q with turn t's vector, or the best of its
// passages'; false when the turn has none.
func (x *vectorIndex) turnCos(t int, q []float32) (float64, bool) {
	i, _ := slices.BinarySearch(x.turns, t)
	best, ok := float32(-2), false
	for ; i < len(x.turns) && x.turns[i] == t; i++ {
		best, ok = max(best, vec.Dot(q, x.rows[i])), true
	}
	return float64(best), ok
}
