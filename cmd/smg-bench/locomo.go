package main

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/smg/importer"
)

// The question categories of LoCoMo (Maharana et al. 2024; the numbers as
// in its data).
const (
	multiHop    = 1 // evidence in several sessions
	temporal    = 2 // when something happened
	openDomain  = 3 // needs world knowledge on top of the conversation
	singleHop   = 4
	adversarial = 5 // the answer is not in the conversation
)

// locomoSample is the question part of one LoCoMo sample. It is read
// apart from the importer, which never reads qa: the questions must not
// reach the memory.
type locomoSample struct {
	ID string
	// HasConversation tells whether the importer reads the sample's
	// conversation: whether the sample has a conversation object and a
	// sample_id that is a string, a number or nothing. The importer leaves
	// out the other samples.
	HasConversation bool
	Questions       []locomoQuestion
}

// locomoQuestion is one question, with its evidence as the file gives it.
// The answer is not kept: recall does not need it, and it is a string or a
// number.
type locomoQuestion struct {
	Question string
	// Category is 1 to 5, or 0 when the file gives none or one that is not
	// a number.
	Category int
	// Ability is what a BEAM question tests ("knowledge_update"), an
	// extra field of beam-dev.json; "" elsewhere.
	Ability string
	// Evidence are the strings of the evidence list; a member that is not
	// a string is an empty string here, and is dropped by repairEvidence.
	Evidence []string
}

// readLoCoMoQA reads the samples of a LoCoMo file, in order: a JSON array
// of samples, or one sample. Only sample_id and qa are read (and whether
// there is a conversation); a question is {question, answer, evidence,
// category, adversarial_answer?}. An element of the array that is not an
// object is no sample, and is left out as the importer leaves it out.
func readLoCoMoQA(data []byte) ([]locomoSample, error) {
	var raw jsontext.Value
	if err := json.Unmarshal(data, &raw, lenient); err != nil {
		return nil, fmt.Errorf("reading the questions: %w", err)
	}
	var elems []jsontext.Value
	switch raw.Kind() {
	case '[':
		if err := json.Unmarshal(raw, &elems, lenient); err != nil {
			return nil, fmt.Errorf("reading the questions: %w", err)
		}
	case '{':
		elems = []jsontext.Value{raw}
	default:
		return nil, fmt.Errorf("reading the questions: want a JSON array of LoCoMo samples, not %v", raw.Kind())
	}
	var out []locomoSample
	for i, e := range elems {
		if e.Kind() != '{' {
			continue
		}
		var s rawSample
		if err := json.Unmarshal(e, &s, lenient); err != nil {
			return nil, fmt.Errorf("reading the questions: sample %d: %w", i, err)
		}
		ls := locomoSample{ID: scalar(s.SampleID), HasConversation: s.Conversation.Kind() == '{'}
		switch s.SampleID.Kind() {
		case 0, 'n', '"', '0':
		default:
			ls.HasConversation = false
		}
		for j, q := range s.QA {
			lq := locomoQuestion{Question: scalar(q.Question), Category: category(q.Category), Ability: scalar(q.Ability)}
			switch q.Evidence.Kind() {
			case '[':
				var ev []jsontext.Value
				if err := json.Unmarshal(q.Evidence, &ev, lenient); err != nil {
					return nil, fmt.Errorf("reading the questions: sample %d, question %d: evidence: %w", i, j, err)
				}
				for _, e := range ev {
					if e.Kind() == '"' {
						lq.Evidence = append(lq.Evidence, scalar(e))
					} else {
						lq.Evidence = append(lq.Evidence, "")
					}
				}
			case '"':
				lq.Evidence = []string{scalar(q.Evidence)}
			}
			ls.Questions = append(ls.Questions, lq)
		}
		out = append(out, ls)
	}
	return out, nil
}

// readLoCoMo reads a LoCoMo file: its samples, in order, and the
// conversation of each, the i-th conversation the i-th sample's (with no
// turns when the sample has none); skipped counts the malformed turns and
// samples the importer left out. The importer returns the samples'
// conversations in order, leaving out those it cannot read: a sample with
// a conversation it did not read is an error.
func readLoCoMo(name string) (samples []locomoSample, convs []importer.Conversation, skipped int, err error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, nil, 0, err
	}
	if samples, err = readLoCoMoQA(data); err != nil {
		return nil, nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	res, err := importer.Read(bytes.NewReader(data), importer.Options{Format: importer.LoCoMo, Name: name})
	if err != nil {
		return nil, nil, 0, err
	}
	convs = make([]importer.Conversation, len(samples))
	next := 0 // the next conversation of res to pair with a sample
	for i, s := range samples {
		if !s.HasConversation {
			continue
		}
		if next == len(res.Conversations) || res.Conversations[next].ID != s.ID {
			return nil, nil, 0, fmt.Errorf("%s: sample %d (%q): the importer read no conversation for it", name, i, s.ID)
		}
		convs[i] = res.Conversations[next]
		next++
	}
	return samples, convs, len(res.Skipped), nil
}

// lenient reads JSON as the importer does: a name given twice, or
// invalid UTF-8, is not an error.
var lenient = json.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

// rawSample and rawQA are a sample and a question as they are in the file;
// every member but these is ignored.
type rawSample struct {
	SampleID     jsontext.Value `json:"sample_id"`
	Conversation jsontext.Value `json:"conversation"`
	QA           []rawQA        `json:"qa"`
}

type rawQA struct {
	Question jsontext.Value `json:"question"`
	Evidence jsontext.Value `json:"evidence"`
	Category jsontext.Value `json:"category"`
	Ability  jsontext.Value `json:"ability"`
}

// scalar is a JSON string's value, or a number's text; "" otherwise.
func scalar(v jsontext.Value) string {
	switch v.Kind() {
	case '"':
		var s string
		if json.Unmarshal(v, &s, lenient) == nil {
			return s
		}
	case '0':
		return string(v)
	}
	return ""
}

// category is a category given as a number or a string of digits, or 0.
func category(v jsontext.Value) int {
	n, err := strconv.Atoi(strings.TrimSpace(scalar(v)))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// evidenceCounts counts what repairEvidence did to evidence ids.
type evidenceCounts struct {
	// Valid ids are those kept, Repaired those of them that had to be
	// rewritten (split from a string holding several, or spelt another
	// way), Dropped those that are no dialogue id or not one of the
	// conversation (Duplicates, the same id twice in a question, are
	// dropped too and counted in both).
	Valid, Repaired, Dropped, Duplicates int
}

// diaID is a LoCoMo dialogue id, "D<session>:<turn>", as the quirks of the
// evidence lists spell it too: "D:11:26", "D30:05".
var diaID = regexp.MustCompile(`^[Dd]:?0*(\d+):0*(\d+)$`)

// canonicalDiaID is id as "D<session>:<turn>" without leading zeros, or ""
// when id is no dialogue id.
func canonicalDiaID(id string) string {
	m := diaID.FindStringSubmatch(id)
	if m == nil {
		return ""
	}
	return "D" + m[1] + ":" + m[2]
}

// evidenceSet is the dialogue ids of a conversation's turns, to check
// evidence against.
type evidenceSet struct {
	ids       map[string]bool   // the ids as the turns give them
	canonical map[string]string // canonicalDiaID(id) → id
}

func newEvidenceSet(ids []string) evidenceSet {
	s := evidenceSet{ids: map[string]bool{}, canonical: map[string]string{}}
	for _, id := range ids {
		if id == "" {
			continue
		}
		s.ids[id] = true
		if c := canonicalDiaID(id); c != "" {
			if _, ok := s.canonical[c]; !ok {
				s.canonical[c] = id
			}
		}
	}
	return s
}

// repairEvidence returns the turn ids a question's evidence names, each
// once, in order, as the conversation's turns spell them. A string that
// holds several ids (separated by ';', ',' or spaces) is split; an id
// spelt another way ("D:11:26", "D30:05") is rewritten; an id that is no
// dialogue id (a bare "D") or not one of the conversation's is dropped.
func repairEvidence(evidence []string, turns evidenceSet) ([]string, evidenceCounts) {
	var out []string
	var c evidenceCounts
	seen := map[string]bool{}
	for _, s := range evidence {
		parts := strings.FieldsFunc(s, func(r rune) bool {
			return r == ';' || r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
		})
		if len(parts) == 0 {
			c.Dropped++
			continue
		}
		for _, p := range parts {
			id, repaired := p, len(parts) > 1
			if !turns.ids[id] {
				id, repaired = turns.canonical[canonicalDiaID(p)], true
			}
			switch {
			case id == "":
				c.Dropped++
			case seen[id]:
				c.Dropped++
				c.Duplicates++
			default:
				seen[id] = true
				out = append(out, id)
				c.Valid++
				if repaired {
					c.Repaired++
				}
			}
		}
	}
	return out, c
}
