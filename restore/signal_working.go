package restore

import (
	"regexp"
	"strconv"

	"github.com/blevesearch/bleve/v2/analysis"
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
	var (
		an    analysis.Analyzer
		asked map[string]bool
	)
	for i, goal := range wm.CurrentGoals {
		if !overview {
			if an == nil {
				// The index's analyzer, looked up once a question.
				if an = g.e.ix.Mapping().AnalyzerNamed(analyzerName); an == nil {
					return
				}
				asked = termSet(an, g.query)
			}
			if !sharesTerm(an, goal, asked) {
				continue
			}
		}
		g.out = append(g.out, cand{key: "goal:" + strconv.Itoa(i), text: "- Goal: " + goal, item: Item{Section: secWorking, Kind: "goal", Score: 1.5 - float64(i)/100}})
	}
}

// aboutTheWhole is a question about the conversation as a whole: what is
// left to do, what comes next, the goals, the plan, the status, a summary.
var aboutTheWhole = regexp.MustCompile(`(?i)\b(?:left to do|still to do|what(?:'s| is) left|next|todo|to-do|goals?|plans?|planning|working on|status|progress|so far|summar\w*|overview|recap|where (?:are|were) we|focus)\b`)

// termSet returns the distinct terms of text, as an analyzes it.
func termSet(an analysis.Analyzer, text string) map[string]bool {
	out := map[string]bool{}
	for _, tok := range an.Analyze([]byte(text)) {
		out[string(tok.Term)] = true
	}
	return out
}

// sharesTerm reports whether text has a term of terms.
func sharesTerm(an analysis.Analyzer, text string, terms map[string]bool) bool {
	for _, tok := range an.Analyze([]byte(text)) {
		if terms[string(tok.Term)] {
			return true
		}
	}
	return false
}
