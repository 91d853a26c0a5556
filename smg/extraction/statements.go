package extraction

import (
	"github.com/smg-memory/smg/classify"
	"github.com/smg-memory/smg/classify/linear"
	"github.com/smg-memory/smg/spec"
)

// The model of statements (classify.StatementModel) is trained on distant
// labels (issue 36): a user sentence of a BEAM chat that holds at least
// the coverage threshold of a plan bullet's content words says what the
// chat's author planted, and is kept; the others, mostly requests,
// questions and pointers to code, are not. Its measure is the plan
// coverage of chats it was not trained on (TrainStatements on the others).

// PlannedChat is a chat and its plan.
type PlannedChat struct {
	ID    string
	Turns []spec.Turn
	Plan  []PlanBullet
}

// StatementExamples are the examples of a chat's user sentences, each
// positive when it says what a bullet says: it holds at least threshold
// of the bullet's words, or most of its own words are the bullet's (a
// short statement of a long bullet: "I prefer minimal dependencies").
func StatementExamples(c PlannedChat, threshold float64) []linear.Example {
	bullets := make([]map[string]bool, len(c.Plan))
	for i, b := range c.Plan {
		bullets[i] = planWords(b.Text)
	}
	var out []linear.Example
	for _, t := range c.Turns {
		if t.Role != spec.RoleUser {
			continue
		}
		for _, s := range classify.Sentences(t.Content) {
			out = append(out, linear.Example{Features: classify.StatementFeatures(s), Positive: covers(planWords(s), bullets, threshold)})
		}
	}
	return out
}

// covers reports whether words say what one of bullets says: they hold
// at least threshold of its words, or at least two of them that are most
// (mostOwn) of words.
func covers(words map[string]bool, bullets []map[string]bool, threshold float64) bool {
	for _, b := range bullets {
		shared := 0
		for w := range b {
			if words[w] {
				shared++
			}
		}
		if len(b) > 0 && float64(shared)/float64(len(b)) >= threshold || shared >= 2 && float64(shared) >= mostOwn*float64(len(words)) {
			return true
		}
	}
	return false
}

// mostOwn is the share of a sentence's own words a bullet must hold for
// the sentence to say what the bullet says.
const mostOwn = 0.6

// StatementTraining are the options the built-in model is trained with.
var StatementTraining = linear.Options{Dim: 1 << 14, Seed: 36}

// TrainStatements trains a model of statements on the user sentences of
// chats, labelled by their plans at DefaultPlanThreshold.
func TrainStatements(chats []PlannedChat) *linear.Model {
	var ex []linear.Example
	for _, c := range chats {
		ex = append(ex, StatementExamples(c, DefaultPlanThreshold)...)
	}
	return linear.Train(ex, StatementTraining)
}
