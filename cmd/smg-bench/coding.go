package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/go-json-experiment/json"
	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/classify"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/spec"
)

// A codingQuestion is a question asked of a coding session's memory, with
// the turns that answer it: a line of testdata/labels/questions-aider.jsonl.
type codingQuestion struct {
	// Session is the log's file name without ".md", in the --data
	// directory.
	Session  string           `json:"session"`
	Question string           `json:"question"`
	Evidence []codingEvidence `json:"evidence"`
}

// codingEvidence is a turn that answers a question: its number, from 1, as
// the importer reads the log, and the first 12 hex digits of the SHA-256
// of its content, which check that the importer still reads it so.
type codingEvidence struct {
	Turn    int    `json:"turn"`
	Content string `json:"content"`
}

// contentKey is the check of a turn's content a codingEvidence keeps.
func contentKey(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:6])
}

// codingReport is what coding-recall measures.
type codingReport struct {
	Data      string `json:"data"`
	Questions string `json:"questions"`
	Tokenizer string `json:"tokenizer"`
	Budgets   []int  `json:"budgets"`
	Sessions  int    `json:"sessions"`
	Asked     int    `json:"asked"`
	// Recall is the mean evidence recall of each system at each budget,
	// in the order of Budgets.
	Recall map[string][]float64 `json:"recall"`
	// Chatter is, at each budget, the tokens of smg's contexts that are
	// tool chatter (classify.ToolChatter lines: slash commands, token and
	// cost lines, edit notices), summed over the questions; WithChatter
	// the contexts that hold any.
	Chatter     []int `json:"chatterTokens"`
	WithChatter []int `json:"contextsWithChatter"`
	// Fixes are the problems of the sessions' memories that a change
	// with files solved, each asked "How did we fix …?" with its label;
	// Together, at each budget, those whose context holds the problem or
	// the change with the other and the files' versions (the item's
	// SolvedBy or Solves, and its Files).
	Fixes    int   `json:"fixes"`
	Together []int `json:"fixesFoundTogether"`
}

func codingRecallCommand(stdout io.Writer) *cobra.Command {
	var data, questions, tokenizer string
	var budgets []int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "coding-recall --data DIR --questions FILE",
		Short: "Measure the contexts of questions over coding sessions: evidence recall against BM25, and the tool chatter they hold",
		Long: `coding-recall builds the memory of each aider log that the questions name
(DIR/SESSION.md), without vectors, and asks it each question at each budget.
A question's recall is the share of the turns that answer it that its
context includes; BM25 over single turns and over the passages smg indexes,
packed under the same budgets, are the baselines. It also counts the tokens
of each context that are tool chatter: commands to the agent ("/undo"), and
the agent's lines of its own work (token counts, costs, "Applied edit to").

The questions are JSON lines {"session", "question", "evidence": [{"turn",
"content"}]}: each turn numbered from 1 as the importer reads the log, with
the first 12 hex digits of the SHA-256 of its content; a turn that does not
match is an error (the importer reads the log otherwise than when the
questions were written).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if data == "" || questions == "" {
				return errors.New("coding-recall: --data DIR and --questions FILE are required")
			}
			rep, err := measureCodingRecall(cmd.Context(), data, questions, tokenizer, budgets)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(stdout, rep)
			}
			return writeCodingRecall(stdout, rep)
		},
	}
	f := cmd.Flags()
	f.StringVar(&data, "data", "", "the directory of the aider logs (aider-dev)")
	f.StringVar(&questions, "questions", "", "the questions, JSON lines")
	f.IntSliceVar(&budgets, "budgets", []int{1000, 4000}, "the token budgets")
	f.StringVar(&tokenizer, "tokenizer", smg.CL100K, "count tokens with cl100k, o200k or estimate")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// readCodingQuestions reads a file of codingQuestions.
func readCodingQuestions(name string) ([]codingQuestion, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []codingQuestion
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q codingQuestion
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", name, line, err)
		}
		if q.Session == "" || q.Question == "" || len(q.Evidence) == 0 {
			return nil, fmt.Errorf("%s: line %d: want a session, a question and evidence", name, line)
		}
		out = append(out, q)
	}
	return out, sc.Err()
}

// sessionTurns reads the turns of the aider log DIR/session.md, each with
// its number for an external id ("12"), as the questions number them.
func sessionTurns(dir, session string) ([]spec.Turn, error) {
	res, err := importer.ReadFile(filepath.Join(dir, session+".md"), importer.Options{Format: importer.Aider})
	if err != nil {
		return nil, err
	}
	var turns []spec.Turn
	for _, c := range res.Conversations {
		turns = append(turns, c.Turns...)
	}
	for i := range turns {
		turns[i].ExternalID = strconv.Itoa(i + 1)
	}
	return turns, nil
}

func measureCodingRecall(ctx context.Context, data, questionsFile, tokenizer string, budgets []int) (*codingReport, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	tk, err := smg.NewTokenizer(tokenizer)
	if err != nil {
		return nil, fmt.Errorf("coding-recall: %w", err)
	}
	qs, err := readCodingQuestions(questionsFile)
	if err != nil {
		return nil, fmt.Errorf("coding-recall: %w", err)
	}
	rep := &codingReport{Data: data, Questions: questionsFile, Tokenizer: tk.Name(), Budgets: budgets,
		Recall: map[string][]float64{}, Chatter: make([]int, len(budgets)), WithChatter: make([]int, len(budgets)), Together: make([]int, len(budgets))}
	sums := newRecallSums(budgets)
	var sessions []string
	for _, q := range qs {
		if !slices.Contains(sessions, q.Session) {
			sessions = append(sessions, q.Session)
		}
	}
	sep := tk.Count("\n")
	for _, s := range sessions {
		turns, err := sessionTurns(data, s)
		if err != nil {
			return nil, fmt.Errorf("coding-recall: %w", err)
		}
		var questions []question
		for _, q := range qs {
			if q.Session != s {
				continue
			}
			qq := question{text: q.Question, category: singleHop}
			for _, ev := range q.Evidence {
				if ev.Turn < 1 || ev.Turn > len(turns) || contentKey(turns[ev.Turn-1].Content) != ev.Content {
					return nil, fmt.Errorf("coding-recall: %s: %q: turn %d is not the turn of content %s the question names", s, q.Question, ev.Turn, ev.Content)
				}
				qq.evidence = append(qq.evidence, strconv.Itoa(ev.Turn))
			}
			questions = append(questions, qq)
			sums.n[singleHop]++
		}
		var doc *spec.Document
		e, _, err := buildEngine(ctx, turns, nil, func(d *spec.Document) (contextEngine, error) {
			doc = d
			m, err := smg.Load(d, nil)
			if err != nil {
				return nil, err
			}
			return m, m.WaitIndex(ctx)
		})
		if err != nil {
			return nil, fmt.Errorf("coding-recall: %s: %w", s, err)
		}
		if err := askFixes(ctx, e, doc, budgets, tk, rep); err != nil {
			return nil, fmt.Errorf("coding-recall: %s: %w", s, err)
		}
		for _, q := range questions {
			for b, budget := range budgets {
				r, err := e.Context(ctx, q.text, &smg.ContextOptions{Budget: budget, Tokenizer: tk})
				if err != nil {
					return nil, fmt.Errorf("coding-recall: %s: %w", s, err)
				}
				found := map[string]bool{}
				for _, it := range r.Items {
					if it.Turn > 0 {
						found[strconv.Itoa(it.Turn)] = true
					}
				}
				sums.add(systemSMG, q, b, found)
				if n := chatterTokens(r.Text, tk); n > 0 {
					rep.Chatter[b] += n
					rep.WithChatter[b]++
				}
			}
		}
		lines, costs := turnLines(turns, tk)
		if err := askBM25(ctx, turns, lines, costs, sep, questions, budgets, sums); err != nil {
			return nil, fmt.Errorf("coding-recall: %s: bm25: %w", s, err)
		}
		if err := askPassages(ctx, turns, passagesOf(turns, tk), sep, questions, budgets, sums); err != nil {
			return nil, fmt.Errorf("coding-recall: %s: bm25 over passages: %w", s, err)
		}
		rep.Sessions++
		rep.Asked += len(questions)
	}
	for _, sys := range []string{systemSMG, systemBM25, systemPassages} {
		for b := range budgets {
			r := sums.row(sys, b).SingleHop
			v := 0.0
			if r != nil {
				v = *r
			}
			rep.Recall[sys] = append(rep.Recall[sys], v)
		}
	}
	return rep, nil
}

// askFixes asks the memory doc, through e, how each problem a change
// with files solved was fixed, and counts in rep the contexts that hold
// the problem and its change together with the files' versions.
func askFixes(ctx context.Context, e contextEngine, doc *spec.Document, budgets []int, tk smg.Tokenizer, rep *codingReport) error {
	nodes := map[string]*spec.Node{}
	for i := range doc.SemanticGraph.Nodes {
		nodes[doc.SemanticGraph.Nodes[i].ID] = &doc.SemanticGraph.Nodes[i]
	}
	withFiles := map[string]bool{}
	for _, ed := range doc.SemanticGraph.Edges {
		if n := nodes[ed.To]; ed.Relation == spec.RelAbout && n != nil && n.Type == spec.NodeArtifact && nodes[ed.From] != nil && nodes[ed.From].Kind == spec.KindChange {
			withFiles[ed.From] = true
		}
	}
	asked := map[string]bool{}
	for _, ed := range doc.SemanticGraph.Edges {
		p := nodes[ed.To]
		if ed.Relation != spec.RelSolves || !withFiles[ed.From] || p == nil || p.Type != spec.NodeProblem || asked[p.ID] {
			continue
		}
		asked[p.ID] = true
		rep.Fixes++
		for b, budget := range budgets {
			r, err := e.Context(ctx, "How did we fix "+strings.TrimSuffix(p.Label, ".")+"?", &smg.ContextOptions{Budget: budget, Tokenizer: tk})
			if err != nil {
				return err
			}
			if slices.ContainsFunc(r.Items, func(it smg.Found) bool {
				return len(it.Files) > 0 && (it.NodeID == p.ID && slices.Contains(it.SolvedBy, ed.From) || it.NodeID == ed.From && slices.Contains(it.Solves, p.ID))
			}) {
				rep.Together[b]++
			}
		}
	}
	return nil
}

// chatterTokens counts the tokens of the lines of a context's text that
// are tool chatter, the speaker a line of a turn starts with ("user: ",
// "tool (excerpt): …") left out.
func chatterTokens(text string, tk smg.Tokenizer) int {
	n := 0
	for line := range strings.Lines(text) {
		if classify.ToolChatter(speakerLead.ReplaceAllString(line, "")) {
			n += tk.Count(strings.TrimRight(line, "\n"))
		}
	}
	return n
}

// speakerLead is the speaker a context's line of a turn starts with.
var speakerLead = regexp.MustCompile(`^(?:user|assistant|tool|system)(?: \(excerpt\))?: (?:…)?`)

func writeCodingRecall(w io.Writer, rep *codingReport) error {
	fmt.Fprintf(w, "%s: %d questions over %d sessions of %s (tokenizer %s)\n", rep.Questions, rep.Asked, rep.Sessions, rep.Data, rep.Tokenizer)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "budget\tsmg\tbm25\tbm25-passages\tchatter tokens (smg)\tcontexts with chatter\t")
	for b, budget := range rep.Budgets {
		fmt.Fprintf(tw, "%d\t%.3f\t%.3f\t%.3f\t%d\t%d\t\n", budget, rep.Recall[systemSMG][b], rep.Recall[systemBM25][b], rep.Recall[systemPassages][b], rep.Chatter[b], rep.WithChatter[b])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if rep.Fixes > 0 {
		fmt.Fprintf(w, "problems a change with files solved, asked how they were fixed: %d\n", rep.Fixes)
		for b, budget := range rep.Budgets {
			fmt.Fprintf(w, "  at %d tokens, the problem, its change and the files' versions together: %d (%.3f)\n", budget, rep.Together[b], float64(rep.Together[b])/float64(rep.Fixes))
		}
	}
	return nil
}
