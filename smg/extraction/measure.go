package extraction

import (
	"slices"
	"strings"
)

// Row is what was measured of one kind.
type Row struct {
	Kind string `json:"kind"`
	// Items counts the distinct items extracted, PerThousand per 1,000
	// turns.
	Items       int     `json:"items"`
	PerThousand float64 `json:"perThousandTurns"`
	// Sampled counts the items of the sample, Labelled those of them
	// that have a label, Valid those labelled valid.
	Sampled  int `json:"sampled"`
	Labelled int `json:"labelled"`
	Valid    int `json:"valid"`
	// Precision is Valid over Labelled; -1 when none is labelled.
	Precision float64 `json:"precision"`
	// Target is the precision to reach; 0 when the kind has none.
	Target float64 `json:"target,omitzero"`
	// Rephrasings counts the labelled facts whose rephrasing is
	// labelled, RephrasingsOK those grammatical and faithful.
	Rephrasings   int `json:"rephrasings,omitzero"`
	RephrasingsOK int `json:"rephrasingsOk,omitzero"`
	// Expected counts the items of the kind that the recall labels of the
	// sample of turns expect, Found those of them the engine extracted
	// from their turns; Recall is Found over Expected, -1 when none is
	// expected.
	Expected int     `json:"expected"`
	Found    int     `json:"found"`
	Recall   float64 `json:"recall"`
	// Prose counts the labelled items judged an assistant's prose answer
	// (a note starting "prose"): of artifacts, issue 36 wants none.
	Prose int `json:"prose,omitzero"`
	// Sources are the same counts of each source, in the order of their
	// names.
	Sources []SourceRow `json:"sources,omitempty"`
}

// SourceRow is what was measured of one kind in one source.
type SourceRow struct {
	Source   string `json:"source"`
	Items    int    `json:"items"`
	Sampled  int    `json:"sampled"`
	Labelled int    `json:"labelled"`
	Valid    int    `json:"valid"`
	Prose    int    `json:"prose,omitzero"`
}

// Report is a measure of what the engine extracted from turns turns.
type Report struct {
	Turns int   `json:"turns"`
	Rows  []Row `json:"rows"`
	// Unlabelled are the items of the sample without a label, to label;
	// Rephrase the facts of the sample whose label has changed since its
	// rephrasing was judged (or was never), to judge again.
	Unlabelled []Item `json:"unlabelled,omitempty"`
	Rephrase   []Item `json:"rephrase,omitempty"`
	// SampledTurns counts the turns of the sample of turns, LabelledTurns
	// those of them with a recall label; UnlabelledTurns are the others,
	// to label.
	SampledTurns    int       `json:"sampledTurns"`
	LabelledTurns   int       `json:"labelledTurns"`
	UnlabelledTurns []TurnRef `json:"unlabelledTurns,omitempty"`
}

// Measure counts items by kind, draws the sample of n items of each kind,
// and scores it by labels. Its rows' recall is to measure by
// MeasureRecall.
func Measure(items []Item, turns, n int, labels Labels) Report {
	rep := Report{Turns: turns}
	rows := map[string]*Row{}
	for _, k := range Kinds {
		rows[k] = &Row{Kind: k, Target: Targets[k], Precision: -1, Recall: -1}
	}
	bySource := map[[2]string]*SourceRow{} // kind, source → row
	of := func(it Item) *SourceRow {
		k := [2]string{it.Kind, it.Source}
		if bySource[k] == nil {
			bySource[k] = &SourceRow{Source: it.Source}
		}
		return bySource[k]
	}
	items = distinct(items)
	for _, it := range items {
		if r := rows[it.Kind]; r != nil {
			r.Items++
			of(it).Items++
		}
	}
	for _, it := range sample(items, n) {
		r, s := rows[it.Kind], of(it)
		r.Sampled++
		s.Sampled++
		l, ok := labels[it.Key]
		if !ok {
			rep.Unlabelled = append(rep.Unlabelled, it)
			continue
		}
		r.Labelled++
		s.Labelled++
		if l.Valid {
			r.Valid++
			s.Valid++
		}
		if strings.HasPrefix(l.Note, "prose") {
			r.Prose++
			s.Prose++
		}
		switch {
		case l.Rephrasing != nil && l.Of == Phrasing(it.Label):
			r.Rephrasings++
			if *l.Rephrasing {
				r.RephrasingsOK++
			}
		case it.Kind == Fact:
			rep.Rephrase = append(rep.Rephrase, it)
		}
	}
	for _, k := range Kinds {
		r := rows[k]
		if turns > 0 {
			r.PerThousand = float64(r.Items) * 1000 / float64(turns)
		}
		if r.Labelled > 0 {
			r.Precision = float64(r.Valid) / float64(r.Labelled)
		}
		for key, s := range bySource {
			if key[0] == k {
				r.Sources = append(r.Sources, *s)
			}
		}
		slices.SortFunc(r.Sources, func(a, b SourceRow) int { return strings.Compare(a.Source, b.Source) })
		rep.Rows = append(rep.Rows, *r)
	}
	return rep
}

// MeasureRecall scores the recall of what the engine extracted, items, on
// the sample of turns turns (SampleTurns) by labels: for each kind, the
// items the labels of the sampled turns expect, and those of them found
// among the items extracted from their turns. A sampled turn without a
// label goes to UnlabelledTurns; a label of a turn out of the sample is
// not used.
func (rep *Report) MeasureRecall(turns []TurnRef, items []Item, labels RecallLabels) {
	type turnOf struct {
		source, conv string
		turn         int
	}
	byTurn := map[turnOf][]Item{}
	for _, it := range items {
		for _, t := range append([]int{it.Turn}, it.Again...) {
			k := turnOf{it.Source, it.Conversation, t}
			byTurn[k] = append(byTurn[k], it)
		}
	}
	rows := map[string]*Row{}
	for i := range rep.Rows {
		rows[rep.Rows[i].Kind] = &rep.Rows[i]
	}
	rep.SampledTurns, rep.LabelledTurns, rep.UnlabelledTurns = len(turns), 0, nil
	for _, r := range rows {
		r.Expected, r.Found = 0, 0
	}
	for _, t := range turns {
		l, ok := labels[t.Key]
		if !ok {
			rep.UnlabelledTurns = append(rep.UnlabelledTurns, t)
			continue
		}
		rep.LabelledTurns++
		for _, e := range l.Expect {
			r := rows[e.Kind]
			if r == nil {
				continue // a kind ReadRecallLabels refuses
			}
			r.Expected++
			if found(e, byTurn[turnOf{t.Source, t.Conversation, t.Turn}]) {
				r.Found++
			}
		}
	}
	for _, r := range rows {
		r.Recall = -1
		if r.Expected > 0 {
			r.Recall = float64(r.Found) / float64(r.Expected)
		}
	}
}
