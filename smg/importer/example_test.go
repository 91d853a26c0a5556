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

// A ChatGPT export keeps every branch of a conversation; Read follows the
// one that ends at current_node. Here the first answer was regenerated.
func ExampleRead_chatGPT() {
	input := `[{"id": "c1", "title": "Trains", "current_node": "a2", "mapping": {
  "q":  {"parent": null, "children": ["a1", "a2"], "message": {"author": {"role": "user"}, "create_time": 1717236000,
         "content": {"content_type": "text", "parts": ["Lisbon to Porto by train?"]}}},
  "a1": {"parent": "q", "children": [], "message": {"author": {"role": "assistant"}, "create_time": 1717236004,
         "content": {"content_type": "text", "parts": ["Take the zeppelin."]}}},
  "a2": {"parent": "q", "children": [], "message": {"author": {"role": "assistant"}, "create_time": 1717236060.5,
         "content": {"content_type": "text", "parts": ["About three hours on the Alfa Pendular."]}}}}}]`
	res, err := importer.Read(strings.NewReader(input), importer.Options{Name: "conversations.json"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Format, res.Conversations[0].ID)
	for _, t := range res.Conversations[0].Turns {
		fmt.Printf("%d %s %s %q\n", t.Turn, t.Role, t.Timestamp.Format("15:04:05.0"), t.Content)
	}
	// Output:
	// chatgpt c1
	// 1 user 10:00:00.0 "Lisbon to Porto by train?"
	// 2 assistant 10:01:00.5 "About three hours on the Alfa Pendular."
}
