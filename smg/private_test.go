package smg_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// weakKDF makes sealing fast in tests.
var weakKDF = &smg.EncodeOptions{KDF: smg.KDF{Function: "pbkdf2-sha256", Iterations: 1000}, InsecureKDF: true}

// sharedMemory is a workspace memory of the checkout conversation shared
// by alice and bob, each with a private fact only they may see.
func sharedMemory(t *testing.T, sealAlice []byte) *smg.Memory {
	t.Helper()
	ctx := context.Background()
	m := smg.New(&smg.Options{Scope: &spec.Scope{Kind: spec.ScopeWorkspace, ID: "shop"}})
	t.Cleanup(func() { m.Close() })
	if _, err := m.IngestAll(ctx, smgtest.CheckoutTurns(t)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []smg.Collaborator{{ID: "alice", Name: "Alice"}, {ID: "bob", Name: "Bob"}} {
		if err := m.AddCollaborator(c); err != nil {
			t.Fatal(err)
		}
	}
	alice, err := m.Private("alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	rememberAll(t, alice,
		smg.Fact{Content: "Alice is negotiating the Zorbacorp checkout contract", Category: "project"},
		smg.Fact{Content: "Alice prefers answers written as bullet lists", Category: "preference"})
	if sealAlice != nil {
		if err := m.SealPrivate("alice", sealAlice, weakKDF); err != nil {
			t.Fatal(err)
		}
	}
	bob, err := m.Private("bob", nil)
	if err != nil {
		t.Fatal(err)
	}
	rememberAll(t, bob, smg.Fact{Content: "Bob prefers answers in German", Category: "preference"})
	return m
}

const zorbaQuestion = "what is the state of the Zorbacorp checkout contract?"

func TestPrivateContextsStayPrivate(t *testing.T) {
	ctx := context.Background()
	m := sharedMemory(t, nil)
	opts := &smg.ComposeOptions{ContextOptions: smg.ContextOptions{Budget: 800}}

	forAlice, err := m.ContextFor(ctx, "alice", zorbaQuestion, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(forAlice.Text, "Zorbacorp") || !strings.Contains(forAlice.Text, "bullet lists") {
		t.Errorf("alice's context lacks her own notes:\n%s", forAlice.Text)
	}
	if strings.Contains(forAlice.Text, "German") {
		t.Errorf("alice's context holds bob's note:\n%s", forAlice.Text)
	}

	forBob, err := m.ContextFor(ctx, "bob", zorbaQuestion, opts)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(forBob.Text), "zorbacorp") || strings.Contains(forBob.Text, "bullet") {
		t.Errorf("bob's context holds alice's notes:\n%s", forBob.Text)
	}
	if !strings.Contains(forBob.Text, "German") || !strings.Contains(forBob.Text, "Stripe") {
		t.Errorf("bob's context lacks his note or the shared memory:\n%s", forBob.Text)
	}
	for _, it := range forBob.Items {
		if it.Memory == "user:alice" {
			t.Errorf("an item of alice's part in bob's context: %+v", it)
		}
	}

	shared, err := m.Context(ctx, zorbaQuestion, &opts.ContextOptions)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(shared.Text), "zorbacorp") || strings.Contains(shared.Text, "German") {
		t.Errorf("the shared context holds a private note:\n%s", shared.Text)
	}
	if _, err := m.ContextFor(ctx, "mallory", zorbaQuestion, opts); !errors.Is(err, smg.ErrNotCollaborator) {
		t.Errorf("a stranger's context: err = %v, want ErrNotCollaborator", err)
	}
	if _, err := m.Private("mallory", nil); !errors.Is(err, smg.ErrNotCollaborator) {
		t.Errorf("a stranger's part: err = %v, want ErrNotCollaborator", err)
	}
}

func TestSealedPrivateContext(t *testing.T) {
	ctx := context.Background()
	password := []byte("alice's own passphrase")
	m := sharedMemory(t, password)
	plain, err := m.Marshal(&smg.EncodeOptions{Plain: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"zorbacorp", "bullet"} {
		if bytes.Contains(bytes.ToLower(plain), []byte(secret)) {
			t.Errorf("the shared file shows %q of alice's sealed notes", secret)
		}
	}
	if !bytes.Contains(plain, []byte("Bob prefers answers in German")) {
		t.Error("bob's part, in the clear, is not in the file")
	}
	if err := format.Validate(mustUnmarshal(t, plain), nil); err != nil {
		t.Fatalf("the shared file does not validate: %v", err)
	}

	// Written again unchanged, the sealed part keeps its bytes: the file
	// does not change for nothing.
	again := mustLoad(t, plain)
	if b, err := again.Marshal(&smg.EncodeOptions{Plain: true}); err != nil || !bytes.Equal(b, plain) {
		t.Errorf("a file written again unchanged differs (err %v)", err)
	}

	if _, err := again.Private("alice", nil); !errors.Is(err, smg.ErrSealed) {
		t.Errorf("no password: err = %v, want ErrSealed", err)
	}
	if _, err := again.Private("alice", []byte("a guess")); !errors.Is(err, smg.ErrWrongPassword) {
		t.Errorf("a wrong password: err = %v, want ErrWrongPassword", err)
	}
	if r, err := again.ContextFor(ctx, "alice", zorbaQuestion, nil); !errors.Is(err, smg.ErrSealed) {
		t.Errorf("alice's context before her part is opened: err = %v, want ErrSealed (text %v)", err, r)
	}
	alice, err := again.Private("alice", password)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := again.Private("alice", []byte("a guess")); !errors.Is(err, smg.ErrWrongPassword) {
		t.Errorf("a wrong password, the part open: err = %v, want ErrWrongPassword", err)
	}
	if facts := alice.Facts(smg.FactFilter{}); len(facts) != 2 {
		t.Errorf("alice's part holds %d facts, want 2", len(facts))
	}
	r, err := again.ContextFor(ctx, "alice", zorbaQuestion, nil)
	if err != nil || !strings.Contains(r.Text, "Zorbacorp") {
		t.Errorf("alice's context, her part opened: err %v\n%v", err, r)
	}

	// A change to the part seals it again, with the same password.
	rememberAll(t, alice, smg.Fact{Content: "Alice moved the Zorbacorp deadline to March", Category: "project"})
	changed, err := again.Marshal(&smg.EncodeOptions{Plain: true})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(bytes.ToLower(changed), []byte("zorbacorp")) || bytes.Equal(changed, plain) {
		t.Error("the changed part is in the clear, or was not written")
	}
	third := mustLoad(t, changed)
	alice3, err := third.Private("alice", password)
	if err != nil {
		t.Fatal(err)
	}
	if facts := alice3.Facts(smg.FactFilter{}); len(facts) != 3 {
		t.Errorf("after the change alice's part holds %d facts, want 3", len(facts))
	}
}

// TestMovedPrivateContext checks that a sealed part moved into another
// collaborator's place does not open as theirs, even with the password.
func TestMovedPrivateContext(t *testing.T) {
	password := []byte("alice's own passphrase")
	doc := mustUnmarshal(t, mustMarshal(t, sharedMemory(t, password)))
	if len(doc.PrivateContexts) != 2 || doc.PrivateContexts[0].Owner != "alice" {
		t.Fatalf("private contexts %+v", doc.PrivateContexts)
	}
	doc.PrivateContexts[1].Memory, doc.PrivateContexts[1].Sealed = nil, doc.PrivateContexts[0].Sealed
	doc.PrivateContexts = doc.PrivateContexts[1:]
	m, err := smg.Load(doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Private("bob", password); !errors.Is(err, smg.ErrInvalid) {
		t.Errorf("alice's part in bob's place: err = %v, want ErrInvalid", err)
	}
}

func TestValidatePrivateContexts(t *testing.T) {
	doc := mustUnmarshal(t, mustMarshal(t, sharedMemory(t, nil)))
	doc.Metadata.Collaborators = doc.Metadata.Collaborators[:1] // bob is gone, his part is not
	doc.PrivateContexts[0].Memory.SemanticGraph.Edges = append(doc.PrivateContexts[0].Memory.SemanticGraph.Edges,
		spec.Edge{From: "nowhere", To: doc.PrivateContexts[0].Memory.SemanticGraph.Nodes[0].ID, Relation: spec.RelRelatedTo, Strength: 0.5})
	err := format.Validate(doc, &format.ValidateOptions{SkipJSONLD: true})
	var ve *format.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a ValidationError", err)
	}
	want := map[string]bool{"$.privateContexts[1].owner": false, "$.privateContexts[0].memory.semanticGraph.edges[0].from": false}
	for _, p := range ve.Problems {
		if _, ok := want[p.Path]; ok {
			want[p.Path] = true
		}
	}
	for p, found := range want {
		if !found {
			t.Errorf("no problem at %s in %v", p, ve.Problems)
		}
	}
}

func mustMarshal(t *testing.T, m *smg.Memory) []byte {
	t.Helper()
	b, err := m.Marshal(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustUnmarshal(t *testing.T, b []byte) *spec.Document {
	t.Helper()
	doc, err := format.Unmarshal(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func mustLoad(t *testing.T, b []byte) *smg.Memory {
	t.Helper()
	m, err := smg.Load(mustUnmarshal(t, b), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestDiffPrivateContexts(t *testing.T) {
	base := mustMarshal(t, sharedMemory(t, nil))
	m := mustLoad(t, base)
	alice, err := m.Private("alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	rememberAll(t, alice, smg.Fact{Content: "Alice owns the receipt template", Category: "project"})
	if err := m.AddCollaborator(smg.Collaborator{ID: "carol"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Private("carol", nil); err != nil {
		t.Fatal(err)
	}
	if err := m.SealPrivate("carol", []byte("carol's"), weakKDF); err != nil {
		t.Fatal(err)
	}
	c, err := format.Diff(mustUnmarshal(t, base), mustUnmarshal(t, mustMarshal(t, m)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Private) != 2 {
		t.Fatalf("private changes %+v", c.Private)
	}
	a, carol := c.Private[0], c.Private[1]
	if a.Owner != "alice" || a.Change != format.Changed || a.Sealed || a.Changes == nil ||
		!slices.ContainsFunc(a.Changes.Nodes, func(n format.NodeChange) bool {
			return n.Change == format.Added && n.Label == "Alice owns the receipt template"
		}) {
		t.Errorf("alice's part: %+v", a)
	}
	if carol.Owner != "carol" || carol.Change != format.Added || !carol.Sealed || carol.Changes != nil {
		t.Errorf("carol's part: %+v", carol)
	}
	var text strings.Builder
	if err := c.WriteText(&text, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"@@ private contexts @@\n~ alice (in the clear)\n", "\n    @@ nodes @@\n    + fact-alice-owns-the-receipt-template (fact)", "\n+ carol (sealed)\n"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, text.String())
		}
	}
}

func TestPrivatePartRules(t *testing.T) {
	m := sharedMemory(t, nil)
	bob, err := m.Private("bob", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := bob.AddCollaborator(smg.Collaborator{ID: "eve"}); !errors.Is(err, smg.ErrPrivateMemory) {
		t.Errorf("a collaborator of a private part: err = %v, want ErrPrivateMemory", err)
	}
	if err := m.SealPrivate("bob", []byte{}, nil); err == nil {
		t.Error("sealing with an empty password was accepted")
	}
	if err := m.SealPrivate("bob", []byte("pw"), &smg.EncodeOptions{KDF: smg.KDF{Function: "nope"}}); err == nil {
		t.Error("sealing with an unknown key derivation was accepted")
	}
	if _, err := mustLoad(t, mustMarshal(t, m)).Private("bob", nil); err != nil {
		t.Errorf("bob's part after refused seals: %v", err)
	}
}

// TestSharedVector opens the private parts of the shared memory's test
// vector: bob's in the clear, alice's with the vectors' password.
func TestSharedVector(t *testing.T) {
	raw, err := os.ReadFile("../testdata/vectors/ok-shared.vec")
	if err != nil {
		t.Fatal(err)
	}
	v, err := smgtest.Parse("ok-shared.vec", raw)
	if err != nil {
		t.Fatal(err)
	}
	m := mustLoad(t, v.Body)
	if _, err := m.Private("alice", nil); !errors.Is(err, smg.ErrSealed) {
		t.Errorf("alice's part without a password: %v", err)
	}
	for owner, pw := range map[string][]byte{"alice": []byte("correct horse battery staple"), "bob": nil} {
		p, err := m.Private(owner, pw)
		if err != nil {
			t.Fatalf("%s's part: %v", owner, err)
		}
		if p.Turns() != 4 {
			t.Errorf("%s's part holds %d turns, want the small memory's 4", owner, p.Turns())
		}
	}
	// Opened and unchanged, the parts are written as they were read.
	got, want := mustUnmarshal(t, mustMarshal(t, m)).PrivateContexts, mustUnmarshal(t, v.Body).PrivateContexts
	gb, err1 := spec.MarshalCanonical(got)
	wb, err2 := spec.MarshalCanonical(want)
	if err1 != nil || err2 != nil || !bytes.Equal(gb, wb) {
		t.Errorf("the private parts, opened and unchanged, are written otherwise (%v, %v)", err1, err2)
	}
}

// TestRemoveCollaborator: removing a collaborator says what went with
// them; one whose private part is sealed is removed only with
// DestroySealed, and without it nothing changes.
func TestRemoveCollaborator(t *testing.T) {
	m := sharedMemory(t, []byte("alice's passphrase"))
	before := mustMarshal(t, m)
	_, err := m.RemoveCollaborator("alice", nil)
	var pe *smg.PrivateError
	if !errors.Is(err, smg.ErrSealedPart) || !errors.As(err, &pe) || pe.Owner != "alice" {
		t.Errorf("removing alice: %v, want ErrSealedPart", err)
	}
	if !bytes.Equal(mustMarshal(t, m), before) {
		t.Error("a refused removal changed the memory")
	}
	r, err := m.RemoveCollaborator("alice", &smg.RemoveOptions{DestroySealed: true})
	if err != nil || r.Collaborator.ID != "alice" || r.Collaborator.Name != "Alice" || r.Private == nil || !r.Private.Sealed {
		t.Errorf("removing alice with DestroySealed: %+v, %v", r, err)
	}
	r, err = m.RemoveCollaborator("bob", nil)
	if err != nil || r.Collaborator.ID != "bob" || r.Private == nil || r.Private.Sealed {
		t.Errorf("removing bob: %+v, %v", r, err)
	}
	if len(m.Collaborators()) != 0 || len(m.PrivateParts()) != 0 {
		t.Errorf("left %+v and %+v", m.Collaborators(), m.PrivateParts())
	}
}
