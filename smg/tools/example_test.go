package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/tools"
)

// A model's calls, carried out against a memory file: a fact saved, the
// same fact again, and one the memory refuses.
func ExampleHandler_Call() {
	dir, err := os.MkdirTemp("", "smg-tools")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	user, err := smg.OpenFileMemory(filepath.Join(dir, "me.smg"), &smg.FileOptions{Create: &smg.Options{}})
	if err != nil {
		log.Fatal(err)
	}
	defer user.Close()
	h := tools.NewHandler(user, nil, nil)

	ctx := context.Background()
	for _, input := range []string{
		`{"content": "I prefer answers with code first", "category": "preference", "reasoning": "The user asked for it."}`,
		`{"content": "User prefers answers with code first", "category": "preference", "reasoning": "Said again."}`,
		`{"content": "User collects fountain pens", "category": "hobby", "reasoning": "A hobby."}`,
	} {
		r, err := h.Call(ctx, tools.SaveMemory, json.RawMessage(input))
		if err != nil {
			log.Fatal(err)
		}
		b, _ := json.Marshal(r)
		fmt.Println(string(b))
	}
	// Output:
	// {"success":true,"id":"fact-user-prefers-answers-with-code-first","content":"User prefers answers with code first","category":"preference","scope":"user","importance":0.9,"memory":"user","message":"Saved: User prefers answers with code first"}
	// {"success":false,"duplicate":true,"existing":{"id":"fact-user-prefers-answers-with-code-first","content":"User prefers answers with code first"},"memory":"user","message":"Already saved: User prefers answers with code first"}
	// {"success":false,"error":"\"hobby\" is not a category; use one of identity, preference, relationship, project, context"}
}

// The definition of get_context, as Anthropic's Messages API takes it.
func ExampleFormat() {
	b, err := tools.Format(tools.Definitions()[3:4], "anthropic")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(b))
	// Output:
	// [
	//   {
	//     "name": "get_context",
	//     "description": "Get what the memory knows that bears on a question, within a budget of tokens: the facts about the user, the relevant knowledge and decisions, and the earlier conversations they come from. Call it before answering a question that may depend on earlier conversations.",
	//     "input_schema": {
	//       "type": "object",
	//       "properties": {
	//         "query": {
	//           "type": "string",
	//           "minLength": 1,
	//           "maxLength": 1000,
	//           "pattern": "\\S",
	//           "description": "The question or task the context is for, in the user's words."
	//         },
	//         "budget": {
	//           "type": "integer",
	//           "minimum": 100,
	//           "maximum": 32000,
	//           "default": 1000,
	//           "description": "The most tokens the context may take."
	//         }
	//       },
	//       "required": [
	//         "query"
	//       ],
	//       "additionalProperties": false
	//     }
	//   }
	// ]
}
