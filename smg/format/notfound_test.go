package format_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
)

// TestNotFound: an id that names no node is a *NotFoundError that matches
// ErrNoNode and ErrNotFound, from every call that takes a node id, with
// the ids the caller may have meant; an artifact is found by its vault id
// or by its node's id, and an unknown one lists the vault's ids.
func TestNotFound(t *testing.T) {
	ctx := context.Background()
	m := checkoutMemory(t)
	doc := m.Document()
	check := func(what string, err error, kind string, use ...string) {
		t.Helper()
		var nf *format.NotFoundError
		if !errors.As(err, &nf) || !errors.Is(err, format.ErrNotFound) || errors.Is(err, smg.ErrNoNode) != (kind == "node") {
			t.Errorf("%s: %v, want a *NotFoundError of a %s", what, err, kind)
			return
		}
		if nf.Kind != kind || !slices.Equal(nf.Use, use) {
			t.Errorf("%s: %+v, want the %s ids %q", what, nf, kind, use)
		}
	}
	_, err := format.ShowNode(doc, "postgresql", format.Limits{})
	check("ShowNode", err, "node", "concept-postgresql", "decision-postgresql")
	_, err = m.Forget(ctx, "postgresql")
	check("Forget", err, "node", "concept-postgresql", "decision-postgresql")
	check("Pin", m.Pin(ctx, "art-checkout-webhook-go"), "node", "artifact-checkout-webhook-go")
	check("Unpin", m.Unpin(ctx, "nothing-like-it"), "node")
	_, err = format.ArtifactContent(doc, "nothing-like-it", 0)
	check("ArtifactContent", err, "artifact", "art-checkout-webhook-go", "art-web-src-paymentform-jsx")
	_, err = format.ArtifactDiff(doc, "webhook", 1, 2)
	check("ArtifactDiff", err, "artifact", "art-checkout-webhook-go")

	byVault, err1 := format.ArtifactContent(doc, "art-checkout-webhook-go", 2)
	byNode, err2 := format.ArtifactContent(doc, "artifact-checkout-webhook-go", 2)
	if err1 != nil || err2 != nil || byNode != byVault {
		t.Errorf("version 2 by node id (%v) differs from that by vault id (%v)", err2, err1)
	}

	if _, err := m.Forget(ctx, "artifact-checkout-webhook-go"); !errors.Is(err, smg.ErrArtifactNode) {
		t.Errorf("forgetting an artifact's node: %v, want ErrArtifactNode", err)
	}
}
