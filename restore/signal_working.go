package restore

import (
	"regexp"
	"strconv"
)

// working makes working memory candidates: its summary and current goals,
// first in the order of the goals, when the question is about them. A
// question about the conversation as a whole (what is left, the plan, the
// status, a summary) has the summary and every goal; another question has
// the goals that share a word with it. In every context they took a
// tenth of a small budget from the evidence: on the dev files with the
// built-in encoder (evidence recall, categories 1–4, cl100k, 1,000 and
// 4,000 tokens), beam-dev 0.638 / 0.808 with them in every context,
// LoCoMo 0.849 / 0.950; without them 0.655 / 0.812 and 0.852 / 0.950.
func working(g *gathering) {
	wm := g.e.doc.WorkingMemory
	overview := aboutTheWhole.MatchString(g.query)
	if wm.Summary != "" && overview {
		g.out = append(g.out, cand{key: "summary", text: wm.Summary, item: Item{Section: secWorking, Kind: "summary", Score: 2}})
	}
	var asked map[string]bool
	for i, goal := range wm.CurrentGoals {
		if !overview {
			if asked == nil {
				asked = g.e.termSet(g.query)
			}
			if !g.e.sharesTerm(goal, asked) {
				continue
			}
		}
		g.out = append(g.out, cand{key: "goal:" + strconv.Itoa(i), text: "- Goal: " + goal, item: Item{Section: secWorking, Kind: "goal", Score: 1.5 - float64(i)/100}})
	}
}

// aboutTheWhole is a question about the conversation as a whole: what is
// left to do, what comes next, the goals, the plan, the status, a summary.
var aboutTheWhole = regexp.MustCompile(`(?i)\b(?:left to do|still to do|what(?:'s| is) left|next|todo|to-do|goals?|plans?|planning|working on|status|progress|so far|summar\w*|overview|recap|where (?:are|were) we|focus)\b`)

// termSet returns the distinct terms of text, as the index analyzes it.
func (e *Engine) termSet(text string) map[string]bool {
	out := map[string]bool{}
	if an := e.ix.Mapping().AnalyzerNamed(analyzerName); an != nil {
		for _, tok := range an.Analyze([]byte(text)) {
			out[string(tok.Term)] = true
		}
	}
	return out
}

// sharesTerm reports whether text has a term of terms.
func (e *Engine) sharesTerm(text string, terms map[string]bool) bool {
	for t := range e.termSet(text) {
		if terms[t] {
			return true
		}
	}
	return false
}
