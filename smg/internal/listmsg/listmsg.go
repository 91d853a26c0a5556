// Package listmsg writes the message of an error that lists items.
package listmsg

import (
	"fmt"
	"strings"
)

// Of is the message of an error that lists items: the sentinel, how many
// items (noun, in the plural unless one), and the first most of them, then
// how many more.
func Of[T fmt.Stringer](sentinel error, noun string, items []T, most int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: %d %s", sentinel, len(items), noun)
	if len(items) != 1 {
		b.WriteByte('s')
	}
	for i, it := range items {
		if i == most {
			fmt.Fprintf(&b, "; and %d more", len(items)-most)
			break
		}
		b.WriteString("; ")
		b.WriteString(it.String())
	}
	return b.String()
}
