package graph

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/smg-memory/smg/graph/graphtest"
	"github.com/smg-memory/smg/spec"
)

// TestResume: a builder resumed from another's state and the blocks of
// its document as a writer puts them (in the clear), at any turn, gives
// the document the other would have given had it gone on, byte for byte
// once written, and costs no replay.
func TestResume(t *testing.T) {
	at := time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC)
	for _, name := range []string{"checkout.json", "personal.json"} {
		turns := graphtest.Conversation(t, name)
		for _, k := range []int{1, 3, len(turns) / 2, len(turns) - 1} {
			// run ingests the turns, remembers a fact after the k-th and,
			// when resume says so, goes on in a builder resumed from the
			// state there.
			run := func(resume bool) []byte {
				b := New(Config{BlockSize: 4}, Options{ID: "memory-test"})
				for i, tu := range turns {
					if err := b.Add(tu); err != nil {
						t.Fatal(err)
					}
					if i+1 != k {
						continue
					}
					if _, err := b.Remember(Fact{Content: "I prefer short answers", Category: "preference"}, at); err != nil {
						t.Fatal(err)
					}
					if !resume {
						continue
					}
					state, err := b.State()
					if err != nil {
						t.Fatal(err)
					}
					doc := b.Document()
					PlainBlocks(doc)
					if b, err = Resume(state, doc.DeepArchive.Blocks, Config{BlockSize: 50}); err != nil {
						t.Fatal(err)
					}
				}
				doc := b.Document()
				PlainBlocks(doc)
				js, err := spec.MarshalCanonical(doc)
				if err != nil {
					t.Fatal(err)
				}
				return js
			}
			if whole, resumed := run(false), run(true); !bytes.Equal(whole, resumed) {
				t.Errorf("%s, resumed after turn %d: the document differs from the one built in one go (%d and %d bytes)", name, k, len(whole), len(resumed))
			}
		}
	}
}

// TestResumeRefuses: a state that does not decode, or of another
// version, is ErrState; so is a state given blocks other than those it
// closed.
func TestResumeRefuses(t *testing.T) {
	b := New(Config{BlockSize: 2}, Options{})
	for _, text := range []string{"We ship parcels from Rotterdam.", "By barge, mostly.", "And by rail to Duisburg."} {
		if err := b.Add(spec.Turn{Role: spec.RoleUser, Content: text}); err != nil {
			t.Fatal(err)
		}
	}
	state, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	blocks := b.Document().DeepArchive.Blocks
	for name, data := range map[string][]byte{
		"empty":     nil,
		"truncated": state[:len(state)/2],
		"other":     []byte("not gob at all"),
	} {
		if _, err := Resume(data, blocks, Config{}); !errors.Is(err, ErrState) {
			t.Errorf("%s: %v, want ErrState", name, err)
		}
	}
	other := New(Config{BlockSize: 2}, Options{})
	for _, text := range []string{"We ship parcels from Rotterdam.", "By road, mostly."} {
		if err := other.Add(spec.Turn{Role: spec.RoleUser, Content: text}); err != nil {
			t.Fatal(err)
		}
	}
	unhashed := slices.Clone(blocks)
	unhashed[0].ContentHash = ""
	for name, blocks := range map[string][]spec.ArchiveBlock{
		"no blocks":        nil,
		"other turns":      other.Document().DeepArchive.Blocks,
		"a block unhashed": unhashed,
	} {
		if _, err := Resume(state, blocks, Config{}); !errors.Is(err, ErrState) {
			t.Errorf("%s: %v, want ErrState", name, err)
		}
	}
	if _, err := Resume(state, blocks, Config{}); err != nil {
		t.Errorf("the state itself: %v", err)
	}
}

// TestStateCoversBuilder: every field of what a builder keeps is in its
// state, or known to be left out. A field added to one of these types
// fails it: add the field to state.go, and change stateVersion. (The
// entity index's strs and strIDs are not kept: the state holds the pending
// uses' strings, and a resumed index numbers them again; a use's flags
// are its three booleans in the state.)
func TestStateCoversBuilder(t *testing.T) {
	for _, c := range []struct {
		v      any
		fields int
	}{
		{Builder{}, 26}, {entityIndex{}, 14}, {codingState{}, 12}, {nodeInfo{}, 11}, {pendingUse{}, 4},
		{vaultState{}, 8}, {artState{}, 6}, {archiveState{}, 4}, {note{}, 3}, {optionSet{}, 2}, {goal{}, 2}, {verRef{}, 2},
	} {
		if n := reflect.TypeOf(c.v).NumField(); n != c.fields {
			t.Errorf("%T has %d fields, where state.go knows %d: keep the new ones in the state, and change stateVersion", c.v, n, c.fields)
		}
	}
}
