package restore

import "testing"

func TestTokenizers(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		want int
	}{
		{CL100K, "hello world", 2},
		{O200K, "hello world", 2},
		{CL100K, "", 0},
	} {
		tk, err := NewTokenizer(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := tk.Count(tc.text); got != tc.want || tk.Name() != tc.name {
			t.Errorf("%s(%q) = %d (%s), want %d", tc.name, tc.text, got, tk.Name(), tc.want)
		}
	}
	if _, err := NewTokenizer("gpt2"); err == nil {
		t.Error("an unknown tokenizer was accepted")
	}
}
