package smg_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// changePrivate returns the document of base with fn applied to owner's
// private part, opened with password.
func changePrivate(t *testing.T, base []byte, owner string, password []byte, fn func(p *smg.Memory)) *spec.Document {
	t.Helper()
	m := mustLoad(t, base)
	p, err := m.Private(owner, password)
	if err != nil {
		t.Fatal(err)
	}
	fn(p)
	return mustUnmarshal(t, mustMarshal(t, m))
}

func TestMergePrivateParts(t *testing.T) {
	bobPW := []byte("bob's passphrase")
	m := sharedMemory(t, nil)
	if _, err := m.Private("bob", nil); err != nil {
		t.Fatal(err)
	}
	if err := m.SealPrivate("bob", bobPW, weakKDF); err != nil {
		t.Fatal(err)
	}
	base := mustMarshal(t, m)
	ours := changePrivate(t, base, "alice", nil, func(p *smg.Memory) {
		rememberAll(t, p, smg.Fact{Content: "Alice reviews the webhook code on Mondays", Category: "project"})
	})
	theirs := changePrivate(t, base, "alice", nil, func(p *smg.Memory) {
		rememberAll(t, p, smg.Fact{Content: "Alice owns the receipt template", Category: "project"})
	})
	merged, rep, err := smg.Merge(mustUnmarshal(t, base), ours, theirs, smg.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := format.Validate(merged, &format.ValidateOptions{SkipJSONLD: true}); err != nil {
		t.Fatalf("the merge does not validate: %v", err)
	}
	want := []format.MergePrivate{{Owner: "alice", How: format.PrivateMerged}, {Owner: "bob", How: format.PrivateSame}}
	if len(rep.Private) != 2 || rep.Private[0] != want[0] || rep.Private[1] != want[1] {
		t.Errorf("report %+v, want %+v", rep.Private, want)
	}
	mm, err := smg.Load(merged, nil)
	if err != nil {
		t.Fatal(err)
	}
	alice, err := mm.Private("alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(alice.Facts(smg.FactFilter{})); n != 4 {
		t.Errorf("alice's merged part holds %d facts, want 4 (2 of the base, 1 of each side)", n)
	}
	if !bytes.Equal(merged.PrivateContexts[1].Sealed, mustUnmarshal(t, base).PrivateContexts[1].Sealed) {
		t.Error("bob's sealed part, unchanged on both sides, changed in the merge")
	}

	// Bob's sealed part changed on both sides: no merge can read it.
	ours = changePrivate(t, base, "bob", bobPW, func(p *smg.Memory) {
		rememberAll(t, p, smg.Fact{Content: "Bob is on call this week", Category: "context"})
	})
	theirs = changePrivate(t, base, "bob", bobPW, func(p *smg.Memory) {
		rememberAll(t, p, smg.Fact{Content: "Bob is learning Rust", Category: "context"})
	})
	_, _, err = smg.Merge(mustUnmarshal(t, base), ours, theirs, smg.MergeOptions{})
	var ce *format.ConflictError
	if !errors.As(err, &ce) || len(ce.Conflicts) != 1 || ce.Conflicts[0].Private != "bob" {
		t.Fatalf("err = %v, want one conflict on bob's part", err)
	}
	merged, _, err = smg.Merge(mustUnmarshal(t, base), ours, theirs, smg.MergeOptions{Prefer: format.Theirs})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(merged.PrivateContexts[1].Sealed, theirs.PrivateContexts[1].Sealed) {
		t.Error("--prefer theirs did not take theirs' sealed part")
	}
}

func TestMergeRemovedCollaborator(t *testing.T) {
	base := mustMarshal(t, sharedMemory(t, nil))
	o := mustLoad(t, base)
	if _, err := o.RemoveCollaborator("bob", nil); err != nil {
		t.Fatal(err)
	}
	ours := mustUnmarshal(t, mustMarshal(t, o))
	theirs := changePrivate(t, base, "bob", nil, func(p *smg.Memory) {
		rememberAll(t, p, smg.Fact{Content: "Bob is learning Rust", Category: "context"})
	})
	_, _, err := smg.Merge(mustUnmarshal(t, base), ours, theirs, smg.MergeOptions{})
	var ce *format.ConflictError
	if !errors.As(err, &ce) || len(ce.Conflicts) != 1 || ce.Conflicts[0].Private != "bob" || ce.Conflicts[0].RemovedBy != format.Ours {
		t.Fatalf("err = %v, want one conflict: bob removed by ours, his part changed by theirs", err)
	}
	merged, _, err := smg.Merge(mustUnmarshal(t, base), ours, theirs, smg.MergeOptions{Prefer: format.Theirs})
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.PrivateContexts) != 2 || merged.PrivateContexts[1].Owner != "bob" || len(merged.Metadata.Collaborators) != 2 {
		t.Errorf("--prefer theirs: collaborators %+v, parts %d", merged.Metadata.Collaborators, len(merged.PrivateContexts))
	}
	merged, _, err = smg.Merge(mustUnmarshal(t, base), ours, theirs, smg.MergeOptions{Prefer: format.Ours})
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.PrivateContexts) != 1 || len(merged.Metadata.Collaborators) != 1 {
		t.Errorf("--prefer ours: collaborators %+v, parts %d", merged.Metadata.Collaborators, len(merged.PrivateContexts))
	}
	if err := format.Validate(merged, &format.ValidateOptions{SkipJSONLD: true}); err != nil {
		t.Error(err)
	}
}

// TestMergeRemovedThenMentioned checks that a node one side removed (as
// maintenance prunes what looks untouched) and the other side mentioned
// in new turns is a conflict, not a silent removal.
func TestMergeRemovedThenMentioned(t *testing.T) {
	ctx := context.Background()
	turns := smgtest.CheckoutTurns(t)
	const split = 12
	full := smg.New(&smg.Options{ID: "shop"})
	defer full.Close()
	if _, err := full.IngestAll(ctx, turns); err != nil {
		t.Fatal(err)
	}
	id := ""
	for _, n := range full.Document().SemanticGraph.Nodes {
		if n.Type == spec.NodeConcept && n.FirstMentioned <= split && n.LastMentioned > split {
			id = n.ID
			break
		}
	}
	if id == "" {
		t.Fatal("no concept of the first turns is mentioned again later")
	}
	m := smg.New(&smg.Options{ID: "shop"})
	defer m.Close()
	if _, err := m.IngestAll(ctx, turns[:split]); err != nil {
		t.Fatal(err)
	}
	base := mustMarshal(t, m)
	o := mustLoad(t, base)
	if _, err := o.Forget(ctx, id); err != nil {
		t.Fatal(err)
	}
	th := mustLoad(t, base)
	if _, err := th.IngestAll(ctx, turns[split:]); err != nil {
		t.Fatal(err)
	}
	_, _, err := smg.Merge(mustUnmarshal(t, base), mustUnmarshal(t, mustMarshal(t, o)), mustUnmarshal(t, mustMarshal(t, th)), smg.MergeOptions{})
	var ce *format.ConflictError
	if !errors.As(err, &ce) || !slices.ContainsFunc(ce.Conflicts, func(c format.MergeConflict) bool {
		return c.Node == id && c.RemovedBy == format.Ours && slices.Contains(c.Fields, "new mentions")
	}) {
		t.Errorf("err = %v, want a conflict on %s: removed by ours, mentioned anew by theirs", err, id)
	}
}
