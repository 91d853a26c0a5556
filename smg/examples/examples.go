// Package examples holds the example conversations smg ships: generic
// transcripts (a JSON list of turns, the format importer.Transcript reads),
// written for smg. `smg demo` builds its memory from [Checkout], which is
// embedded so that the binary runs the demo from any directory.
//
//   - checkout.json: a coding conversation about a shop's Stripe checkout,
//     20 turns, with decisions, a problem and its solution, and code that
//     changes from one turn to another.
//   - personal.json: a chat between two friends, Ana and Ben, 22 turns of
//     who they are, where they live, what they like and whom they know;
//     the README's quick start adds it to the memory of checkout.json.
//
// The tests of the packages below smg read these files by path; the golden
// memory of checkout.json is testdata/conversations/checkout.smg.
package examples

import _ "embed"

// Checkout is checkout.json: a coding conversation about a shop's Stripe
// checkout, as a generic transcript (a JSON list of turns).
//
//go:embed checkout.json
var Checkout []byte
