// Package conversations holds the conversations written for the tests and
// the demo, so that a binary can carry them and run from any directory.
package conversations

import _ "embed"

// Checkout is checkout.json: a coding conversation about a shop's Stripe
// checkout, as a generic transcript (a JSON list of turns).
//
//go:embed checkout.json
var Checkout []byte
