package classify

// A wordFinder looks for an entity of its kind that starts at word i of
// s, which no entity found before covers. If it finds one, it appends it
// to s.out and returns the index of the last word the entity covers, and
// true; if not, it returns false and changes nothing. It reads what an
// entityFinder reads.
type wordFinder func(s *entityScan, i int) (last int, ok bool)

// wordFinders are tried in this order at each word, and the first to find
// an entity there wins: a path ("docs/README.md") before the identifier or
// the name its first word could be, an identifier ("useState") before a
// name.
var wordFinders = []wordFinder{pathAt, identifierAt, nameAt}

// findWordEntities walks the words of the prose and finds, at each word
// that no entity covers, the path, identifier or name that starts there.
// These kinds are found in one walk, not a finder each, because an entity
// claims the words it covers: the name "Alice My_Var" covers the word
// that would otherwise be an identifier.
func findWordEntities(s *entityScan) {
	for i := 0; i < len(s.ws); i++ {
		if !s.taken(s.offs[i], s.offs[i]+len(s.ws[i])) {
			i = s.wordEntity(i)
		}
	}
}

// wordEntity runs the wordFinders at word i, and returns the index of the
// last word of the entity one of them found there, or i.
func (s *entityScan) wordEntity(i int) int {
	for _, find := range wordFinders {
		if last, ok := find(s, i); ok {
			return last
		}
	}
	return i
}
