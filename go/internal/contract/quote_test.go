package contract

import (
	"bytes"
	"testing"
)

func TestQuoteEscapesAsTheCHarnessDoes(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Hello, world", "Hello, world"},
		{"Hello, world\n", `Hello, world\n`},
		{"a\tb\rc\\d\x00\x1f\x7f\xff\xc3\xa9", `a\tb\rc\\d\x00\x1f\x7f\xff\xc3\xa9`},
		{"", ""},
		{string(bytes.Repeat([]byte("x"), QuoteMax)), string(bytes.Repeat([]byte("x"), QuoteMax))},
		{string(bytes.Repeat([]byte("x"), QuoteMax+1)), string(bytes.Repeat([]byte("x"), QuoteMax)) + "..."},
	}
	for _, c := range cases {
		if got := Quote([]byte(c.in)); got != c.want {
			t.Errorf("Quote(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestQuoteOfTwentyMegabytesIsFortyBytesAndAnEllipsis(t *testing.T) {
	big := bytes.Repeat([]byte{0xff}, 20<<20)
	if got := Quote(big); len(got) != 4*QuoteMax+3 {
		t.Errorf("Quote of 20 MB is %d bytes, want %d", len(got), 4*QuoteMax+3)
	}
}
