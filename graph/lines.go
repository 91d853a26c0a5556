package graph

import (
	"slices"
)

// lineIndex indexes the lines (as [lineSet] reads them) of the latest
// versions of the unnamed artifacts, by language, so that finding the one
// a new piece of code continues looks only at the artifacts that share a
// line with it, not at every one.
type lineIndex struct {
	// posts are, by language and line, the places (in vaultState.unnamed)
	// of the artifacts whose latest version has the line.
	posts map[string]map[string][]int32
	// size is, by place, the number of lines of the artifact's latest
	// version.
	size []int32
	// common is scratch for best: by place, the lines shared.
	common []int32
}

// replace indexes the lines of now for the artifact at place i of the
// given language, in place of those of before.
func (x *lineIndex) replace(i int, lang, before, now string) {
	if x.posts == nil {
		x.posts = map[string]map[string][]int32{}
	}
	posts := x.posts[lang]
	if posts == nil {
		posts = map[string][]int32{}
		x.posts[lang] = posts
	}
	for l := range lineSet(before) {
		ps := posts[l]
		if k := slices.Index(ps, int32(i)); k >= 0 {
			ps = slices.Delete(ps, k, k+1)
		}
		if len(ps) == 0 {
			delete(posts, l)
		} else {
			posts[l] = ps
		}
	}
	set := lineSet(now)
	for l := range set {
		l = intern(l) // the key outlives this version
		posts[l] = append(posts[l], int32(i))
	}
	for len(x.size) <= i {
		x.size = append(x.size, 0)
	}
	x.size[i] = int32(len(set))
}

// best returns, of the artifacts of the language, the one (named by id
// from its place) whose latest version shares the greatest share of its
// lines or of lines with the other, if at least overlapSame; of equal
// shares, the last in place order.
func (x *lineIndex) best(lang string, lines map[string]bool, id func(int) string) string {
	posts := x.posts[lang]
	if len(posts) == 0 {
		return ""
	}
	if len(x.common) < len(x.size) {
		x.common = make([]int32, len(x.size))
	}
	var touched []int32
	for l := range lines {
		for _, i := range posts[l] {
			if x.common[i] == 0 {
				touched = append(touched, i)
			}
			x.common[i]++
		}
	}
	slices.Sort(touched)
	best, bestScore := -1, overlapSame
	for _, i := range touched {
		common, other := x.common[i], x.size[i]
		x.common[i] = 0
		if score := float64(common) / float64(min(len(lines), int(other))); score >= bestScore && other > 0 {
			best, bestScore = int(i), score
		}
	}
	if best < 0 {
		return ""
	}
	return id(best)
}
