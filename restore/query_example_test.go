package restore_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/smg-memory/smg/restore"
	"github.com/smg-memory/smg/spec"
)

func ExampleQuery_Run() {
	day := func(d int) time.Time { return time.Date(2025, 11, d, 9, 0, 0, 0, time.UTC) }
	doc := spec.New("6f1d2c3b-0a9e-4f8d-8c7b-6a5e4d3c2b1a", day(5))
	doc.SemanticGraph.Nodes = []spec.Node{
		{ID: "decision-postgresql", Type: spec.NodeDecision, Label: "PostgreSQL", Outcome: "PostgreSQL",
			Description: "SQLite locks the database under two writers.", Importance: 0.6, Timestamp: day(4), Version: 1},
		{ID: "decision-sqlite", Type: spec.NodeDecision, Label: "SQLite", Outcome: "SQLite",
			Importance: 0.3, Timestamp: day(1), ValidTo: day(4), Version: 1},
		{ID: "concept-database", Type: spec.NodeConcept, Label: "database", Importance: 0.2, Version: 1},
	}
	doc.SemanticGraph.Edges = []spec.Edge{
		{From: "decision-postgresql", To: "decision-sqlite", Relation: spec.RelSupersedes, Strength: 1},
		{From: "decision-sqlite", To: "concept-database", Relation: spec.RelAbout, Strength: 0.8},
	}

	for _, text := range []string{
		`FIND decisions WHERE topic = "database" ORDER BY timestamp`,
		`find decision where current and timestamp >= "2025-11-02"`,
		`FIND decisions WHERE SUPERSEDED`,
	} {
		q, err := restore.ParseQuery(text)
		if err != nil {
			fmt.Println(err)
			return
		}
		nodes, err := q.Run(doc, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(q)
		for _, n := range nodes {
			fmt.Println("  ", n.ID)
		}
	}
	// Output:
	// FIND decisions WHERE topic = "database" ORDER BY timestamp ASC
	//    decision-sqlite
	//    decision-postgresql
	// FIND decisions WHERE CURRENT AND timestamp >= "2025-11-02"
	//    decision-postgresql
	// FIND decisions WHERE SUPERSEDED
	//    decision-sqlite
}

func ExampleParseQuery() {
	_, err := restore.ParseQuery(`FIND decisions WHERE importance > "high"`)
	var qe *restore.QueryError
	if errors.As(err, &qe) {
		fmt.Println(err)
		fmt.Println(qe.Excerpt())
	}
	// Output:
	// 1:35: importance is a number, not "high"
	// FIND decisions WHERE importance > "high"
	//                                   ^
}
