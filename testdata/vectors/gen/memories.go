package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/smg-memory/smg/artifacts"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// The example memories: a short coding conversation about a shop's
// checkout, written for the tests. small is its first four turns; full is
// all of it with every section of the format filled.

var t0 = time.Date(2025, 11, 3, 9, 12, 0, 0, time.UTC)

func at(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }

const webhookV1 = `package checkout

import (
	"encoding/json"
	"net/http"

	"github.com/stripe/stripe-go/v76"
)

// Webhook receives Stripe's events.
func Webhook(w http.ResponseWriter, r *http.Request) {
	var event stripe.Event
	if err := json.NewDecoder(r.Body).Decode(&event); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch event.Type {
	case "payment_intent.succeeded":
		markPaid(event)
	}
	w.WriteHeader(http.StatusOK)
}
`

const webhookV2 = `package checkout

import (
	"io"
	"net/http"
	"os"

	"github.com/stripe/stripe-go/v76/webhook"
)

// Webhook receives Stripe's events. The signature covers the raw body, so
// the body is read once and verified before it is decoded.
func Webhook(w http.ResponseWriter, r *http.Request) {
	payload, err := io.ReadAll(io.LimitReader(r.Body, 65536))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	event, err := webhook.ConstructEvent(payload, r.Header.Get("Stripe-Signature"), os.Getenv("STRIPE_WEBHOOK_SECRET"))
	if err != nil {
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	switch event.Type {
	case "payment_intent.succeeded":
		markPaid(event)
	}
	w.WriteHeader(http.StatusOK)
}
`

const webhookV3 = `package checkout

import (
	"io"
	"net/http"
	"os"

	"github.com/stripe/stripe-go/v76/webhook"
)

// Webhook receives Stripe's events. The signature covers the raw body, so
// the body is read once and verified before it is decoded.
func Webhook(w http.ResponseWriter, r *http.Request) {
	payload, err := io.ReadAll(io.LimitReader(r.Body, 65536))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	event, err := webhook.ConstructEvent(payload, r.Header.Get("Stripe-Signature"), os.Getenv("STRIPE_WEBHOOK_SECRET"))
	if err != nil {
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	switch event.Type {
	case "payment_intent.succeeded":
		markPaid(event)
	case "payment_intent.payment_failed":
		notifyFailed(event) // the customer gets an email with a retry link
	}
	w.WriteHeader(http.StatusOK)
}
`

const checkoutPlan = `# Checkout plan

- [x] Payment form with Stripe Elements
- [x] Webhook with signature verification
- [ ] Failed payments: email with a retry link
- [ ] Idempotency keys on order creation
`

// conversation returns the turns of the checkout conversation.
func conversation() []spec.Turn {
	fence := func(lang, name, code string) string {
		return "```" + lang + " " + name + "\n" + code + "```"
	}
	texts := []struct{ role, text string }{
		{"user", "We need a checkout for the shop. Should we use Stripe Checkout or Stripe Elements?"},
		{"assistant", "I'd start with Stripe Checkout: it is a hosted page, so it is the fastest to ship. Its styling is limited to a logo and brand colours."},
		{"user", "Let's go with Elements instead, because the designers want the payment form to match the rest of the site."},
		{"assistant", "Agreed: Stripe Elements over Checkout, for the custom styling. Elements needs a webhook to learn when a payment succeeds. Here is the handler:\n\n" + fence("go", "checkout/webhook.go", webhookV1)},
		{"user", "The webhook returns 401 in production. Stripe's dashboard says: \"No signatures found matching the expected signature for payload\"."},
		{"assistant", "The signature covers the raw request body, but the handler decodes the JSON first and never verifies it. Read the body once, verify it with webhook.ConstructEvent, then use the event:\n\n" + fence("go", "checkout/webhook.go", webhookV2)},
		{"user", "That fixed it, the webhooks return 200 now. By the way, I prefer Go for all backend work — please remember that."},
		{"assistant", "Noted: Go for the backend. Next, failed payments: the handler should tell the customer.\n\n" + fence("go", "checkout/webhook.go", webhookV3)},
		{"user", "thanks"},
		{"assistant", "You're welcome. Here is where the checkout stands:\n\n" + fence("markdown", "docs/checkout-plan.md", checkoutPlan)},
		{"user", "TODO: add idempotency keys to the order creation, so a retried request can't create two orders. We'll do that tomorrow."},
		{"assistant", "Good idea. Stripe accepts an Idempotency-Key header; we can derive it from the cart id so a retry of the same cart reuses it."},
	}
	turns := make([]spec.Turn, len(texts))
	for i, t := range texts {
		turns[i] = spec.Turn{
			Turn:       i + 1,
			ExternalID: fmt.Sprintf("msg-%03d", i+1),
			Timestamp:  at(2 * i),
			Role:       t.role,
			Content:    t.text,
		}
		if t.role == "user" {
			turns[i].Speaker = "Dana"
		}
	}
	return turns
}

// block builds an archive block from consecutive turns.
func block(id string, turns []spec.Turn) spec.ArchiveBlock {
	b, err := smgtest.Block(id, turns)
	check(err)
	return b
}

// transcriptBytes is spec §4.2's size of the raw transcript.
func transcriptBytes(turns []spec.Turn) int64 {
	n, err := smgtest.TranscriptBytes(turns)
	check(err)
	return n
}

// chain builds an artifact's versions: a full copy every interval
// versions, patches in between.
func chain(contents []string, turns []int, interval int) []spec.ArtifactVersion {
	vs := make([]spec.ArtifactVersion, len(contents))
	for i, c := range contents {
		v := spec.ArtifactVersion{
			V:         i + 1,
			Timestamp: at(2 * (turns[i] - 1)),
			Turn:      turns[i],
			Hash:      artifacts.Hash(c),
			Size:      int64(len(c)),
		}
		if i%interval == 0 {
			v.Content = ptr(c)
		} else {
			p, err := artifacts.MakePatch(contents[i-1], c)
			check(err)
			v.Patch = &p
		}
		vs[i] = v
	}
	return vs
}

func ptr[T any](v T) *T { return &v }

func node(id string, typ spec.NodeType, label string, importance float64, mentions ...int) spec.Node {
	n := spec.Node{
		ID:         id,
		Type:       typ,
		Label:      label,
		Confidence: 0.9,
		Importance: importance,
		Activation: 0.8,
		Version:    1,
		Mentions:   mentions,
	}
	if len(mentions) > 0 {
		n.FirstMentioned, n.LastMentioned = mentions[0], mentions[len(mentions)-1]
		n.LastActivated = at(2 * (mentions[len(mentions)-1] - 1))
	}
	return n
}

// smallMemory is a memory of the first four turns: one block, a few nodes.
func smallMemory() *spec.Document {
	turns := conversation()[:4]
	doc := spec.New("0b4f2d6e-8a1c-4e3b-9f5d-7c2a1e6b8d40", at(0))
	doc.Metadata.Modified = at(6)
	doc.Metadata.ProjectID = "shop"
	doc.Metadata.ProjectName = "Shop checkout"
	doc.Metadata.TotalExchanges = len(turns)
	doc.Metadata.TranscriptBytes = transcriptBytes(turns)
	doc.Metadata.Generator = generator
	doc.WorkingMemory = spec.WorkingMemory{
		Summary:       "Choosing how the shop takes payments: Stripe Elements, for a form styled like the site.",
		CurrentGoals:  []string{"Ship the payment form"},
		RecentContext: turns[2:],
	}
	elements := node("concept-stripe-elements", spec.NodeConcept, "Stripe Elements", 0.7, 1, 3, 4)
	elements.Aliases = []string{"Elements"}
	checkout := node("concept-stripe-checkout", spec.NodeConcept, "Stripe Checkout", 0.5, 1, 2, 4)
	decision := node("decision-use-stripe-elements", spec.NodeDecision, "Use Stripe Elements for the payment form", 0.9, 3, 4)
	decision.Outcome = "Stripe Elements"
	decision.Rationale = "the designers want the payment form to match the rest of the site"
	decision.Alternatives = []spec.Alternative{{Option: "Stripe Checkout", Reason: "a hosted page whose styling is limited to a logo and brand colours"}}
	decision.Timestamp = at(4)
	decision.ValidFrom = at(4)
	doc.SemanticGraph.Nodes = []spec.Node{elements, checkout, decision}
	doc.SemanticGraph.Edges = []spec.Edge{
		{From: "concept-stripe-elements", To: "decision-use-stripe-elements", Relation: spec.RelRequiresDecision, Strength: 0.8},
		{From: "decision-use-stripe-elements", To: "concept-stripe-checkout", Relation: spec.RelRelatedTo, Strength: 0.5},
	}
	doc.DeepArchive.BlockSize = 50
	doc.DeepArchive.Blocks = []spec.ArchiveBlock{block("block-0001", turns)}
	b := &doc.DeepArchive.Blocks[0]
	b.Summary = "Stripe Elements chosen over Stripe Checkout so the payment form can match the site."
	b.KeyPoints = []string{"Decision: Stripe Elements over Checkout, for custom styling"}
	setRatio(doc)
	return doc
}

// fullMemory is the whole conversation with every section filled.
func fullMemory(parentHash string) *spec.Document {
	turns := conversation()
	doc := spec.New("7d3e9b1a-2c4f-4a6e-8b0d-5f1c3a9e2b67", at(0))
	m := &doc.Metadata
	m.Modified = at(24)
	m.ProjectID = "shop"
	m.ProjectName = "Shop checkout"
	m.Description = "Building the checkout of an online shop with Stripe."
	m.TotalExchanges = len(turns)
	m.TranscriptBytes = transcriptBytes(turns)
	m.Tags = []string{"checkout", "go", "stripe"}
	m.Scope = &spec.Scope{Kind: spec.ScopeWorkspace, ID: "shop", Name: "Shop"}
	m.Lineage = &spec.Lineage{Operation: spec.OpFork, Parents: []spec.Parent{{ID: "0b4f2d6e-8a1c-4e3b-9f5d-7c2a1e6b8d40", ContentHash: parentHash}}}
	m.Generator = generator

	doc.WorkingMemory = spec.WorkingMemory{
		Summary:         "The checkout takes payments with Stripe Elements; the webhook verifies signatures and handles failed payments. Next: idempotency keys.",
		CurrentGoals:    []string{"Add idempotency keys to order creation", "Email a retry link on failed payments"},
		ActiveArtifacts: []string{"artifact-webhook-go", "artifact-checkout-plan"},
		RecentContext:   turns[8:],
	}

	elements := node("concept-stripe-elements", spec.NodeConcept, "Stripe Elements", 0.7, 1, 3, 4)
	elements.Aliases = []string{"Elements"}
	elements.Description = "Stripe's embeddable card fields, styled by the site."
	checkout := node("concept-stripe-checkout", spec.NodeConcept, "Stripe Checkout", 0.4, 1, 2, 4)
	webhookC := node("concept-stripe-webhook", spec.NodeConcept, "Stripe webhook", 0.6, 4, 5, 6, 8)
	goC := node("concept-go", spec.NodeConcept, "Go", 0.5, 7)
	idem := node("concept-idempotency-key", spec.NodeConcept, "idempotency key", 0.5, 11, 12)
	idem.Aliases = []string{"Idempotency-Key"}

	useCheckout := node("decision-use-stripe-checkout", spec.NodeDecision, "Start with Stripe Checkout", 0.3, 2)
	useCheckout.Outcome = "Stripe Checkout"
	useCheckout.Rationale = "a hosted page is the fastest to ship"
	useCheckout.Timestamp = at(2)
	useCheckout.ValidFrom = at(2)
	useCheckout.ValidTo = at(4)
	useCheckout.Activation = 0.2

	useElements := node("decision-use-stripe-elements", spec.NodeDecision, "Use Stripe Elements for the payment form", 0.9, 3, 4)
	useElements.Outcome = "Stripe Elements"
	useElements.Rationale = "the designers want the payment form to match the rest of the site"
	useElements.Alternatives = []spec.Alternative{{Option: "Stripe Checkout", Reason: "a hosted page whose styling is limited to a logo and brand colours"}}
	useElements.Timestamp = at(4)
	useElements.ValidFrom = at(4)
	useElements.Pinned = true

	problem := node("problem-webhook-401", spec.NodeProblem, "Webhook returns 401 in production", 0.8, 5, 6, 7)
	problem.Description = `Stripe reports "No signatures found matching the expected signature for payload".`
	solution := node("solution-verify-raw-body", spec.NodeSolution, "Verify the signature over the raw body", 0.8, 6, 7)
	solution.Description = "Read the body once and verify it with webhook.ConstructEvent before decoding."
	solution.Version = 2
	solution.PreviousSummaries = []spec.PreviousSummary{{Version: 1, Text: "Verify the webhook signature.", ReplacedAt: at(12)}}

	prefersGo := node("fact-user-prefers-go", spec.NodeFact, "User prefers Go for all backend work", 1.0, 7)
	prefersGo.Category = spec.CategoryPreference
	prefersGo.Scope = "user"
	prefersGo.Source = spec.SourceUser
	prefersGo.CreatedBy = "smg"
	prefersGo.Confidence = 1
	prefersGo.ValidFrom = at(12)
	prefersGo.Metadata = map[string]any{"rememberRequested": true}

	webhookA := node("artifact-node-webhook-go", spec.NodeArtifact, "checkout/webhook.go", 0.7, 4, 6, 8)
	webhookA.ArtifactID = "artifact-webhook-go"
	webhookA.ArtifactVersion = 3
	planA := node("artifact-node-checkout-plan", spec.NodeArtifact, "docs/checkout-plan.md", 0.4, 10)
	planA.ArtifactID = "artifact-checkout-plan"
	planA.ArtifactVersion = 1

	doc.SemanticGraph.Nodes = []spec.Node{elements, checkout, webhookC, goC, idem, useCheckout, useElements, problem, solution, prefersGo, webhookA, planA}
	doc.SemanticGraph.Edges = []spec.Edge{
		{From: "concept-stripe-elements", To: "decision-use-stripe-elements", Relation: spec.RelRequiresDecision, Strength: 0.8},
		{From: "decision-use-stripe-elements", To: "decision-use-stripe-checkout", Relation: spec.RelSupersedes, Strength: 1},
		{From: "decision-use-stripe-elements", To: "artifact-node-webhook-go", Relation: spec.RelResultedIn, Strength: 0.7},
		{From: "decision-use-stripe-checkout", To: "concept-stripe-checkout", Relation: spec.RelAbout, Strength: 0.9},
		{From: "problem-webhook-401", To: "concept-stripe-webhook", Relation: spec.RelAbout, Strength: 0.8},
		{From: "solution-verify-raw-body", To: "problem-webhook-401", Relation: spec.RelSolves, Strength: 0.9},
		{From: "artifact-node-webhook-go", To: "solution-verify-raw-body", Relation: spec.RelImplements, Strength: 0.8},
		{From: "concept-stripe-webhook", To: "concept-stripe-elements", Relation: spec.RelRelatedTo, Strength: 0.5},
		{From: "fact-user-prefers-go", To: "concept-go", Relation: spec.RelAbout, Strength: 0.9},
		{From: "concept-idempotency-key", To: "artifact-node-checkout-plan", Relation: spec.RelMentions, Strength: 0.4},
	}

	doc.ArtifactVault.SnapshotInterval = 10
	webhookChain := chain([]string{webhookV1, webhookV2, webhookV3}, []int{4, 6, 8}, 10)
	doc.ArtifactVault.Artifacts = map[string]spec.Artifact{
		"artifact-webhook-go": {
			Type: spec.ArtifactCode, Language: "go", Filename: "checkout/webhook.go",
			ContentHash: webhookChain[2].Hash, Versions: webhookChain,
		},
		"artifact-checkout-plan": {
			Type: spec.ArtifactDocument, Language: "markdown", Filename: "docs/checkout-plan.md",
			ContentHash: artifacts.Hash(checkoutPlan), Versions: chain([]string{checkoutPlan}, []int{10}, 10),
		},
	}

	doc.DeepArchive.BlockSize = 8
	doc.DeepArchive.Blocks = []spec.ArchiveBlock{block("block-0001", turns[:8]), block("block-0002", turns[8:])}
	b := doc.DeepArchive.Blocks
	b[0].Summary = "Stripe Elements chosen over Checkout for custom styling; the webhook's 401 fixed by verifying the signature over the raw body; failed payments handled."
	b[0].KeyPoints = []string{
		"Decision: Stripe Elements over Stripe Checkout, because the form must match the site",
		"Problem: webhook 401, signature verification failed",
		"Solution: read the raw body once and verify it with webhook.ConstructEvent",
		"Fact: the user prefers Go for backend work",
	}
	b[1].Summary = "Checkout plan written down; idempotency keys for order creation are next."
	b[1].KeyPoints = []string{"Goal: idempotency keys derived from the cart id"}

	doc.DeepArchive.VectorIndex = &spec.VectorIndex{Enabled: true, Model: "example-embedding-4", Dimensions: 4}
	for i := 1; i <= len(turns); i++ {
		doc.DeepArchive.VectorIndex.Embeddings = append(doc.DeepArchive.VectorIndex.Embeddings,
			spec.Embedding{Turn: i, Vector: vector(float32(i), float32(math.Sin(float64(i))), 0.5, -1)})
	}
	setRatio(doc)
	return doc
}

// vector encodes float32 values as spec §8.3 says.
func vector(xs ...float32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// setRatio fills in metadata.compressionRatio (spec §4.2): the size of the
// Brotli-compressed file over the transcript's size.
func setRatio(doc *spec.Document) {
	b, err := format.Marshal(doc, nil)
	check(err)
	doc.Metadata.CompressionRatio = math.Round(float64(len(b))/float64(doc.Metadata.TranscriptBytes)*1e4) / 1e4
}
