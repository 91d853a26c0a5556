package classify

import (
	"strings"

	"github.com/smg-memory/smg/classify/encoder"
)

// Topics returns the words of a fact's sentence that may say what it is
// about: the words of each noun phrase that a determiner, a possessive or
// a number opens ("turtles" of "I adopted two turtles", "sneaker" and
// "collection" of "my sneaker collection"), written in lower case, four
// letters or more, no stop word, no word of talk, time, praise or amount,
// no adverb, adjective, past or -ing form; each once, in order. Which of them is a topic, the graph
// tells: one that facts of different turns share.
func (a *Analyzer) Topics(text string) []string {
	ws, _ := words(text)
	var out []string
	for i := 0; i+1 < len(ws); i++ {
		if !opensPhrase(ws[i]) {
			continue
		}
		// The word after the opener, and the one after it when the first
		// may be its modifier ("my sneaker collection"): the graph keeps
		// only what facts of two turns say.
		for j := i + 1; j < len(ws) && j <= i+2 && plainWord(ws[j]); j++ {
			w := ws[j]
			if len(w) >= 4 && !a.stop[w] && !talkWords[w] && !contains(out, w) && !adjectival(w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// adjectival reports a word with the ending of an adverb, an adjective,
// a past or an -ing form: no topic.
func adjectival(w string) bool {
	for _, suf := range []string{"ly", "ed", "ing", "ive", "ful", "ous", "able", "ible", "less", "ial", "ical"} {
		if strings.HasSuffix(w, suf) {
			return true
		}
	}
	return false
}

// opensPhrase reports whether w opens a noun phrase: an article, a
// possessive, a number.
func opensPhrase(w string) bool {
	switch strings.ToLower(w) {
	case "a", "an", "the", "my", "our", "his", "her", "their", "some", "two", "three", "four", "five", "six", "several", "few", "many":
		return true
	}
	return w != "" && w[0] >= '0' && w[0] <= '9'
}

// plainWord reports a word in lower-case letters only.
func plainWord(w string) bool {
	return w != "" && w == strings.ToLower(w) && allLetters(w)
}

// talkWords are the words that say no topic, in a phrase or alone
// ("sounds like", "really changed", "last week", "great day", "loved
// ones"): verbs of every sentence, time, praise, amounts.
var talkWords = set("be", "been", "being", "have", "has", "had", "having", "do", "does", "did", "doing", "done", "make", "makes",
	"making", "made", "keep", "keeps", "kept", "come", "comes", "came", "coming", "go", "goes", "going", "gone", "went", "get",
	"gets", "got", "getting", "take", "takes", "took", "taking", "see", "sees", "saw", "seen", "know", "knows", "knew", "think",
	"thinks", "thought", "feel", "feels", "felt", "feeling", "want", "wants", "wanted", "need", "needs", "needed", "like", "likes",
	"liked", "love", "loves", "loved", "loving", "sound", "sounds", "look", "looks", "looking", "seem", "seems", "use", "uses",
	"used", "using", "can", "could", "will", "would", "should", "may", "might", "must", "let", "lets", "say", "says", "said",
	"tell", "told", "try", "tried", "trying", "give", "gave", "given", "put", "mean", "means", "meant", "help", "helps", "helped",
	"really", "just", "also", "even", "still", "much", "many", "lot", "lots", "thing", "things", "stuff", "way", "ways", "time",
	"times", "day", "days", "week", "weeks", "month", "months", "year", "years", "today", "tomorrow", "yesterday", "tonight",
	"morning", "afternoon", "evening", "night", "weekend", "last", "next", "first", "new", "great", "good", "nice", "awesome",
	"amazing", "cool", "fun", "happy", "glad", "sure", "one", "ones", "hey", "thanks", "thank", "wow", "pretty", "super",
	"totally", "definitely", "absolutely", "example", "together", "part", "kind", "sort", "bit", "best", "better", "big", "little",
	"whole", "able", "glad", "excited", "proud", "special", "important", "different", "own", "right", "real", "sounds", "wonderful",
	"incredible", "beautiful", "fantastic", "tough", "hard", "easy", "people", "man", "men", "woman", "women", "guy", "guys",
	"girl", "girls", "boy", "boys", "person", "two", "three", "less", "more", "most", "very", "too", "quite", "either",
	"neither", "both", "each", "every", "other", "another", "such", "enjoy", "enjoys", "hope", "hopes", "plan", "plans",
	"start", "starts", "finish", "finishes", "work", "works", "live", "lives", "play", "plays", "read", "reads", "watch",
	"watches", "find", "finds", "visit", "visits", "share", "shares", "talk", "talks", "learn", "learns", "makes", "keeps",
	"always", "never", "sometimes", "often", "again", "maybe", "lately", "recently", "soon", "ago", "since", "around",
	"there", "here", "then", "than", "that", "this", "these", "those", "what", "when", "where", "which", "while", "with",
	"about", "from", "into", "over", "your", "yours", "their", "them", "they", "were", "been", "just", "really", "also",
	"something", "anything", "everything", "someone", "everyone", "anyone", "nothing", "life", "love", "fact", "idea",
	// The function words of other languages a chat may be in.
	"des", "les", "le", "la", "du", "de", "et", "est", "une", "un", "pour", "avec", "dans", "sur", "avez", "voici", "que",
	"qui", "el", "los", "las", "una", "por", "para", "con", "der", "die", "das", "und", "ist", "mit", "ve", "bir", "ile")

// Frequent reports whether word, in lower case, is among the few thousand
// most frequent words of English text (those with a piece of their own in
// the built-in encoder's vocabulary): "First", "Result", "Location" are
// such words; "Catan", "Iguodala", "Flexbox" are not.
func Frequent(word string) bool { return encoder.Frequent(word) }
