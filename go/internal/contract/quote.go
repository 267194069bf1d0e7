package contract

import (
	"fmt"
	"strings"
)

// QuoteMax is how many bytes of a value Quote shows, as C's harness does.
const QuoteMax = 40

// Quote returns up to QuoteMax bytes of b for a one-line failure message, in
// the C programs' format: \n, \t, \r and \\ escaped, every other control
// byte and every byte above 0x7e as \xNN, and "..." when b is longer.  Its
// cost and length do not depend on len(b), so a wrong fixture of gigabytes
// gives a message of at most 4*QuoteMax+3 bytes at once.
func Quote(b []byte) string {
	var out strings.Builder
	n := len(b)
	if n > QuoteMax {
		n = QuoteMax
	}
	for _, c := range b[:n] {
		switch {
		case c == '\n':
			out.WriteString(`\n`)
		case c == '\t':
			out.WriteString(`\t`)
		case c == '\r':
			out.WriteString(`\r`)
		case c == '\\':
			out.WriteString(`\\`)
		case c < 0x20 || c > 0x7e:
			fmt.Fprintf(&out, `\x%02x`, c)
		default:
			out.WriteByte(c)
		}
	}
	if len(b) > QuoteMax {
		out.WriteString("...")
	}
	return out.String()
}
