package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/spec"
)

const queryLong = `Query finds the nodes of a memory that a query selects, in the query
language of spec/smg-v1.md, Appendix B:

  FIND decisions WHERE topic = "database schema" AND timestamp > "2025-12-01"
  ORDER BY importance DESC LIMIT 5

FIND takes a node type, singular or plural (concepts, decisions, problems,
solutions, facts, artifacts), or nodes or * for all. WHERE combines
conditions with AND, OR, NOT and parentheses:

  field = "text"  field != "text"  field CONTAINS "text"   (case-insensitive)
  field = 0.5     field < 3        field >= "2025-12-01"   (= != < <= > >=)
  topic = "text"  the node, or a node linked to it, is about text
  MATCH "words"   every word is a word of the node's text
  CURRENT         not superseded; SUPERSEDED is NOT CURRENT

Fields: id, type, label, description, outcome, rationale, category, scope,
source (strings); importance, activation, confidence, version, mentions,
firstMentioned, lastMentioned (numbers); timestamp, validFrom, validTo,
lastActivated (times: a date is a whole UTC day, or an RFC 3339 time);
pinned (true or false). ORDER BY takes fields with ASC or DESC, and score;
the default is importance DESC. Ties go by id. LIMIT n keeps the first n.

Keywords are case-insensitive. A query that does not parse is a usage error,
shown with a caret under the place where it goes wrong.`

func (a *app) queryCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "query FILE QUERY",
		Short: "Find nodes with a query: FIND decisions WHERE ... ORDER BY ... LIMIT n",
		Long:  queryLong,
		Args: func(cmd *cobra.Command, args []string) error {
			switch len(args) {
			case 0:
				return usageErrorf("missing FILE and QUERY")
			case 1:
				return usageErrorf("missing QUERY, like 'FIND decisions WHERE CURRENT'")
			case 2:
				return nil
			}
			return usageErrorf("want FILE and QUERY, got %d arguments (quote the query)", len(args))
		},
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			q, err := smg.ParseQuery(args[1])
			if qe, ok := errors.AsType[*smg.QueryError](err); ok {
				excerpt := "  " + strings.ReplaceAll(qe.Excerpt(), "\n", "\n  ")
				return &usageError{err: fmt.Errorf("query: %w\n%s", qe, excerpt)}
			} else if err != nil {
				return err
			}
			doc, err := a.decodeFile(args[0])
			if err != nil {
				return err
			}
			nodes, err := q.Run(doc, nil)
			if err != nil {
				return err
			}
			if asJSON {
				if nodes == nil {
					nodes = []spec.Node{}
				}
				return a.writeJSON(nodes)
			}
			return writeNodes(a.stdout, nodes)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the nodes as JSON")
	return cmd
}
