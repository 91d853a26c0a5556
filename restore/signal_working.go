package restore

import "strconv"

// working makes working memory candidates: its summary and current goals,
// first in the order of the goals.
func working(g *gathering) {
	wm := g.e.doc.WorkingMemory
	if wm.Summary != "" {
		g.out = append(g.out, cand{key: "summary", text: wm.Summary, item: Item{Section: secWorking, Kind: "summary", Score: 2}})
	}
	for i, goal := range wm.CurrentGoals {
		g.out = append(g.out, cand{key: "goal:" + strconv.Itoa(i), text: "- Goal: " + goal, item: Item{Section: secWorking, Kind: "goal", Score: 1.5 - float64(i)/100}})
	}
}
