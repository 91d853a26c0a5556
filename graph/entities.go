package graph

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/smg-memory/smg/classify"
	"github.com/smg-memory/smg/spec"
)

// entityIndex resolves the names a conversation uses to the nodes they
// name: variants of case, plural and possessive share a key; a nickname
// that is the start of a speaker's name ("Mel", "Melanie") is that speaker;
// a capitalized word that only ever starts sentences waits until it shows
// up capitalized mid-sentence before it counts as a name.
type entityIndex struct {
	byKey    map[string]string // entity key → node id
	speakers map[string]string // lowercase name → speaker's key
	mid      map[string]bool   // keys seen capitalized mid-sentence
	pending  map[string][]pendingUse
	// strs are the forms and hints of the pending uses, numbered by
	// strIDs.
	strs   []string
	strIDs map[string]uint32
	// edgeWords files multiword names under their first and last words.
	edgeWords map[string][]string
	// lower counts, by word, the turns that write it in lower case,
	// capital those that write it capitalized within a sentence.
	lower, capital map[string]int
	// capitalOthers counts the turns of capital not the assistant's,
	// lowerOthers those of lower.
	capitalOthers, lowerOthers map[string]int
	// lowerTurns are, by word, the first lowerTurnsKept turns that write
	// it in lower case.
	lowerTurns map[string][]int
	// topics are, by the term of a fact's topic word, the latest facts
	// that said it.
	topics map[string][]string
	// self are the keys of the names that a user of no name in the
	// transcript gave themselves ("I'm Christina"): they name the user,
	// who is no concept of the memory, as in any chat of one user.
	self map[string]bool
}

// lowerTurnsKept is how many of a word's first turns in lower case are
// kept: a name found later takes them as its mentions ("create a flutter
// project" before "Flutter" is written).
const lowerTurnsKept = 8

// pendingUse is a use of a name that waits: a long memory has hundreds of
// thousands (half a million in 38,912 turns of project chats), so it is
// small, its form and hint strings of the index (entityIndex.str).
type pendingUse struct {
	turn       int32
	form, hint uint32
	flags      useFlags
}

type useFlags uint8

const (
	// useOthers: the use is not the assistant's, and names the thing (it
	// does not start a sentence).
	useOthers useFlags = 1 << iota
	// useRelay: the use is in a relay of the assistant's reply, a copy.
	useRelay
	// useAddressed: the use speaks to the one named ("Hey Mel!"), so it
	// gives a form of their name but is no mention of them.
	useAddressed
)

func (u pendingUse) others() bool    { return u.flags&useOthers != 0 }
func (u pendingUse) relay() bool     { return u.flags&useRelay != 0 }
func (u pendingUse) addressed() bool { return u.flags&useAddressed != 0 }

// flagIf is f when b, else none.
func flagIf(b bool, f useFlags) useFlags {
	if b {
		return f
	}
	return 0
}

// wait files a use at turn of the entity e, whose key is key, until it
// names a node.
func (x *entityIndex) wait(key string, turn int, e classify.Entity, flags useFlags) {
	x.pending[key] = append(x.pending[key], pendingUse{turn: int32(turn), form: x.strID(e.Text), hint: x.strID(e.Hint), flags: flags})
}

// strID is the number of s among the index's strings, a copy of s added
// when it is new.
func (x *entityIndex) strID(s string) uint32 {
	id, ok := x.strIDs[s]
	if !ok {
		s = strings.Clone(s)
		id = uint32(len(x.strs))
		x.strs = append(x.strs, s)
		x.strIDs[s] = id
	}
	return id
}

// str is the string of number id.
func (x *entityIndex) str(id uint32) string { return x.strs[id] }

// replies counts the turns that said the entity of key, with turn: its
// waiting uses and this one, but for relays, which copied a reply.
func (b *Builder) replies(key string, turn int) int {
	n := 0
	for _, u := range b.ents.pending[key] {
		if !u.relay() {
			n++
		}
	}
	if turn != b.relayed {
		n++
	}
	return n
}

// namedByOthers reports whether a use of uses is not the assistant's.
func namedByOthers(uses []pendingUse) bool {
	for _, u := range uses {
		if u.others() {
			return true
		}
	}
	return false
}

func newEntityIndex() entityIndex {
	return entityIndex{byKey: map[string]string{}, speakers: map[string]string{}, mid: map[string]bool{}, pending: map[string][]pendingUse{}, strIDs: map[string]uint32{}, edgeWords: map[string][]string{}, lower: map[string]int{}, capital: map[string]int{}, capitalOthers: map[string]int{}, lowerOthers: map[string]int{}, lowerTurns: map[string][]int{}, topics: map[string][]string{}, self: map[string]bool{}}
}

// forget removes every trace of the entity key: a name mentioned again
// after its node was removed makes one new node, as a name never seen
// does.
func (x *entityIndex) forget(key string) {
	delete(x.byKey, key)
	delete(x.mid, key)
	delete(x.pending, key)
	for w, keys := range x.edgeWords {
		if keys = slices.DeleteFunc(keys, func(k string) bool { return k == key }); len(keys) == 0 {
			delete(x.edgeWords, w)
		} else {
			x.edgeWords[w] = keys
		}
	}
}

// entityKey is the key of a named thing: its analyzed terms, or, when
// analysis leaves nothing (stop words only), its lowercase form; a short
// acronym that is another word in lower case is keyed as written.
func (b *Builder) entityKey(kind, text string) string {
	if kind == "name" && len(text) <= 3 && otherWord(text) {
		// "US" is not "us", nor "use", "used" and "using", whose stem
		// it shares. (A longer word in capitals, "ERROR", is the word
		// shouted.)
		return "name:" + text
	}
	switch kind {
	case "name", "term":
		if ts := b.an.Terms(text); len(ts) > 0 {
			return "name:" + strings.Join(ts, " ")
		}
		return "name:" + strings.ToLower(text)
	}
	return kind + ":" + strings.ToLower(text)
}

// speaker makes sure the author of a turn has a person node.
func (b *Builder) speaker(name string) string {
	if key, ok := b.ents.speakers[strings.ToLower(name)]; ok && b.ents.byKey[key] != "" {
		id := b.ents.byKey[key] // known: the work below is done once
		if n := b.store.Node(id); n != nil && n.Kind == "" {
			n.Kind = spec.KindPerson // (a state written before kinds of persons)
		}
		return id
	}
	key := b.entityKey("name", name)
	b.ents.speakers[strings.ToLower(name)] = key
	if f := strings.Fields(name); len(f) > 1 {
		b.ents.speakers[strings.ToLower(f[0])] = key
	}
	b.ents.mid[key] = true
	id := b.ents.byKey[key]
	if id == "" {
		id = b.newID("concept", name, key)
		b.ents.byKey[key] = id
		n := b.create(id, spec.NodeConcept, name)
		n.Confidence = 0.9
		b.addForm(id, name)
	}
	b.info[id].kind = "person" // a speaker is a person, whatever named them first
	b.store.Node(id).Kind = spec.KindPerson
	// A nickname used before its owner spoke ("Hey Mel!" before Melanie's
	// first turn) made a node of its own: it is hers.
	first := strings.ToLower(strings.Fields(name)[0])
	for k, other := range b.ents.byKey {
		word := strings.TrimPrefix(k, "name:")
		if other == id || !strings.HasPrefix(k, "name:") || strings.Contains(word, " ") || len(word) < 3 ||
			!strings.HasPrefix(first, word) || b.info[other] == nil || b.info[other].kind != "name" {
			continue
		}
		b.merge(other, id)
		b.ents.byKey[k] = id
	}
	// Or it waits, as a name only addressed does ("Hey Mel!"): its uses
	// are hers.
	for k, uses := range b.ents.pending {
		if word := strings.TrimPrefix(k, "name:"); b.ents.byKey[k] != "" && b.ents.byKey[k] != id || strings.Contains(word, " ") || len(word) < 3 || !strings.HasPrefix(first, word) {
			continue
		}
		for _, u := range uses {
			if !u.addressed() {
				b.mention(id, int(u.turn))
			}
			b.addForm(id, b.ents.str(u.form))
		}
		delete(b.ents.pending, k)
		b.ents.byKey[k] = id
	}
	return id
}

// merge moves a node into another: its mentions, forms, hints and edges.
func (b *Builder) merge(from, into string) {
	f := b.store.Node(from)
	for _, m := range f.Mentions {
		b.mention(into, m)
	}
	fi, ti := b.info[from], b.info[into]
	for form, c := range fi.forms {
		if ti.forms == nil {
			ti.forms = map[string]int{}
			ti.firstForm = form
		}
		ti.forms[form] += c
	}
	for h, c := range fi.hints {
		if ti.hints == nil {
			ti.hints = map[string]int{}
		}
		ti.hints[h] += c
	}
	ti.cues += fi.cues
	ti.words += fi.words
	for _, to := range b.store.Out(from) {
		for rel, w := range b.store.Relations(from, to) {
			b.store.Link(into, to, rel, w)
		}
	}
	for _, src := range b.store.In(from) {
		for rel, w := range b.store.Relations(src, from) {
			b.store.Link(src, into, rel, w)
		}
	}
	b.store.Remove(from)
	delete(b.info, from)
}

// resolveNickname maps a single-word name that starts a speaker's name to
// that speaker's key.
func (b *Builder) resolveNickname(text, key string) string {
	if _, ok := b.ents.byKey[key]; ok || strings.Contains(text, " ") || len(text) < 3 {
		return key
	}
	lower := strings.ToLower(text)
	var hits []string
	for name, k := range b.ents.speakers {
		if len(name) > len(lower) && strings.HasPrefix(name, lower) && !slices.Contains(hits, k) {
			hits = append(hits, k)
		}
	}
	if len(hits) == 1 {
		return hits[0]
	}
	// "Elements" after "Stripe Elements": a word that ends or starts one
	// known multiword name, as the name writes it, is that name
	// ("Schedule" is not "Scheduled Grammarly Premium").
	for _, k := range b.ents.edgeWords[strings.TrimPrefix(key, "name:")] {
		if id := b.ents.byKey[k]; id != "" && b.info[id] != nil && b.info[id].kind == "name" && !slices.Contains(hits, k) && b.edgeForm(id, text) {
			hits = append(hits, k)
		}
	}
	if len(hits) == 1 {
		return hits[0]
	}
	return key
}

// edgeForm reports whether a form of the node id starts or ends with the
// word, in any case.
func (b *Builder) edgeForm(id, word string) bool {
	for f := range b.info[id].forms {
		if ws := strings.Fields(f); len(ws) > 1 && (strings.EqualFold(ws[0], word) || strings.EqualFold(ws[len(ws)-1], word)) {
			return true
		}
	}
	return false
}

// indexName files a multiword name's key under its first and last words.
func (ix *entityIndex) indexName(key string) {
	words := strings.Fields(strings.TrimPrefix(key, "name:"))
	if !strings.HasPrefix(key, "name:") || len(words) < 2 {
		return
	}
	ix.edgeWords[words[0]] = append(ix.edgeWords[words[0]], key)
	if last := words[len(words)-1]; last != words[0] {
		ix.edgeWords[last] = append(ix.edgeWords[last], key)
	}
}

// lowerUses is how many turns must write a word in lower case for its
// capitalized use alone to be that word, not a name.
const lowerUses = 3

// commonWord reports whether name is one word that the conversation writes
// in lower case in lowerUses turns or more, and more often than
// capitalized within a sentence (lower and capital count the turns), or a
// frequent English word written capitalized in fewer than
// frequentCapitals turns (one of them not the assistant's): "Note",
// "Phase" and "First" are words, "Flutter"
// in "flutter run" a name; an acronym ("API") is not asked.
func commonWord(name string, ents *entityIndex) bool {
	if strings.ContainsAny(name, " -.") || strings.ToUpper(name) == name {
		return false
	}
	w := strings.ToLower(name)
	if ents.lower[w] >= lowerUses && ents.lower[w] > ents.capital[w] {
		return true
	}
	// A frequent English word ("First", "Result") is a name only once
	// sentences of two turns write it capitalized, one of them not the
	// assistant's ("Present" and "[Location]" of its résumé templates are
	// words).
	return (ents.capital[w] < frequentCapitals || ents.capitalOthers[w] == 0) && classify.Frequent(w)
}

// otherWord reports whether a name in capitals is another word than the
// same letters in lower case: the acronym or method "PUT" is not "put", "US"
// not "us". ("API" is "api", a word of no other meaning.)
func otherWord(name string) bool {
	return len(name) > 1 && strings.ToUpper(name) == name && classify.Frequent(name)
}

// wordOfCode reports whether a name of code is a frequent English word
// as it is ("id", "email", "name").
func wordOfCode(name string) bool {
	for _, r := range name {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return classify.Frequent(name)
}

// frequentCapitals is how many turns must write a frequent English word
// capitalized within a sentence for it to be a name ("React", "Black").
const frequentCapitals = 2

// assistantMentions is how many turns of the assistant alone make a thing
// it names a concept.
const assistantMentions = 5

// entity returns the node of an entity mentioned at turn (byAssistant:
// in the assistant's words), creating it, or "" when the entity is not
// (yet) taken for a name or does not (yet) matter.
func (b *Builder) entity(e classify.Entity, turn int, byAssistant bool) string {
	key := b.entityKey(e.Kind, e.Text)
	if e.Kind == "name" && e.Tail != "" && b.ents.byKey[key] == "" {
		// "Take Pico": when the name without its first word is known, it
		// is that name.
		if tk := b.resolveNickname(e.Tail, b.entityKey("name", e.Tail)); b.ents.byKey[tk] != "" || b.ents.mid[tk] {
			e.Text, e.SentenceStart, key = e.Tail, false, tk
		}
	}
	if b.ents.self[key] {
		return "" // the user, by the name they gave
	}
	if e.Kind == "name" {
		key = b.resolveNickname(e.Text, key)
		if e.SentenceStart && !b.ents.mid[key] && b.ents.byKey[key] == "" {
			// A sentence's first word names nothing yet, whoever says it.
			b.ents.wait(key, turn, e, flagIf(e.Addressed, useAddressed))
			return ""
		}
		if !e.SentenceStart {
			b.ents.mid[key] = true
		}
	}
	id := b.ents.byKey[key]
	if id != "" && e.Addressed {
		// "Hey Maria!" speaks to Maria; the turn is not about her.
		b.addForm(id, e.Text)
		return ""
	}
	if id == "" && e.Kind == "name" && commonWord(e.Text, &b.ents) {
		// A word of the language, capitalized here ("Note", "Phase",
		// "First"): its uses wait in case it proves a name.
		b.ents.wait(key, turn, e, flagIf(!byAssistant, useOthers))
		return ""
	}
	if id == "" && e.Listed && byAssistant {
		// One of many the assistant lists (the fields of a model, the
		// files of a plan): a mention of what is named elsewhere. A
		// person's list is what they work on, and stays.
		b.ents.wait(key, turn, e, flagIf(turn == b.relayed, useRelay))
		return ""
	}
	if id == "" && e.Kind == "identifier" && !slices.ContainsFunc(b.ents.pending[key], func(u pendingUse) bool { return int(u.turn) != turn }) {
		// A name of code said in one turn (a variable of a pasted
		// snippet) does not matter yet; said in a second turn, it does.
		if len(b.ents.pending[key]) == 0 {
			b.ents.wait(key, turn, e, flagIf(!byAssistant, useOthers))
		}
		return ""
	}
	if id == "" && byAssistant && !namedByOthers(b.ents.pending[key]) &&
		(e.Kind == "name" && (b.ents.lowerOthers[strings.ToLower(e.Text)] == 0 || otherWord(e.Text)) ||
			e.Kind == "identifier" && wordOfCode(e.Text) && b.ents.lowerOthers[e.Text] == 0 ||
			b.replies(key, turn) < assistantMentions) {
		// What only the assistant names matters when the user names it
		// too. A name of code or a file matters too when the assistant
		// keeps coming back to it (a relay of its reply is no coming
		// back), unless it is a word of the language (`id`, `name`: its
		// tutorial's vocabulary), and so does a name the user wrote in
		// lower case ("create a flutter project", then the assistant's
		// "Flutter"): an example in a list, a tool in advice, a variable
		// in an explanation, does not.
		b.ents.wait(key, turn, e, flagIf(turn == b.relayed, useRelay))
		return ""
	}
	if id == "" {
		id = b.newID("concept", e.Text, key)
		b.ents.byKey[key] = id
		b.ents.indexName(key)
		n := b.create(id, spec.NodeConcept, e.Text)
		n.Confidence = 0.7
		info := b.info[id]
		info.kind = e.Kind
		// A name that waited at sentence starts takes its earlier uses,
		// and a name of one word those in lower case.
		for _, p := range b.ents.pending[key] {
			if !p.addressed() {
				b.mention(id, int(p.turn))
			}
			b.addForm(id, b.ents.str(p.form))
			b.hint(id, b.ents.str(p.hint))
		}
		delete(b.ents.pending, key)
		if e.Kind == "name" && !strings.ContainsAny(e.Text, " -.") && !otherWord(e.Text) {
			for _, u := range b.ents.lowerTurns[strings.ToLower(e.Text)] {
				b.mention(id, u)
			}
		}
	}
	b.mention(id, turn)
	b.addForm(id, e.Text)
	b.hint(id, e.Hint)
	return id
}

func (b *Builder) addForm(id, form string) {
	info := b.info[id]
	form = intern(form)
	if info.forms == nil {
		info.forms = map[string]int{}
		info.firstForm = form
	}
	info.forms[form]++
}

func (b *Builder) hint(id, h string) {
	if h == "" {
		return
	}
	info := b.info[id]
	if info.hints == nil {
		info.hints = map[string]int{}
	}
	info.hints[h]++
}

// label chooses a concept's label (its most used form, the first on a tie)
// and aliases (its other forms).
func labelAndAliases(info *nodeInfo) (string, []string) {
	// The most used form wins; on a tie the first form seen, and among
	// later forms the alphabetically first (map order must not matter).
	best := info.firstForm
	for f, c := range info.forms {
		bc := info.forms[best]
		if c > bc || c == bc && best != info.firstForm && f < best {
			best = f
		}
	}
	if info.kind != "person" {
		// A short form is the name's shorthand ("Game" for "Game of
		// Thrones"): the full name labels it, the longest and then the
		// alphabetically first.
		full := best
		for f := range info.forms {
			if len(f) > len(full) && extends(f, best) || len(f) == len(full) && f != full && f < full && extends(f, best) {
				full = f
			}
		}
		best = full
	}
	var aliases []string
	for f := range info.forms {
		if f != best {
			aliases = append(aliases, f)
		}
	}
	slices.Sort(aliases)
	if len(aliases) > 10 {
		aliases = aliases[:10]
	}
	return best, aliases
}

// extends reports whether name is short's words and more, short at its
// start or its end ("Game of Thrones" of "Game", "Ed Sheeran" of
// "Sheeran").
func extends(name, short string) bool {
	n, sh := strings.ToLower(name), strings.ToLower(short)
	return len(n) > len(sh) && (strings.HasPrefix(n, sh+" ") || strings.HasSuffix(n, " "+sh))
}

// kindOf says what a concept is, from its entity kind and the hints of its
// contexts.
func kindOf(info *nodeInfo) string {
	if info.kind != "name" {
		return info.kind
	}
	person, place := info.hints["person"], info.hints["place"]
	switch {
	case person > place && person > 0:
		return "person"
	case place > person:
		return "place"
	}
	return "name"
}

// newID makes a node id from a type and a text: the type, a slug of the
// text, and, when the slug is taken by another key, a hash of the key.
// Derived from content alone, it is the same whatever the order of
// ingestion.
func (b *Builder) newID(prefix, text, key string) string {
	id := prefix + "-" + slug(text, 48)
	if n := b.store.Node(id); n == nil && !b.vault.hasID(id) {
		return id
	}
	return prefix + "-" + slug(text, 40) + "-" + shortHash(key)
}

// ascii strips the accents from Latin letters, "Cádiz" → "Cadiz", so
// that ids keep the letters of names. Text that is ASCII already passes
// through without a copy.
func ascii(text string) string {
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
			if s, _, err := transform.String(t, text); err == nil {
				return s
			}
			return text
		}
	}
	return text
}

// slug is a readable, id-safe form of text: lowercase letters, digits and
// hyphens, at most n bytes, cut at a hyphen.
func slug(text string, n int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(ascii(text)) {
		switch {
		case r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > n {
		s = s[:n]
		if i := strings.LastIndexByte(s, '-'); i > n/2 {
			s = s[:i]
		}
		s = strings.Trim(s, "-")
	}
	if s == "" {
		s = "x"
	}
	return s
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:3])
}

// derivedID makes a memory's id from its first turn, formatted as a UUID
// (version 8, RFC 9562): the same conversation gives the same id.
func derivedID(t spec.Turn) string {
	js, _ := spec.MarshalCanonical(t)
	sum := sha256.Sum256(js)
	sum[6] = sum[6]&0x0f | 0x80 // version 8
	sum[8] = sum[8]&0x3f | 0x80 // RFC 9562 variant
	h := hex.EncodeToString(sum[:16])
	return fmt.Sprintf("%s-%s-%s-%s-%s", h[:8], h[8:12], h[12:16], h[16:20], h[20:32])
}

// randomID is a random UUID (version 4).
func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand does not fail
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return fmt.Sprintf("%s-%s-%s-%s-%s", h[:8], h[8:12], h[12:16], h[16:20], h[20:32])
}
