package clientfit

import (
	"fmt"
	"image"
	"strconv"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// The words a client (and so the model, and the user reading along) sees
// about a result that was reduced: each note is a text block of its own,
// right after what it speaks of, so that what the base wrote is never
// mixed with what the bridge says. They start "mcp-bridge:" so that
// nobody takes them for CAD's own words.

// textBlock is a text content block holding s.
func textBlock(s string) []byte {
	b := append(make([]byte, 0, len(s)+32), `{"type":"text","text":`...)
	b = rpc.AppendString(b, s)
	return append(b, '}')
}

// who is the client the notes speak of.
func (l Limits) who() string {
	if l.For != "" {
		return l.For
	}
	return "this client"
}

// takes says what the client takes, for the notes: "what Claude Desktop
// takes (1 MiB a result, 2000 px a side)".
func (l Limits) takes() string {
	var parts []string
	if l.MaxResultBytes > 0 {
		parts = append(parts, human(max(l.MaxResultBytes, MinResultBytes))+" a result")
	}
	if l.MaxImageSide > 0 {
		parts = append(parts, strconv.Itoa(l.MaxImageSide)+" px a side")
	}
	if l.MaxImageBytes > 0 {
		parts = append(parts, human(l.MaxImageBytes)+" a picture")
	}
	if len(parts) == 0 {
		return "what " + l.who() + " takes"
	}
	return "what " + l.who() + " takes (" + strings.Join(parts, ", ") + ")"
}

func pictureNote(from, to image.Point, format string, l Limits) string {
	return fmt.Sprintf("mcp-bridge: the picture above was reduced from %d×%d to %d×%d px (%s) to fit %s.",
		from.X, from.Y, to.X, to.Y, strings.ToUpper(format), l.takes())
}

func pictureLostNote(mime string, n int, why string, l Limits) string {
	return fmt.Sprintf("mcp-bridge: a picture (%s, %s) was left out: it could not be reduced to fit %s (%s).",
		describeMime(mime), human(n), l.takes(), why)
}

func textNote(left, total int, l Limits) string {
	return fmt.Sprintf("mcp-bridge: the text above was cut: %s of %s characters left out to fit %s. The tool's own arguments may ask for less (a filter, a layer, a range).",
		count(left), count(total), l.takes())
}

func blockNote(kind, mime string, n int, l Limits) string {
	what := kind + " block"
	if mime != "" {
		what += " (" + mime + ", " + human(n) + ")"
	} else {
		what += " (" + human(n) + ")"
	}
	return fmt.Sprintf("mcp-bridge: %s %s was left out to fit %s.", article(kind), what, l.takes())
}

func memberNote(names []string, l Limits) string {
	return fmt.Sprintf("mcp-bridge: the result's %s left out to fit %s.", joinNames(names), l.takes())
}

func unreadableNote(n int, l Limits) string {
	return fmt.Sprintf("mcp-bridge: the result (%s) was left out: it is not a JSON object the bridge could reduce to fit %s.", human(n), l.takes())
}

// joinNames lists members as "structuredContent (1.2 MiB) was" or
// "a (2 KiB) and b (3 KiB) were".
func joinNames(names []string) string {
	switch len(names) {
	case 1:
		return names[0] + " was"
	default:
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " were"
	}
}

func article(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an"
	}
	return "a"
}

// describeMime keeps a hostile mimeType from filling the note.
func describeMime(m string) string {
	if m == "" {
		return "no type"
	}
	if len(m) > 40 {
		m = m[:40] + "…"
	}
	return strings.ToValidUTF8(m, "?")
}

// human writes a byte count for people: "1 MiB", "200,000 bytes",
// "4.4 MiB".
func human(n int) string {
	const kib, mib = 1 << 10, 1 << 20
	switch {
	case n >= mib && n%mib == 0:
		return strconv.Itoa(n/mib) + " MiB"
	case n >= kib && n < mib && n%kib == 0:
		return strconv.Itoa(n/kib) + " KiB"
	case n < 10_000 || n%1000 == 0:
		return count(n) + " bytes"
	case n >= mib:
		return strconv.FormatFloat(float64(n)/mib, 'f', 1, 64) + " MiB"
	default:
		return strconv.FormatFloat(float64(n)/kib, 'f', 1, 64) + " KiB"
	}
}

// count writes n with thousands separators: 1,048,576.
func count(n int) string {
	s := strconv.Itoa(n)
	if n < 0 || len(s) <= 3 {
		return s
	}
	var b strings.Builder
	lead := len(s) % 3
	if lead > 0 {
		b.WriteString(s[:lead])
	}
	for i := lead; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}
