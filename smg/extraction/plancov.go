package extraction

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/smg-memory/smg/spec"
)

// DefaultPlanThreshold is the share of a bullet's content words a node
// must hold for the bullet to be covered, plancov.py's default.
const DefaultPlanThreshold = 0.5

// ErrPlanNotUTF8 is the error of ReadPlan on a plan that is not UTF-8
// text, which plancov.py cannot read either.
var ErrPlanNotUTF8 = errors.New("not UTF-8 text")

// PlanBullet is a bullet of a plan: a line "• **Heading:** text".
type PlanBullet struct {
	// Category is the part of the bullet's heading before its first ':'
	// ("Information Update", or "Security & Compliance Labels" of
	// "Security & Compliance Labels:Authentication").
	Category string `json:"category"`
	Text     string `json:"text"`
}

// ReadPlan reads the bullets of a plan as plancov.py reads them: of each
// line, with the white space at its ends removed, that starts with "•" and
// a bold heading ending in a colon ("• **Category: Sub:** text"), the
// category of the heading and the text after it. A time anchor (a heading
// that starts with "Time Anchor") dates a batch and is not a bullet; any
// other line is skipped. Lines and white space are Python's (str.splitlines
// and str.isspace), which count a few characters more than Go's.
func ReadPlan(r io.Reader) ([]PlanBullet, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading the plan: %w", err)
	}
	if !utf8.Valid(data) {
		line := 1 + bytes.Count(data[:firstInvalid(data)], []byte("\n"))
		return nil, fmt.Errorf("reading the plan: line %d: %w", line, ErrPlanNotUTF8)
	}
	var out []PlanBullet
	for _, line := range pyLines(string(data)) {
		heading, text, ok := planBullet(strings.TrimFunc(line, pySpace))
		if !ok || strings.HasPrefix(heading, "Time Anchor") {
			continue
		}
		category, _, _ := strings.Cut(heading, ":")
		out = append(out, PlanBullet{Category: strings.TrimFunc(category, pySpace), Text: text})
	}
	return out, nil
}

// planBullet matches a line, stripped, as plancov.py's
// re.match(r"•\s*\*\*(.+?):\*\*\s*(.*)", line): "•", white space, "**",
// the shortest heading of at least one character followed by ":**", white
// space, and the text, the rest of the line.
func planBullet(line string) (heading, text string, ok bool) {
	rest, ok := strings.CutPrefix(line, "•")
	if !ok {
		return "", "", false
	}
	rest, ok = strings.CutPrefix(strings.TrimLeftFunc(rest, pySpace), "**")
	if !ok || rest == "" {
		return "", "", false
	}
	_, first := utf8.DecodeRuneInString(rest)
	end := strings.Index(rest[first:], ":**")
	if end < 0 {
		return "", "", false
	}
	end += first
	return rest[:end], strings.TrimLeftFunc(rest[end+len(":**"):], pySpace), true
}

// firstInvalid is the offset of the first byte of data that is not UTF-8.
func firstInvalid(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// PlanCoverage is what CoverPlan measured of a plan, or the sum of
// several (SumPlanCoverage).
type PlanCoverage struct {
	// Bullets counts the plan's bullets, Covered those some typed node
	// covers; Coverage is Covered over Bullets (0 without bullets).
	Bullets  int     `json:"bullets"`
	Covered  int     `json:"covered"`
	Coverage float64 `json:"coverage"`
	// TypedNodes counts the nodes scored: all but concepts and artifacts.
	TypedNodes int `json:"typedNodes"`
	// Categories are the counts of each category of bullet, by total,
	// descending; of equal totals, the category met first comes first.
	Categories []CategoryCoverage `json:"categories"`
}

// CategoryCoverage counts the bullets of one category and those covered.
type CategoryCoverage struct {
	Category string `json:"category"`
	Covered  int    `json:"covered"`
	Total    int    `json:"total"`
}

// CoverPlan scores nodes against a plan as plancov.py does. Only typed
// nodes count: every node but a concept or an artifact. The words of a
// text are the distinct matches of planWord in its lower case, of 3
// characters or more, not in planStop; a node's are those of its label
// and description together. A bullet is covered when, for one typed
// node, the bullet's words the node has are at least threshold of the
// bullet's words (a bullet without words: 0 of 1).
func CoverPlan(plan []PlanBullet, nodes []spec.Node, threshold float64) PlanCoverage {
	var typed []map[string]bool
	for _, n := range nodes {
		if n.Type != spec.NodeConcept && n.Type != spec.NodeArtifact {
			typed = append(typed, planWords(n.Label+" "+n.Description))
		}
	}
	c := PlanCoverage{Bullets: len(plan), TypedNodes: len(typed)}
	at := map[string]int{} // category → index in c.Categories
	for _, b := range plan {
		words := planWords(b.Text)
		best := 0.0
		for _, node := range typed {
			best = max(best, share(words, node))
		}
		i, ok := at[b.Category]
		if !ok {
			i = len(c.Categories)
			at[b.Category] = i
			c.Categories = append(c.Categories, CategoryCoverage{Category: b.Category})
		}
		c.Categories[i].Total++
		if best >= threshold {
			c.Covered++
			c.Categories[i].Covered++
		}
	}
	c.finish()
	return c
}

// SumPlanCoverage adds coverages up: the counts, and the counts of each
// category, sorted as CoverPlan sorts them, a category met first in the
// order of cs and of their categories coming first of equal totals.
func SumPlanCoverage(cs ...PlanCoverage) PlanCoverage {
	var sum PlanCoverage
	at := map[string]int{}
	for _, c := range cs {
		sum.Bullets += c.Bullets
		sum.Covered += c.Covered
		sum.TypedNodes += c.TypedNodes
		for _, cat := range c.Categories {
			i, ok := at[cat.Category]
			if !ok {
				i = len(sum.Categories)
				at[cat.Category] = i
				sum.Categories = append(sum.Categories, CategoryCoverage{Category: cat.Category})
			}
			sum.Categories[i].Covered += cat.Covered
			sum.Categories[i].Total += cat.Total
		}
	}
	sum.finish()
	return sum
}

// finish sets the coverage and sorts the categories by total, descending,
// keeping the order of equal ones (as Python's sorted does).
func (c *PlanCoverage) finish() {
	c.Coverage = 0
	if c.Bullets > 0 {
		c.Coverage = float64(c.Covered) / float64(c.Bullets)
	}
	slices.SortStableFunc(c.Categories, func(a, b CategoryCoverage) int { return cmp.Compare(b.Total, a.Total) })
}

// planWord is plancov.py's pattern of a word, matched in lower case.
var planWord = regexp.MustCompile(`[a-z0-9$%][a-z0-9$%'.-]*`)

// planStop are plancov.py's stop words.
var planStop = func() map[string]bool {
	stop := map[string]bool{}
	for _, w := range strings.Fields(`the a an and or of to in on at for with by from is are was
		were be been this that these those i me my we our you your it its as about into over
		after before during than then so but not no can will would should could have has had
		do does did just also very more most some any each every which who whom whose what
		when where why how all both there their them they he she his her him up down out off
		per via new next last`) {
		stop[w] = true
	}
	return stop
}()

// planWords are the words of s as plancov.py's words() finds them.
func planWords(s string) map[string]bool {
	words := map[string]bool{}
	for _, w := range planWord.FindAllString(pyLower(s), -1) {
		if len(w) >= 3 && !planStop[w] {
			words[w] = true
		}
	}
	return words
}

// pyLower is s in lower case as far as planWord sees it, which is what
// Python's str.lower gives it: planWord matches only ASCII, and the only
// characters other than A to Z whose lower case in Python holds ASCII are
// the Kelvin sign (k) and the capital I with a dot above (i and a
// combining dot above, which ends the word; Go's ToLower makes it a plain
// i, which would not). Every other character is left as it is: its
// lower case, if it has one, is not ASCII, and ends a word as it does.
func pyLower(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case 'A' <= r && r <= 'Z':
			b.WriteRune(r + 'a' - 'A')
		case r == '\u212a': // KELVIN SIGN
			b.WriteByte('k')
		case r == '\u0130': // LATIN CAPITAL LETTER I WITH DOT ABOVE
			b.WriteString("i\u0307")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pySpace tells Python's white space (str.isspace, and \s of re): Go's,
// and the separators U+001C to U+001F.
func pySpace(r rune) bool {
	return unicode.IsSpace(r) || '\x1c' <= r && r <= '\x1f'
}

// pyLines splits s into lines as Python's str.splitlines does, at "\r\n"
// and at each of "\n", "\r", "\v", "\f", U+001C to U+001E, U+0085, U+2028
// and U+2029.
func pyLines(s string) []string {
	var lines []string
	start := 0
	for i, r := range s {
		if i < start {
			continue // the "\n" of a "\r\n"
		}
		switch r {
		case '\n', '\r', '\v', '\f', '\x1c', '\x1d', '\x1e', '\u0085', '\u2028', '\u2029':
			lines = append(lines, s[start:i])
			start = i + utf8.RuneLen(r)
			if r == '\r' && strings.HasPrefix(s[start:], "\n") {
				start++
			}
		}
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// The categories of plan bullets that change what a memory holds.
const (
	UpdateCategory        = "Information Update"
	ContradictionCategory = "Logical Contradiction"
)

// PlanLinks counts a plan's Information Updates and Logical Contradictions
// and those a memory links: an update is linked when a typed node that
// covers it (as CoverPlan counts) supersedes a node about the same thing; a
// contradiction, when a typed node that covers it and a node about the same
// thing contradict each other, both current (in conflict). A node is about
// the same thing as a bullet when it holds at least two of the bullet's
// words that are not numbers, by their first five letters (sameThing). Supersedes and Contradicts count the edges of
// each relation between two distinct nodes, whatever the plan says: what
// the measure's precision is to be judged on.
type PlanLinks struct {
	Updates              int `json:"updates"`
	UpdatesLinked        int `json:"updatesLinked"`
	Contradictions       int `json:"contradictions"`
	ContradictionsLinked int `json:"contradictionsLinked"`
	Supersedes           int `json:"supersedesEdges"`
	Contradicts          int `json:"contradictsEdges"`
}

// LinkPlan measures the links of the updates and contradictions of a plan
// in a graph.
func LinkPlan(plan []PlanBullet, g spec.SemanticGraph, threshold float64) PlanLinks {
	words := map[string]map[string]bool{}
	current := map[string]bool{}
	for _, n := range g.Nodes {
		if n.Type != spec.NodeConcept && n.Type != spec.NodeArtifact {
			words[n.ID] = planWords(n.Label + " " + n.Description)
			current[n.ID] = n.ValidTo.IsZero()
		}
	}
	var l PlanLinks
	linked := map[string][]string{} // node → the nodes it supersedes; or, both ways, is in conflict with
	conflict := map[string][]string{}
	for _, e := range g.Edges {
		if e.From == e.To {
			continue
		}
		switch e.Relation {
		case spec.RelSupersedes:
			l.Supersedes++
			linked[e.From] = append(linked[e.From], e.To)
		case spec.RelContradicts:
			l.Contradicts++
			if current[e.From] && current[e.To] {
				conflict[e.From] = append(conflict[e.From], e.To)
				conflict[e.To] = append(conflict[e.To], e.From)
			}
		}
	}
	for _, b := range plan {
		var rel map[string][]string
		switch b.Category {
		case UpdateCategory:
			l.Updates++
			rel = linked
		case ContradictionCategory:
			l.Contradictions++
			rel = conflict
		default:
			continue
		}
		bw := planWords(b.Text)
		ok := false
		for id, nw := range words {
			if ok || share(bw, nw) < threshold {
				continue
			}
			for _, other := range rel[id] {
				if sameThing(bw, words[other]) {
					ok = true
					break
				}
			}
		}
		if ok && b.Category == UpdateCategory {
			l.UpdatesLinked++
		} else if ok {
			l.ContradictionsLinked++
		}
	}
	return l
}

// Add adds the counts of o to l.
func (l *PlanLinks) Add(o PlanLinks) {
	l.Updates += o.Updates
	l.UpdatesLinked += o.UpdatesLinked
	l.Contradictions += o.Contradictions
	l.ContradictionsLinked += o.ContradictionsLinked
	l.Supersedes += o.Supersedes
	l.Contradicts += o.Contradicts
}

// share is the share of the words of bullet that node holds (0 of none).
func share(bullet, node map[string]bool) float64 {
	n := 0
	for w := range bullet {
		if node[w] {
			n++
		}
	}
	return float64(n) / float64(max(1, len(bullet)))
}

// sameThing tells whether node holds two of the words of bullet that are
// not numbers, a word held when the node has one of the same first five
// letters (a crude stem: "components" and "component", "bootstrap's" and
// "bootstrap").
func sameThing(bullet, node map[string]bool) bool {
	stems := map[string]bool{}
	for w := range node {
		stems[stem5(w)] = true
	}
	n := 0
	for w := range bullet {
		if stems[stem5(w)] && !strings.ContainsAny(w, "0123456789") {
			n++
		}
	}
	return n >= 2
}

// stem5 is the first five bytes of a word, or the word.
func stem5(w string) string {
	if len(w) > 5 {
		return w[:5]
	}
	return w
}
