package importer_test

import (
	"fmt"
	"strings"

	"github.com/smg-memory/smg/smg/importer"
)

// Read detects the format, here JSON Lines of a generic transcript, and
// reports the malformed line it skipped.
func ExampleRead() {
	input := `{"id": "m1", "role": "user", "timestamp": "2025-03-14 09:00:00", "content": "Can we style the Stripe card form?"}
{"id": "m2", "role": "assistant", "timestamp": 1741942840, "content": "Yes: use Elements instead of Checkout."}
{"role": "user"}
{"speaker": "Dana", "text": "Let's use Elements, then."}
`
	res, err := importer.Read(strings.NewReader(input), importer.Options{Name: "chat.jsonl"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Format)
	for _, t := range res.Conversations[0].Turns {
		fmt.Printf("%d %s%s %s %q\n", t.Turn, t.Role, t.Speaker, t.Timestamp.Format("15:04:05"), t.Content)
	}
	for _, e := range res.Skipped {
		fmt.Println("skipped:", e)
	}
	// Output:
	// transcript
	// 1 user 09:00:00 "Can we style the Stripe card form?"
	// 2 assistant 09:00:40 "Yes: use Elements instead of Checkout."
	// 3 Dana 00:00:00 "Let's use Elements, then."
	// skipped: chat.jsonl:3:1: no content or text
}
