package main

import (
	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// privateOf is the small memory as a collaborator's private part (spec
// §4.6): its own id, scoped to its owner.
func privateOf(small *spec.Document, owner string) *spec.Document {
	return edit(small, func(d *spec.Document) {
		d.Metadata.ID = "private-" + owner
		d.Metadata.Scope = &spec.Scope{Kind: spec.ScopeUser, ID: owner}
		d.Metadata.Lineage = nil
	})
}

// sharedMemory is the small memory shared by alice and bob (spec §4.5,
// §4.6, §4.7): bob's private part in the clear, alice's sealed with the
// vectors' password, and a record of maintenance.
func sharedMemory(small *spec.Document) *spec.Document {
	sealed := encrypt(encode(privateOf(small, "alice"), nil), smgtest.CheapKDF, 4)
	return edit(small, func(d *spec.Document) {
		d.Metadata.Collaborators = []spec.Collaborator{{ID: "alice", Name: "Alice"}, {ID: "bob"}}
		d.Metadata.Maintenance = &spec.Maintenance{LastRun: t0, WritesSince: 3}
		d.PrivateContexts = []spec.PrivateContext{
			{Owner: "alice", Sealed: jsontext.Value(sealed)},
			{Owner: "bob", Memory: privateOf(small, "bob")},
		}
	})
}

// sharedVectors are the vectors of shared memories.
func sharedVectors(small *spec.Document) []*vec {
	shared := sharedMemory(small)
	invalid := func(name, description string, f func(d *spec.Document), paths ...string) *vec {
		return &vec{Name: name, Expect: "invalid", Description: description, Body: encode(edit(shared, f), compact), Paths: paths}
	}
	return []*vec{
		{Name: "ok-shared", Expect: "ok", Description: "collaborators, bob's private part in the clear and alice's sealed with the vectors' password (cheap test parameters), and a record of maintenance", Body: encode(shared, compact)},
		invalid("invalid-collaborator-twice", "a collaborator listed twice", func(d *spec.Document) {
			d.Metadata.Collaborators = append(d.Metadata.Collaborators, smg.Collaborator{ID: "bob", Name: "Robert"})
		}, "$.metadata.collaborators[2].id"),
		invalid("invalid-private-owner", "a private part whose owner is not a collaborator", func(d *spec.Document) {
			d.Metadata.Collaborators = d.Metadata.Collaborators[:1]
		}, "$.privateContexts[1].owner"),
		invalid("invalid-private-scope", "a private memory scoped to someone else", func(d *spec.Document) {
			d.PrivateContexts[1].Memory.Metadata.Scope.ID = "alice"
		}, "$.privateContexts[1].memory.metadata.scope"),
		invalid("invalid-private-dangling-edge", "an edge of a private memory to a node it does not have", func(d *spec.Document) {
			d.PrivateContexts[1].Memory.SemanticGraph.Edges[1].To = "concept-stripe-dashboard"
		}, "$.privateContexts[1].memory.semanticGraph.edges[1].to"),
	}
}
