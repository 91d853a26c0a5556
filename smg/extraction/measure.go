package extraction

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
}

// Measure counts items by kind, draws the sample of n items of each kind,
// and scores it by labels.
func Measure(items []Item, turns, n int, labels Labels) Report {
	rep := Report{Turns: turns}
	rows := map[string]*Row{}
	for _, k := range Kinds {
		rows[k] = &Row{Kind: k, Target: Targets[k], Precision: -1}
	}
	items = distinct(items)
	for _, it := range items {
		if r := rows[it.Kind]; r != nil {
			r.Items++
		}
	}
	for _, it := range sample(items, n) {
		r := rows[it.Kind]
		r.Sampled++
		l, ok := labels[it.Key]
		if !ok {
			rep.Unlabelled = append(rep.Unlabelled, it)
			continue
		}
		r.Labelled++
		if l.Valid {
			r.Valid++
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
		rep.Rows = append(rep.Rows, *r)
	}
	return rep
}
