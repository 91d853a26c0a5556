package smg

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// RecordOptions tell how [Memory.Record] adds turns. The zero value adds
// them as [Memory.IngestAll] does and stops at the first invalid one.
type RecordOptions struct {
	// Deferred leaves the embedding of the turns added to
	// [Memory.EmbedMissing], as [Memory.IngestDeferred] does; otherwise
	// they are embedded in the background, as [Memory.Ingest] embeds.
	Deferred bool
	// SkipInvalid leaves out a turn the format cannot hold
	// ([ErrInvalidTurn]) and goes on, reporting it in [Recorded.Invalid].
	SkipInvalid bool
	// Progress, when set, is told of each turn handled: added, skipped
	// or invalid.
	Progress func()
}

// Recorded is what [Memory.Record] did with the turns it was given.
type Recorded struct {
	// First is the number of the first turn added; 0 when none was.
	First int
	// Added counts the turns added, and Held those left out because the
	// memory holds them already.
	Added, Held int
	// Reused are the turns added that have the conversation and id of a
	// turn the memory holds, with other content (spec §5.2).
	Reused []ReusedID
	// Invalid are the turns left out with [RecordOptions.SkipInvalid].
	Invalid []InvalidTurn
}

// ReusedID is a turn added with the id of another: a source that reused
// a message id, or an export in which a message was edited. Both are
// kept; the new one's SameIDAs names the old.
type ReusedID struct {
	// Index is the turn's place in the turns given, from 0; Turn its
	// number in the memory, and SameAs the number of the turn with its id.
	Index, Turn, SameAs        int
	ConversationID, ExternalID string
}

func (r ReusedID) String() string {
	id := r.ExternalID
	if r.ConversationID != "" {
		id = r.ConversationID + "/" + id
	}
	return fmt.Sprintf("turn %d has the id %q of turn %d, with other content: both are kept", r.Turn, id, r.SameAs)
}

// InvalidTurn is a turn [Memory.Record] left out, and why.
type InvalidTurn struct {
	// Index is the turn's place in the turns given, from 0.
	Index int
	Err   error
}

// Record adds, in order, those of turns that the memory does not hold
// already (spec §5.2): a turn with an ExternalID is held when a turn
// with its ConversationID, ExternalID and content is; one without, when
// a turn with its ConversationID, Role, Speaker, Timestamp and content
// is. Counts matter: when the turns given hold k equal turns, the first k
// equal turns of the memory are them, and the others are added. So
// recording an export again adds nothing, recording it once it has grown
// adds what is new, and a client may send a turn again after a timeout.
// A turn with the conversation and id of a held turn but other content
// is added, with SameIDAs naming the first turn of that id, and
// reported.
//
// Turns with neither id nor timestamp are told apart only by their place
// among the turns given: give Record a conversation's turns together, or
// give each a time or an id. A turn's Turn and SameIDAs are set by the
// memory.
//
// Record stops at the first turn that fails, unless it is invalid and
// opts.SkipInvalid, or when ctx is done. What it added is in the memory
// and in Recorded either way. Embedding and summarizing are as
// [Memory.Ingest]'s, or deferred (opts). A memory that is off stores
// nothing, and says it held them all.
func (m *Memory) Record(ctx context.Context, turns []Turn, opts *RecordOptions) (Recorded, error) {
	if opts == nil {
		opts = &RecordOptions{}
	}
	rec, added, sealed, err := m.record(ctx, turns, opts)
	if rec.First > 0 && m.emb != nil && !opts.Deferred {
		for _, p := range added {
			m.enqueue(p)
		}
	}
	if rec.First > 0 {
		err = errors.Join(err, m.summarizeSealed(ctx, sealed))
	}
	return rec, err
}

// record is Record's work under m.mu: it returns the turns added, to
// embed, and how many archive blocks were closed before them.
func (m *Memory) record(ctx context.Context, turns []Turn, opts *RecordOptions) (rec Recorded, added []pendingTurn, sealed int, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.off {
		rec.Held = len(turns)
		return rec, nil, 0, ctx.Err()
	}
	held, err := m.heldTurns()
	if err != nil {
		return rec, nil, 0, err
	}
	b, err := m.builder()
	if err != nil {
		return rec, nil, 0, err
	}
	sealed = b.Sealed()
	seen := map[turnKey]int{}
	for i, t := range turns {
		if err := ctx.Err(); err != nil {
			return rec, added, sealed, err
		}
		k := keyOf(t)
		if held.holds(seen, k) {
			rec.Held++
			progress(opts)
			continue
		}
		t.SameIDAs = 0
		if t.ExternalID != "" && held.count(k) == 0 {
			t.SameIDAs = held.sameID(k)
		}
		m.gen++
		if err := b.Add(t); err != nil {
			if opts.SkipInvalid && errors.Is(err, ErrInvalidTurn) {
				rec.Invalid = append(rec.Invalid, InvalidTurn{i, err})
				progress(opts)
				continue
			}
			return rec, added, sealed, fmt.Errorf("turn %d: %w", i+1, err)
		}
		n := b.Turns()
		held.add(k, n)
		if rec.First == 0 {
			rec.First = n
		}
		rec.Added++
		added = append(added, pendingTurn{n, t.Content})
		if t.SameIDAs != 0 {
			rec.Reused = append(rec.Reused, ReusedID{Index: i, Turn: n, SameAs: t.SameIDAs, ConversationID: t.ConversationID, ExternalID: t.ExternalID})
		}
		progress(opts)
	}
	return rec, added, sealed, nil
}

// adds tells whether [Memory.Record] would add any of turns, changing
// nothing: it is the error of the first turn not held that the format
// cannot hold, unless opts.SkipInvalid. A turn is held or not as record
// tells it (heldIndex.holds).
func (m *Memory) adds(turns []Turn, opts *RecordOptions) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.off {
		return false, nil
	}
	held, err := m.heldTurns()
	if err != nil {
		return false, err
	}
	adds, seen := false, map[turnKey]int{}
	for i, t := range turns {
		if held.holds(seen, keyOf(t)) {
			continue
		}
		if err := graph.CheckTurn(t); err != nil {
			if opts.SkipInvalid {
				continue
			}
			return false, fmt.Errorf("turn %d: %w", i+1, err)
		}
		adds = true
	}
	return adds, nil
}

func progress(opts *RecordOptions) {
	if opts.Progress != nil {
		opts.Progress()
	}
}

// turnKey is what tells a turn from another (spec §5.2): its
// conversation, id and content, or, for a turn without an id, its
// conversation, author, time and content. A memory keeps one for each of
// its turns, so it is digests (128 bits of SHA-256), not the strings.
type turnKey struct {
	full [16]byte
	// bare is the key without the conversation, for a turn of one (a
	// memory written before turns had a conversation holds them so).
	bare   [16]byte
	inConv bool
	// id is the digest of the conversation and id, for a turn with an id.
	id    [16]byte
	hasID bool
}

func keyOf(t spec.Turn) turnKey {
	var k turnKey
	role, speaker, at := "", "", ""
	if t.ExternalID == "" {
		role, speaker = string(t.Role), t.Speaker
		if !t.Timestamp.IsZero() {
			at = strconv.FormatInt(t.Timestamp.UnixNano(), 10)
		}
	}
	sum := sha256.Sum256([]byte(t.Content))
	content := string(sum[:16])
	k.full = digest(t.ConversationID, t.ExternalID, role, speaker, at, content)
	if k.inConv = t.ConversationID != ""; k.inConv {
		k.bare = digest("", t.ExternalID, role, speaker, at, content)
	}
	if k.hasID = t.ExternalID != ""; k.hasID {
		k.id = digest(t.ConversationID, t.ExternalID)
	}
	return k
}

// digest is 128 bits of the SHA-256 of parts, each after its length.
func digest(parts ...string) (d [16]byte) {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		io.WriteString(h, p)
	}
	copy(d[:], h.Sum(nil))
	return d
}

// heldIndex counts the turns a memory holds by key, and knows the first
// turn of each conversation and id.
type heldIndex struct {
	keys map[[16]byte]int32 // by turnKey.full
	ids  map[[16]byte]int32 // by turnKey.id
}

func newHeldIndex() *heldIndex {
	return &heldIndex{keys: map[[16]byte]int32{}, ids: map[[16]byte]int32{}}
}

// count is how many turns of the memory are held as k: those with its
// key, and, for a turn of a conversation, those without one (a memory
// written before turns had a conversation).
func (h *heldIndex) count(k turnKey) int {
	n := h.keys[k.full]
	if k.inConv {
		n += h.keys[k.bare]
	}
	return int(n)
}

// holds tells whether a turn given of key k, after those counted in
// seen, is one the memory holds, and counts it: the j-th turn given of a
// key is held while the memory holds more than j of that key. (Record
// adds to h the turns it adds, so that a key it added holds as many as
// it was given.)
func (h *heldIndex) holds(seen map[turnKey]int, k turnKey) bool {
	j := seen[k]
	seen[k]++
	return j < h.count(k)
}

// sameID is the first turn held with k's conversation and id, or 0.
func (h *heldIndex) sameID(k turnKey) int {
	if !k.hasID {
		return 0
	}
	return int(h.ids[k.id])
}

func (h *heldIndex) add(k turnKey, turn int) {
	h.keys[k.full]++
	if k.hasID && h.ids[k.id] == 0 {
		h.ids[k.id] = int32(turn)
	}
}

// heldTurns returns the index of the turns the memory holds, made from
// them the first time. m.mu is held.
func (m *Memory) heldTurns() (*heldIndex, error) {
	if m.held != nil {
		return m.held, nil
	}
	h := newHeldIndex()
	doc := m.doc
	if doc == nil {
		doc = m.b.Document()
	}
	err := graph.EachTurn(doc, m.blocks, func(t spec.Turn) error {
		h.add(keyOf(t), t.Turn)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the turns the memory holds: %w", err)
	}
	m.held = h
	return h, nil
}
