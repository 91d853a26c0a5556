package main

import (
	"encoding/base64"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/artifacts"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// withUnknownMembers puts a member this version does not know into every
// object of the full memory.
func withUnknownMembers(full *spec.Document) *spec.Document {
	return edit(full, func(d *spec.Document) {
		x := func(level string) jsontext.Value {
			return jsontext.Value(fmt.Sprintf(`{"x-%s":{"note":"from a later writer","n":[1,2.5,-0]}}`, level))
		}
		d.Extra = x("document")
		d.Metadata.Extra = x("metadata")
		d.Metadata.Scope.Extra = x("scope")
		d.Metadata.Lineage.Extra = x("lineage")
		d.Metadata.Lineage.Parents[0].Extra = x("parent")
		d.WorkingMemory.Extra = x("workingMemory")
		d.WorkingMemory.RecentContext[0].Extra = x("turn")
		d.SemanticGraph.Extra = x("semanticGraph")
		n := &d.SemanticGraph.Nodes[8] // decision-use-stripe-elements
		n.Extra = x("node")
		n.Alternatives[0].Extra = x("alternative")
		d.SemanticGraph.Nodes[11].PreviousSummaries[0].Extra = x("previousSummary")
		d.SemanticGraph.Edges[0].Extra = x("edge")
		d.ArtifactVault.Extra = x("artifactVault")
		a := d.ArtifactVault.Artifacts["artifact-webhook-go"]
		a.Extra = x("artifact")
		a.Versions[1].Extra = x("version")
		d.ArtifactVault.Artifacts["artifact-webhook-go"] = a
		d.DeepArchive.Extra = x("deepArchive")
		d.DeepArchive.Blocks[0].Extra = x("block")
		d.DeepArchive.VectorIndex.Extra = x("vectorIndex")
		d.DeepArchive.VectorIndex.Embeddings[0].Extra = x("embedding")
	})
}

// kindsMemory is the full memory with nodes of every registered kind
// (spec §6.1.3) and one of a kind that is not registered.
func kindsMemory(full *spec.Document) *spec.Document {
	return edit(full, func(d *spec.Document) {
		nodes := d.SemanticGraph.Nodes
		for i := range nodes {
			switch nodes[i].ID {
			case "fact-user-prefers-go":
				nodes[i].Kind = spec.KindInstruction
			case "concept-stripe-elements":
				nodes[i].Kind = "payment_library" // not registered
			}
		}
		goal := node("fact-goal-shop-checkout", spec.NodeFact, "Dana wants a checkout for the shop", 0.8, 1)
		goal.Kind, goal.Category, goal.Source = spec.KindGoal, spec.CategoryProject, spec.SourceAI
		request := node("fact-request-idempotency-keys", spec.NodeFact, "Add idempotency keys to order creation", 0.7, 11)
		request.Kind, request.Category, request.Source = spec.KindRequest, spec.CategoryProject, spec.SourceAI
		change := node("solution-change-webhook-failed-payments", spec.NodeSolution, "checkout/webhook.go: a failed payment emails the customer a retry link", 0.6, 8)
		change.Kind = spec.KindChange
		d.SemanticGraph.Nodes = append(nodes, goal, request, change)
		d.SemanticGraph.Edges = append(d.SemanticGraph.Edges,
			spec.Edge{From: "solution-change-webhook-failed-payments", To: "artifact-node-webhook-go", Relation: spec.RelAbout, Strength: 0.8})
	})
}

const ordersV1 = `package checkout

// CreateOrder makes the order of a paid cart.
func CreateOrder(cart Cart) (*Order, error) {
	return db.InsertOrder(cart)
}
`

const ordersV3 = `package checkout

// CreateOrder makes the order of a paid cart, once per idempotency key.
func CreateOrder(ctx context.Context, cart Cart, key string) (*Order, error) {
	if o, ok := db.OrderByKey(ctx, key); ok {
		return o, nil
	}
	return db.InsertOrder(ctx, cart, key)
}
`

// editMemory is the full memory with an artifact whose second version is
// an edit (spec §7.2.1): a SEARCH/REPLACE block whose text is not in the
// first version (the file changed outside the conversation), so that the
// writer could not apply it; the third is the whole file again. The
// versions after the first are patches, the third against the edit block.
func editMemory(full *spec.Document) *spec.Document {
	block := spec.EditBlock(
		"func CreateOrder(ctx context.Context, cart Cart) (*Order, error) {\n\treturn db.InsertOrder(ctx, cart)",
		"func CreateOrder(ctx context.Context, cart Cart, key string) (*Order, error) {\n\treturn db.InsertOrder(ctx, cart, key)")
	return edit(full, func(d *spec.Document) {
		versions := chain([]string{ordersV1, block, ordersV3}, []int{9, 11, 12}, 10)
		versions[1].Edit = true
		d.ArtifactVault.Artifacts["artifact-orders-go"] = spec.Artifact{
			Type: spec.ArtifactCode, Language: "go", Filename: "checkout/orders.go", ContentHash: versions[2].Hash, Versions: versions,
		}
	})
}

const receiptV1 = "<p>Merci beaucoup 🎉</p>\n<p>¥1,000 &amp; more</p>\n"
const receiptV2 = "<p>Merci beaucoup 🎉🎉</p>\n<p>Ευχαριστώ · ありがとう · cafe\u0301</p>\n<p>¥1,000 &amp; more\u2028</p>\n"

// unicodeMemory has non-ASCII text in every kind of string.
func unicodeMemory() *spec.Document {
	texts := []struct{ role, speaker, text string }{
		{"user", "Zoë", "Can the receipt say “Merci beaucoup 🎉” and show ¥1,000? <b>bold</b> & all."},
		{"assistant", "", "Yes — here’s the template:\n```html receipt.html\n" + receiptV1 + "```"},
		{"user", "Zoë", "Add Ελληνικά and 日本語 too; and café with a combining accent: cafe\u0301. Line\u2028separator."},
		{"assistant", "", "Done:\n```html receipt.html\n" + receiptV2 + "```"},
	}
	turns := make([]spec.Turn, len(texts))
	for i, t := range texts {
		turns[i] = spec.Turn{Turn: i + 1, Timestamp: at(i), Role: t.role, Speaker: t.speaker, Content: t.text}
	}
	doc := spec.New("9c1d4e7f-0a2b-4c6d-8e1f-3a5b7c9d1e2f", at(0))
	doc.Metadata.Modified = at(3)
	doc.Metadata.ProjectName = "Reçus 🎉"
	doc.Metadata.TotalExchanges = len(turns)
	doc.Metadata.TranscriptBytes = transcriptBytes(turns)
	doc.Metadata.Tags = []string{"日本語", "émoji", "🎉"}
	emoji := node("concept-receipt-emoji", spec.NodeConcept, "Emoji 🎉 in receipts", 0.6, 1, 2, 4)
	emoji.Aliases = []string{"🎉", "émoji"}
	name := node("fact-user-name-zoe", spec.NodeFact, "User's name is Zoë", 1, 1)
	name.Category, name.Source, name.Scope = spec.CategoryIdentity, spec.SourceAI, "user"
	receipt := node("artifact-node-receipt", spec.NodeArtifact, "receipt.html", 0.5, 2, 4)
	receipt.ArtifactID, receipt.ArtifactVersion = "artifact-receipt-html", 2
	doc.SemanticGraph.Nodes = []spec.Node{emoji, name, receipt}
	doc.SemanticGraph.Edges = []spec.Edge{{From: "artifact-node-receipt", To: "concept-receipt-emoji", Relation: spec.RelMentions, Strength: 0.6}}
	versions := chain([]string{receiptV1, receiptV2}, []int{2, 4}, 10)
	doc.ArtifactVault.Artifacts["artifact-receipt-html"] = spec.Artifact{
		Type: spec.ArtifactCode, Language: "html", Filename: "receipt.html", ContentHash: versions[1].Hash, Versions: versions,
	}
	doc.DeepArchive.Blocks = []spec.ArchiveBlock{block("block-0001", turns)}
	doc.DeepArchive.Blocks[0].Summary = "Receipt template in French, Greek and Japanese, with emoji."
	doc.WorkingMemory.RecentContext = turns[2:]
	doc.WorkingMemory.ActiveArtifacts = []string{"artifact-receipt-html"}
	return doc
}

// snapshotMemory has one artifact edited seven times, with a full copy
// every third version.
func snapshotMemory() *spec.Document {
	var contents []string
	var turns []spec.Turn
	var turnNumbers []int
	for i := 1; i <= 7; i++ {
		c := fmt.Sprintf("# retry policy\nretries = %d\nbackoff = \"%dms\"\njitter = %t\n", i, 100*i, i%2 == 0)
		contents = append(contents, c)
		turns = append(turns, spec.Turn{Turn: i, Timestamp: at(2 * (i - 1)), Role: "assistant", Content: "```toml retry.toml\n" + c + "```"})
		turnNumbers = append(turnNumbers, i)
	}
	doc := spec.New("2a4c6e8f-1b3d-4f5a-8c7e-9d0b2f4a6c8e", at(0))
	doc.Metadata.Modified = at(12)
	doc.Metadata.TotalExchanges = len(turns)
	doc.Metadata.TranscriptBytes = transcriptBytes(turns)
	doc.ArtifactVault.SnapshotInterval = 3
	versions := chain(contents, turnNumbers, 3)
	doc.ArtifactVault.Artifacts["artifact-retry-toml"] = spec.Artifact{
		Type: spec.ArtifactData, Language: "toml", Filename: "retry.toml", ContentHash: versions[6].Hash, Versions: versions,
	}
	doc.DeepArchive.BlockSize = 4
	doc.DeepArchive.Blocks = []spec.ArchiveBlock{block("block-0001", turns[:4]), block("block-0002", turns[4:])}
	return doc
}

// editEnvelope changes one base64 member of an encrypted envelope.
func editEnvelope(env []byte, member string, f func([]byte) []byte) []byte {
	var m map[string]any
	check(json.Unmarshal(env, &m))
	b, err := base64.StdEncoding.DecodeString(m[member].(string))
	check(err)
	m[member] = base64.StdEncoding.EncodeToString(f(b))
	out, err := spec.MarshalCanonical(m)
	check(err)
	return out
}

func invalidVectors(small, full *spec.Document) []*vec {
	var vs []*vec
	add := func(name, description string, doc *spec.Document, paths ...string) {
		vs = append(vs, &vec{Name: name, Expect: "invalid", Description: description, Body: encode(doc, compact), Paths: paths})
	}
	webhook := func(d *spec.Document, f func(a *spec.Artifact)) {
		a := d.ArtifactVault.Artifacts["artifact-webhook-go"]
		f(&a)
		d.ArtifactVault.Artifacts["artifact-webhook-go"] = a
	}
	const vpath = "$.artifactVault.artifacts['artifact-webhook-go'].versions"

	// The graph.
	add("invalid-dangling-edge", "an edge to a node that does not exist", edit(small, func(d *spec.Document) {
		d.SemanticGraph.Edges[1].To = "concept-stripe-dashboard"
	}), "$.semanticGraph.edges[1].to")
	add("invalid-duplicate-node-id", "two nodes with one id", edit(small, func(d *spec.Document) {
		n := d.SemanticGraph.Nodes[0]
		n.Label = "Stripe Checkout (hosted)"
		d.SemanticGraph.Nodes = append(d.SemanticGraph.Nodes, n)
	}), "$.semanticGraph.nodes[1].id")
	add("invalid-id-syntax", "an id with a space, which is not a relative IRI", edit(small, func(d *spec.Document) {
		d.SemanticGraph.Nodes = append(d.SemanticGraph.Nodes, node("stripe dashboard", spec.NodeConcept, "Stripe dashboard", 0.3))
	}), "$.semanticGraph.nodes[3].id")
	add("invalid-importance-range", "importance above 1", edit(small, func(d *spec.Document) {
		d.SemanticGraph.Nodes[0].Importance = 1.5
	}), "$.semanticGraph.nodes[0].importance")
	add("invalid-decision-without-outcome", "a decision with no outcome", edit(small, func(d *spec.Document) {
		d.SemanticGraph.Nodes[2].Outcome = ""
	}), "$.semanticGraph.nodes[2]")
	add("invalid-rationale-on-concept", "a decision's member on a concept", edit(small, func(d *spec.Document) {
		d.SemanticGraph.Nodes[0].Rationale = "it is hosted"
	}), "$.semanticGraph.nodes[0].rationale")
	add("invalid-fact-category", "a fact of an unknown category", edit(full, func(d *spec.Document) {
		d.SemanticGraph.Nodes[9].Category = "hobby"
	}), "$.semanticGraph.nodes[9].category")
	add("invalid-node-type", "a node of an unknown type", edit(small, func(d *spec.Document) {
		d.SemanticGraph.Nodes[0].Type = "person"
	}), "$.semanticGraph.nodes[0].type")
	add("invalid-mention-beyond", "a mention of a turn the memory does not have", edit(small, func(d *spec.Document) {
		n := &d.SemanticGraph.Nodes[0]
		n.Mentions = append(n.Mentions, 9)
		n.LastMentioned = 9
	}), "$.semanticGraph.nodes[0].mentions[3]", "$.semanticGraph.nodes[0].lastMentioned")
	add("invalid-valid-to-before-from", "a validity that ends before it starts", edit(full, func(d *spec.Document) {
		d.SemanticGraph.Nodes[7].ValidTo = at(0)
	}), "$.semanticGraph.nodes[7].validTo")
	add("invalid-previous-summaries", "six previous summaries where five are allowed", edit(full, func(d *spec.Document) {
		n := &d.SemanticGraph.Nodes[11]
		n.PreviousSummaries = nil
		for v := 1; v <= 6; v++ {
			n.PreviousSummaries = append(n.PreviousSummaries, spec.PreviousSummary{Version: v, Text: fmt.Sprintf("draft %d", v)})
		}
		n.Version = 7
	}), "$.semanticGraph.nodes[11].previousSummaries")
	add("invalid-self-loop", "an edge from a node to itself", edit(small, func(d *spec.Document) {
		d.SemanticGraph.Edges[1].To = d.SemanticGraph.Edges[1].From
	}), "$.semanticGraph.edges[1].to")
	add("invalid-duplicate-edge", "the same edge twice", edit(small, func(d *spec.Document) {
		e := d.SemanticGraph.Edges[0]
		e.Strength = 0.3
		d.SemanticGraph.Edges = append(d.SemanticGraph.Edges, e)
	}), "$.semanticGraph.edges[1]")
	add("invalid-relation-term", "a relation named like a term of the context", edit(small, func(d *spec.Document) {
		d.SemanticGraph.Edges[1].Relation = "label"
	}), "$.semanticGraph.edges[1].relation")
	add("invalid-relation-syntax", "a relation that is not lower_snake_case", edit(small, func(d *spec.Document) {
		d.SemanticGraph.Edges[1].Relation = "Related-To"
	}), "$.semanticGraph.edges[1].relation")
	add("invalid-kind-syntax", "a node kind that is not lower_snake_case", edit(small, func(d *spec.Document) {
		d.SemanticGraph.Nodes[0].Kind = "Payment-Library"
	}), "$.semanticGraph.nodes[0].kind")
	add("invalid-kind-type", "a registered kind on a node of another type: a change (of a solution) on a fact", edit(full, func(d *spec.Document) {
		d.SemanticGraph.Nodes[9].Kind = spec.KindChange
	}), "$.semanticGraph.nodes[9].kind")
	add("invalid-strength-range", "a negative strength", edit(small, func(d *spec.Document) {
		d.SemanticGraph.Edges[0].Strength = -0.25
	}), "$.semanticGraph.edges[0].strength")

	// The vault.
	add("invalid-artifact-hash", "a version of a file of 1.2 whose content does not match its hash", edit(full, func(d *spec.Document) {
		d.Version = "1.2"
		webhook(d, func(a *spec.Artifact) {
			a.Versions[2].Hash = artifacts.Hash("something else")
			a.ContentHash = a.Versions[2].Hash
		})
	}), vpath+"[2].hash")
	add("invalid-artifact-bad-patch", "a patch that does not apply, and the version after it", edit(full, func(d *spec.Document) {
		webhook(d, func(a *spec.Artifact) {
			p := strings.Replace(*a.Versions[1].Patch, "encoding/json", "encoding/xml", 1)
			a.Versions[1].Patch = &p
		})
	}), vpath+"[1].patch", vpath+"[2].patch")
	add("invalid-artifact-content-and-patch", "a version with both content and a patch", edit(full, func(d *spec.Document) {
		webhook(d, func(a *spec.Artifact) { a.Versions[1].Content = ptr(webhookV2) })
	}), vpath+"[1]")
	add("invalid-artifact-size", "a version whose size is wrong: in a file of 1.3, which records no hash, the patches after it have no checked base", edit(full, func(d *spec.Document) {
		webhook(d, func(a *spec.Artifact) { a.Versions[0].Size++ })
	}), vpath+"[0].size", vpath+"[1].patch", vpath+"[2].patch")
	add("invalid-artifact-numbering", "versions numbered 1, 2, 4", edit(full, func(d *spec.Document) {
		webhook(d, func(a *spec.Artifact) { a.Versions[2].V = 4 })
	}), vpath+"[2].v")
	add("invalid-artifact-first-patch", "a first version that is a patch", edit(full, func(d *spec.Document) {
		a := d.ArtifactVault.Artifacts["artifact-checkout-plan"]
		p, err := artifacts.MakePatch("", checkoutPlan)
		check(err)
		a.Versions[0].Content, a.Versions[0].Patch = nil, &p
		d.ArtifactVault.Artifacts["artifact-checkout-plan"] = a
	}), "$.artifactVault.artifacts['artifact-checkout-plan'].versions[0].patch")
	add("invalid-artifact-node", "an artifact node whose artifact is not in the vault", edit(full, func(d *spec.Document) {
		d.SemanticGraph.Nodes[0].ArtifactID = "artifact-missing"
	}), "$.semanticGraph.nodes[0].artifactId")

	// The archive.
	add("invalid-block-corrupt", "an archive block of version 1.0 whose data is not Brotli; the other block still checks", edit(full, func(d *spec.Document) {
		d.DeepArchive.Blocks[0].Turns = nil
		d.DeepArchive.Blocks[0].CompressedData = []byte{0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8}
	}), "$.deepArchive.blocks[0].compressedData")
	add("invalid-block-oversized", "an archive block of version 1.0 whose data decompresses to 65 MiB, beyond MaxBlockSize; the other block still reads", edit(full, func(d *spec.Document) {
		d.DeepArchive.Blocks[0].Turns = nil
		d.DeepArchive.Blocks[0].CompressedData = streamBrotli(func(w io.Writer) {
			io.WriteString(w, "[")
			io.WriteString(w, strings.Repeat(" ", 65<<20))
			io.WriteString(w, "]")
		})
	}), "$.deepArchive.blocks[0].compressedData")
	add("invalid-block-hash", "an archive block of a file of 1.2 whose turns do not match its hash", edit(full, func(d *spec.Document) {
		d.Version = "1.2"
		d.DeepArchive.Blocks[1].ContentHash = artifacts.Hash("x")
	}), "$.deepArchive.blocks[1].contentHash")
	add("invalid-hash-missing", "a file of 1.2 without a version's hash, which only a file of 1.3 leaves to its reader", edit(full, func(d *spec.Document) {
		d.Version = "1.2"
		webhook(d, func(a *spec.Artifact) { a.Versions[1].Hash = "" })
	}), vpath+"[1].hash")
	add("invalid-place-size", "a version whose place in its turn holds more bytes than its size", edit(placedVersions(full), func(d *spec.Document) {
		webhook(d, func(a *spec.Artifact) { a.Versions[0].End++ })
	}), vpath+"[0]")
	add("invalid-place-outside", "a version whose place runs past the end of its turn", edit(placedVersions(full), func(d *spec.Document) {
		webhook(d, func(a *spec.Artifact) { a.Versions[2].Start += 1000; a.Versions[2].End += 1000 })
	}), vpath+"[2]")
	add("invalid-place-before-1.3", "a file of 1.2 with a version that names its place, which it also holds whole", edit(placedVersions(full), func(d *spec.Document) {
		d.Version = "1.2"
	}), vpath+"[0]", vpath+"[0].end", vpath+"[1]", vpath+"[1].end", vpath+"[2]", vpath+"[2].end",
		"$.artifactVault.artifacts['artifact-checkout-plan'].versions[0]", "$.artifactVault.artifacts['artifact-checkout-plan'].versions[0].end")
	add("invalid-content-refs-1.3", "a file of 1.3 whose archived turns hold references to the vault, which only files before 1.3 do", edit(withContentRefs(full, nil), func(d *spec.Document) {
		d.Version = spec.Version
	}), "$.deepArchive.blocks[0].turns", "$.deepArchive.blocks[1].turns")
	add("invalid-block-gap", "blocks that skip turn 9", edit(full, func(d *spec.Document) {
		d.DeepArchive.Blocks[1] = block("block-0002", conversation()[9:])
	}), "$.deepArchive.blocks[1].turnRange", "$.metadata.totalExchanges", "$.metadata.transcriptBytes")
	add("invalid-block-turn-numbers", "a block whose turns are not numbered as its range says", edit(small, func(d *spec.Document) {
		turns := conversation()[:4]
		turns[1].Turn = 7
		b := block("block-0001", turns)
		b.TurnRange = [2]int{1, 4}
		d.DeepArchive.Blocks[0] = b
	}), "$.deepArchive.blocks[0].turns")
	add("invalid-summary-model-alone", "a block that names the model of a summary it does not have", edit(small, func(d *spec.Document) {
		d.DeepArchive.Blocks[0].Summary = ""
		d.DeepArchive.Blocks[0].SummaryModel = "example-chat-1"
	}), "$.deepArchive.blocks[0]")
	add("invalid-turn-count", "a block's turnCount that disagrees with its range", edit(small, func(d *spec.Document) {
		d.DeepArchive.Blocks[0].TurnCount = 3
	}), "$.deepArchive.blocks[0].turnCount", "$.metadata.totalExchanges")
	add("invalid-total-exchanges", "totalExchanges that disagrees with the archive", edit(small, func(d *spec.Document) {
		d.Metadata.TotalExchanges = 5
	}), "$.metadata.totalExchanges")
	add("invalid-transcript-bytes", "transcriptBytes that disagrees with the archived turns", edit(small, func(d *spec.Document) {
		d.Metadata.TranscriptBytes++
	}), "$.metadata.transcriptBytes")
	add("invalid-vector-dimensions", "an embedding of three floats in a four-dimensional index", edit(full, func(d *spec.Document) {
		d.DeepArchive.VectorIndex.Embeddings[0].Vector = vector(1, 2, 3)
	}), "$.deepArchive.vectorIndex.embeddings[0].vector")

	add("invalid-vector-int8-length", "an embedding of four float32 values in a four-dimensional int8 index, which takes 8 bytes", edit(withInt8Vectors(full), func(d *spec.Document) {
		d.DeepArchive.VectorIndex.Embeddings[0].Vector = vector(1, 2, 3, 4)
	}), "$.deepArchive.vectorIndex.embeddings[0].vector")
	add("invalid-vector-encoding", "a vector index of an encoding the format does not define", edit(full, func(d *spec.Document) {
		d.DeepArchive.VectorIndex.Encoding = "float16"
	}), "$.deepArchive.vectorIndex.encoding")
	add("invalid-vector-excerpts", "excerpts that are not spans of a turn's content: reversed, beyond its end, from inside a character", edit(withInt8Vectors(full), func(d *spec.Document) {
		es := d.DeepArchive.VectorIndex.Embeddings
		v := es[0].Vector
		i := strings.Index(conversation()[6].Content, "—")
		es = append(es[:1], append([]spec.Embedding{
			{Turn: 1, Start: 9, End: 4, Vector: v},
			{Turn: 1, Start: 10, End: 1000, Vector: v},
			{Turn: 7, Start: i + 1, End: i + 9, Vector: v},
		}, es[1:]...)...)
		slices.SortStableFunc(es, spec.CompareEmbeddings)
		d.DeepArchive.VectorIndex.Embeddings = es
	}), "$.deepArchive.vectorIndex.embeddings[1].start", "$.deepArchive.vectorIndex.embeddings[2].end", "$.deepArchive.vectorIndex.embeddings[11].start")
	add("invalid-vector-twice", "the embedding of an excerpt twice", edit(withInt8Vectors(full), func(d *spec.Document) {
		vi := d.DeepArchive.VectorIndex
		e := vi.Embeddings[0]
		e.Start, e.End = 0, 5
		vi.Embeddings = append(vi.Embeddings, e, e)
	}), "$.deepArchive.vectorIndex.embeddings[2].turn")
	raw := func(name, description string, body []byte, paths ...string) {
		vs = append(vs, &vec{Name: name, Expect: "invalid", Description: description, Body: body, Paths: paths})
	}
	int8 := withInt8Vectors(full)
	e0, err := spec.MarshalCanonical(int8.DeepArchive.VectorIndex.Embeddings[0])
	check(err)
	e1, err := spec.MarshalCanonical(int8.DeepArchive.VectorIndex.Embeddings[1])
	check(err)
	raw("invalid-vector-order", "the embeddings of turns 1 and 2 in the wrong order", replace(int8, string(e0)+","+string(e1), string(e1)+","+string(e0)), "$.deepArchive.vectorIndex.embeddings[1].turn")
	raw("invalid-missing-confidence", "a node without confidence, which the schema requires", replace(small, `"confidence":0.9,"firstMentioned":1,"id":"concept-stripe-checkout"`, `"firstMentioned":1,"id":"concept-stripe-checkout"`), "$.semanticGraph.nodes[0]")
	raw("invalid-null-importance", "importance null", replace(small, `"importance":0.5,"label":"Stripe Checkout"`, `"importance":null,"label":"Stripe Checkout"`), "$.semanticGraph.nodes[0].importance")
	add("invalid-archived-turn", "an archived turn with a role the format does not have", edit(small, func(d *spec.Document) {
		turns := conversation()[:4]
		turns[0].Role = "robot"
		b := block("block-0001", turns)
		b.Summary, b.KeyPoints = d.DeepArchive.Blocks[0].Summary, d.DeepArchive.Blocks[0].KeyPoints
		d.DeepArchive.Blocks[0] = b
		d.Metadata.TranscriptBytes = transcriptBytes(turns)
	}), "$.deepArchive.blocks[0].turns")
	add("invalid-content-ref-beyond", "an archived turn's reference to more bytes than the version has", withContentRefs(full, func(turns []spec.Turn) {
		turns[3].ContentRefs[0].Length += 10
	}), "$.deepArchive.blocks[0].turns")
	add("invalid-content-ref-unknown", "an archived turn's reference to a version the artifact does not have", withContentRefs(full, func(turns []spec.Turn) {
		turns[7].ContentRefs[0].V = 4
	}), "$.deepArchive.blocks[0].turns")
	add("invalid-content-ref-order", "an archived turn's references out of order", withContentRefs(full, func(turns []spec.Turn) {
		t := &turns[5]
		t.ContentRefs = append(t.ContentRefs, spec.ContentRef{At: t.ContentRefs[0].At - 1, Artifact: "artifact-webhook-go", V: 1, Length: 5})
	}), "$.deepArchive.blocks[0].turns")
	add("invalid-archived-turn-no-author", "an archived turn with neither role nor speaker: one problem", edit(small, func(d *spec.Document) {
		turns := conversation()[:4]
		turns[1].Role = ""
		b := block("block-0001", turns)
		b.Summary, b.KeyPoints = d.DeepArchive.Blocks[0].Summary, d.DeepArchive.Blocks[0].KeyPoints
		d.DeepArchive.Blocks[0] = b
		d.Metadata.TranscriptBytes = transcriptBytes(turns)
	}), "$.deepArchive.blocks[0].turns")
	add("invalid-same-id-as", "an archived turn whose sameIdAs names a turn with another id, and one that names a later turn", edit(small, func(d *spec.Document) {
		turns := conversation()[:4]
		turns[2].SameIDAs = 1 // msg-001, not msg-003
		turns[1].SameIDAs = 4
		for i, r := range d.WorkingMemory.RecentContext {
			d.WorkingMemory.RecentContext[i].SameIDAs = turns[r.Turn-1].SameIDAs
		}
		b := block("block-0001", turns)
		b.Summary, b.KeyPoints = d.DeepArchive.Blocks[0].Summary, d.DeepArchive.Blocks[0].KeyPoints
		d.DeepArchive.Blocks[0] = b
		d.Metadata.TranscriptBytes = transcriptBytes(turns)
	}), "$.deepArchive.blocks[0].turns", "$.deepArchive.blocks[0].turns")

	// Working memory and metadata.
	add("invalid-recent-context", "a recent turn that differs from the archived one", edit(small, func(d *spec.Document) {
		d.WorkingMemory.RecentContext[0].Content += "!"
	}), "$.workingMemory.recentContext[0]")
	add("invalid-turn-without-role", "a recent turn with neither role nor speaker, which also differs from the archive", edit(small, func(d *spec.Document) {
		d.WorkingMemory.RecentContext[0].Role = ""
		d.WorkingMemory.RecentContext[0].Speaker = ""
	}), "$.workingMemory.recentContext[0]", "$.workingMemory.recentContext[0]")
	add("invalid-active-artifact", "an active artifact that is not in the vault", edit(full, func(d *spec.Document) {
		d.WorkingMemory.ActiveArtifacts[1] = "artifact-missing"
	}), "$.workingMemory.activeArtifacts[1]")
	add("invalid-modified-before-created", "modified before created", edit(small, func(d *spec.Document) {
		d.Metadata.Modified = at(-60)
	}), "$.metadata.modified")
	add("invalid-many-problems", "three unrelated problems, all reported", edit(small, func(d *spec.Document) {
		d.SemanticGraph.Edges[1].To = "concept-stripe-dashboard"
		d.SemanticGraph.Nodes[0].Importance = 2
		d.Metadata.TotalExchanges = 7
	}), "$.semanticGraph.nodes[0].importance", "$.semanticGraph.edges[1].to", "$.metadata.totalExchanges")
	return vs
}

// withContentRefs rebuilds the full memory's archive with the code of its
// turns stored as references to the vault (spec §8.2.1), and lets change
// alter the stored turns before the blocks are made.
func withContentRefs(full *spec.Document, change func(turns []spec.Turn)) *spec.Document {
	pieces := []struct {
		artifact string
		v        int
		text     string
	}{
		{"artifact-webhook-go", 1, webhookV1},
		{"artifact-webhook-go", 2, webhookV2},
		{"artifact-webhook-go", 3, webhookV3},
		{"artifact-checkout-plan", 1, checkoutPlan},
	}
	turns := conversation()
	for i := range turns {
		t := &turns[i]
		for _, p := range pieces {
			if at := strings.Index(t.Content, p.text); at >= 0 {
				t.Content = t.Content[:at] + t.Content[at+len(p.text):]
				t.ContentRefs = append(t.ContentRefs, spec.ContentRef{At: at, Artifact: p.artifact, V: p.v, Length: len(p.text)})
			}
		}
	}
	if change != nil {
		change(turns)
	}
	return edit(full, func(d *spec.Document) {
		d.Version = "1.2"
		old := d.DeepArchive.Blocks
		d.DeepArchive.Blocks = []spec.ArchiveBlock{block("block-0001", turns[:8]), block("block-0002", turns[8:])}
		for i := range old {
			d.DeepArchive.Blocks[i].Summary, d.DeepArchive.Blocks[i].KeyPoints = old[i].Summary, old[i].KeyPoints
		}
		setRatio(d)
	})
}

// placedVersions is the full memory with each artifact version that its
// turn holds whole named by its place there (spec §7.2.2).
func placedVersions(full *spec.Document) *spec.Document {
	turns := conversation()
	return edit(full, func(d *spec.Document) {
		for id, a := range d.ArtifactVault.Artifacts {
			for i, v := range a.Versions {
				text, err := format.ArtifactContent(d, id, v.V)
				check(err)
				if at := strings.Index(turns[v.Turn-1].Content, text); v.Turn > 0 && at >= 0 {
					a.Versions[i].Start, a.Versions[i].End = at, at+len(text)
				}
			}
			for i, v := range a.Versions {
				if v.Placed() {
					text, err := format.ArtifactContent(d, id, v.V)
					check(err)
					a.Versions[i].Content, a.Versions[i].Patch = &text, nil
				}
			}
		}
	})
}

// withInt8Vectors is doc with its float32 vectors in int8 (spec §8.3), and
// vectors of two excerpts of turn 7, before and from its dash (3 bytes).
func withInt8Vectors(doc *spec.Document) *spec.Document {
	return edit(doc, func(d *spec.Document) {
		vi := d.DeepArchive.VectorIndex
		vi.Encoding = spec.EncodingInt8
		for i, e := range vi.Embeddings {
			v, err := spec.DecodeVectorAs("", vi.Dimensions, e.Vector)
			check(err)
			vi.Embeddings[i].Vector = spec.EncodeVectorInt8(v)
		}
		content := conversation()[6].Content
		dash := strings.Index(content, "—")
		vi.Embeddings = append(vi.Embeddings,
			spec.Embedding{Turn: 7, End: dash, Vector: spec.EncodeVectorInt8([]float32{0.25, -1, 0.5, 0})},
			spec.Embedding{Turn: 7, Start: dash, End: len(content), Vector: spec.EncodeVectorInt8([]float32{0, 0, 1, -1})},
		)
		slices.SortStableFunc(vi.Embeddings, spec.CompareEmbeddings)
	})
}
