// Package importance scores the nodes of a memory and models how their
// activation fades and comes back, as pure functions of plain inputs
// (spec/smg-v1.md §6.3). It imports nothing else of this module.
//
// Importance says how much a node matters; activation says how available it
// is now. Both are in [0, 1]. Importance follows the seed formula
//
//	importance = 0.3·recency + 0.4·decision density + 0.2·artifact presence + 0.1·centrality
//
// and, for facts about a person, a score by category with boosts (identity
// 10, preference 9, relationship 8, project 7, context 5; +2 when the user
// asked to remember, +1 for specific details, −2 for vague or temporary
// statements), divided by 10. Activation follows ACT-R's base-level
// learning: every mention is a use, each use decays as a power of its age,
// and a new mention reactivates the node. All the numbers are in [Weights]
// and [Decay], whose defaults are [DefaultWeights] and [DefaultDecay].
package importance

import (
	"math"
	"time"
)

// Weights are the coefficients of the importance formulas.
type Weights struct {
	// The seed formula's terms; they sum to 1.
	Recency          float64
	DecisionDensity  float64
	ArtifactPresence float64
	Centrality       float64
	// DensityScale turns decision cues per word into [0, 1]: the density
	// term is min(1, DensityScale·cues/words). Raw cues per word are small
	// (one cue in a 20-word sentence is 0.05), so without a scale the term
	// would never count; with 10, one cue in ten words saturates it.
	DensityScale float64
	// Categories scores facts by category, on a 0–10 scale.
	Categories map[string]float64
	// Boosts and penalties of facts, on the same scale.
	RememberBoost float64 // the user said to remember it
	SpecificBoost float64 // names, numbers, dates
	VaguePenalty  float64 // vague or temporary ("maybe", "for now")
	// FactScale maps the 0–10 fact scale to [0, 1].
	FactScale float64
}

// DefaultWeights are the seed design's weights.
func DefaultWeights() Weights {
	return Weights{
		Recency:          0.3,
		DecisionDensity:  0.4,
		ArtifactPresence: 0.2,
		Centrality:       0.1,
		DensityScale:     10,
		Categories: map[string]float64{
			"identity":     10,
			"preference":   9,
			"relationship": 8,
			"project":      7,
			"context":      5,
		},
		RememberBoost: 2,
		SpecificBoost: 1,
		VaguePenalty:  2,
		FactScale:     10,
	}
}

// Node is what the seed formula looks at.
type Node struct {
	// AgeTurns is the number of turns since the node was last mentioned.
	AgeTurns int
	// DecisionCues and Words are counted over the sentences that mention
	// the node.
	DecisionCues, Words int
	// HasArtifact says that the node is, or is linked to, an artifact.
	HasArtifact bool
	// Degree is the node's number of edges; MaxDegree the largest of the
	// graph.
	Degree, MaxDegree int
}

// Score returns the importance of a node by the seed formula, in [0, 1].
func (w Weights) Score(n Node) float64 {
	recency := 1 / (1 + float64(max(n.AgeTurns, 0)))
	density := 0.0
	if n.Words > 0 {
		density = math.Min(1, w.DensityScale*float64(n.DecisionCues)/float64(n.Words))
	}
	artifact := 0.0
	if n.HasArtifact {
		artifact = 1
	}
	centrality := 0.0
	if n.MaxDegree > 0 {
		centrality = float64(n.Degree) / float64(n.MaxDegree)
	}
	return clamp01(w.Recency*recency + w.DecisionDensity*density + w.ArtifactPresence*artifact + w.Centrality*centrality)
}

// Fact is what fact scoring looks at.
type Fact struct {
	Category string
	Remember bool // the user asked to remember it
	Specific bool // it holds names, numbers or dates
	Vague    bool // it is vague or temporary
}

// FactScore returns the importance of a fact, in [0, 1]: its category's
// score plus boosts, over FactScale. An unknown category scores as
// "context".
func (w Weights) FactScore(f Fact) float64 {
	s, ok := w.Categories[f.Category]
	if !ok {
		s = w.Categories["context"]
	}
	if f.Remember {
		s += w.RememberBoost
	}
	if f.Specific {
		s += w.SpecificBoost
	}
	if f.Vague {
		s -= w.VaguePenalty
	}
	if w.FactScale <= 0 {
		return 0
	}
	return clamp01(s / w.FactScale)
}

// Decay is the model of how activation fades (ACT-R base-level learning,
// Anderson and Schooler 1991; the hybrid approximation of Petrov 2006 for
// long histories).
//
// A node's uses are the turns that mention it. The age of a use counts both
// conversation and time: TurnWeight units per turn since it, plus one unit
// per TimeUnit of wall-clock time, so that a topic fades within a busy
// session and across the days between sessions. The base-level activation is
//
//	B = ln( Σ_j age_j^(−D) )
//
// over the uses j, and the activation stored in a file is the probability of
// retrieval 1 / (1 + e^(−(B − Threshold)/Noise)), in (0, 1).
type Decay struct {
	// D is the decay rate; ACT-R's default is 0.5.
	D float64
	// TurnWeight units of age per turn, and one unit per TimeUnit.
	TurnWeight float64
	TimeUnit   time.Duration
	// MinAge keeps the age of a use made just now from being 0.
	MinAge float64
	// Threshold and Noise shape the logistic from B to [0, 1].
	Threshold float64
	Noise     float64
	// Recent is how many of the most recent uses are summed exactly; older
	// ones are approximated from their count and the age of the oldest.
	Recent int
}

// DefaultDecay: one unit of age per turn and per hour. With it a node
// mentioned once is at 0.88 right after, about 0.5 some 50 turns or two days
// later, and 0.22 a month later; three mentions in the last ten turns hold
// it above 0.9.
func DefaultDecay() Decay {
	return Decay{D: 0.5, TurnWeight: 1, TimeUnit: time.Hour, MinAge: 1, Threshold: -2, Noise: 1, Recent: 10}
}

// Use is one mention of a node: its turn number and the turn's time (zero
// when unknown).
type Use struct {
	Turn int
	Time time.Time
}

// age is the age of a use at now, in units.
func (d Decay) age(u, now Use) float64 {
	a := d.TurnWeight * float64(now.Turn-u.Turn)
	if !u.Time.IsZero() && !now.Time.IsZero() && d.TimeUnit > 0 {
		a += float64(now.Time.Sub(u.Time)) / float64(d.TimeUnit)
	}
	return math.Max(a, d.MinAge)
}

// BaseLevel returns B for uses given oldest first, at now. With no uses it
// returns -Inf.
func (d Decay) BaseLevel(uses []Use, now Use) float64 {
	if len(uses) == 0 {
		return math.Inf(-1)
	}
	recent := uses
	if d.Recent > 0 && len(uses) > d.Recent {
		recent = uses[len(uses)-d.Recent:]
	}
	sum := 0.0
	for _, u := range recent {
		sum += math.Pow(d.age(u, now), -d.D)
	}
	if old := len(uses) - len(recent); old > 0 {
		// Petrov's approximation of the older uses: k uses spread evenly
		// between the oldest (tn) and the newest of them (tk) contribute
		// k·(tn^(1−d) − tk^(1−d)) / ((1−d)(tn − tk)).
		tn := d.age(uses[0], now)
		tk := d.age(uses[old-1], now)
		if tn-tk > 1e-9 && d.D != 1 {
			sum += float64(old) * (math.Pow(tn, 1-d.D) - math.Pow(tk, 1-d.D)) / ((1 - d.D) * (tn - tk))
		} else {
			sum += float64(old) * math.Pow(tn, -d.D)
		}
	}
	return math.Log(sum)
}

// Activation returns the probability of retrieval for B, in (0, 1), and 0
// for B = -Inf.
func (d Decay) Activation(b float64) float64 {
	if math.IsInf(b, -1) {
		return 0
	}
	return 1 / (1 + math.Exp(-(b-d.Threshold)/d.Noise))
}

// Of is Activation(BaseLevel(uses, now)).
func (d Decay) Of(uses []Use, now Use) float64 {
	return d.Activation(d.BaseLevel(uses, now))
}

func clamp01(x float64) float64 {
	switch {
	case math.IsNaN(x) || x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}
