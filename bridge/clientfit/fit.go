package clientfit

import (
	"bytes"
	"image"
	"math"
	"slices"
	"sort"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Report says what Fit did with a result, for the log and the journal.
type Report struct {
	// Changed: the bytes out are not the bytes in.
	Changed bool
	// Before and After are the result's size in and out, in bytes.
	Before, After int
	// Pictures are the pictures reduced, or left out (To zero, Why set).
	Pictures []PictureReport
	// CutChars is how many characters of text were left out, all text
	// blocks together.
	CutChars int
	// LeftOut names what was left out whole: "an audio block (3.1 MiB)",
	// "structuredContent (1.2 MiB)".
	LeftOut []string
}

// PictureReport is one picture Fit reduced or left out.
type PictureReport struct {
	From, To image.Point // sizes in pixels; To is zero when it was left out
	Format   string      // as it went out: png or jpeg
	Why      string      // why it was left out
}

// decodeHook, when set (by tests), is told of each decoding Fit does:
// "header" (a picture's first bytes read for its size), "base64" (a
// picture's whole data), "pixels" (a picture decoded), "json" (a string
// with escapes unquoted).
var decodeHook atomic.Pointer[func(what string)]

func counted(what string) {
	if i := slices.Index(decodeKinds, what); i >= 0 {
		decodes[i].Add(1)
	}
	if f := decodeHook.Load(); f != nil {
		(*f)(what)
	}
}

// decodeKinds are what Fit decodes, and decodes their counts.
var (
	decodeKinds = []string{"header", "base64", "pixels", "json"}
	decodes     [4]atomic.Int64
)

// Decodes is how many times Fit has decoded what ("header", "base64",
// "pixels" or "json", as decodeHook says) in this process, for the tests
// of its callers: a client without limits, or a result under them, must
// cost none (a picture's header is read to know its size).
func Decodes(what string) int64 {
	if i := slices.Index(decodeKinds, what); i >= 0 {
		return decodes[i].Load()
	}
	return 0
}

// Fit makes a tools/call result (the raw JSON of its result object, as the
// base answered it) fit what the client takes, and says what it did.
//
// A result that already fits comes back as it is, the same slice, with
// nothing decoded: without limits nothing is looked at; under a limit on
// bytes, its length and UTF-8 are checked; under limits on pictures, the
// header of each picture (its first bytes) is read for its size, and only
// when the result holds a string "image" at all.
//
// One that does not fit is reduced, in this order, each step only as far
// as it must:
//  1. every picture over the client's picture limits (its side, its
//     bytes) is scaled down to them;
//  2. the content blocks share what the limit leaves after the result's
//     other members, the largest giving way first: text is cut (at a
//     character, never inside a UTF-8 sequence or an escape), pictures
//     scaled down further, and a block that cannot be reduced (audio, a
//     binary resource, a picture of another format or a broken one) is
//     left out; each change is said in a text block right after it;
//  3. when even notes alone would not fit, the result's other members
//     (structuredContent, _meta, any other) are left out, largest first,
//     and said so in a last text block: structuredContent is kept whole or
//     not at all, as a cut one would no longer be valid JSON or match the
//     tool's schema. isError is always kept.
//
// Everything else is kept as the base wrote it: the members and their
// order, the blocks and their order, a reduced block's other members. The
// bytes out are valid JSON in valid UTF-8 and never over MaxResultBytes
// (its Envelope taken off; taken as minFitBytes when smaller). result must be valid JSON (the
// core's answers from tcpbase are checked); one that is not is answered,
// when over the limit, by a result saying it was left out.
func Fit(result []byte, lim Limits) ([]byte, Report) {
	if lim.None() || fits(result, lim) {
		return result, Report{Before: len(result), After: len(result)}
	}
	return reduced(result, lim)
}

// reduced is Fit's slow path, apart so that the fast one allocates
// nothing (not even its Report).
func reduced(result []byte, lim Limits) ([]byte, Report) {
	rep := &Report{Before: len(result), Changed: true}
	out := reduce(result, lim, rep)
	rep.After = len(out)
	return out, *rep
}

// maxBytes is the limit on the result's bytes, its envelope taken off, 0
// for none.
func (l Limits) maxBytes() int {
	if l.MaxResultBytes <= 0 {
		return 0
	}
	return max(l.MaxResultBytes-l.Envelope, minFitBytes)
}

// fits reports whether result can go to the client as it is. It
// allocates nothing unless result holds a string "image".
func fits(result []byte, lim Limits) bool {
	if max := lim.maxBytes(); max > 0 && (len(result) > max || !utf8.Valid(result)) {
		// Invalid UTF-8 would be replaced on the way out (rpc's writer),
		// three bytes for one: fitted here instead, where it is counted.
		return false
	}
	if lim.MaxImageSide <= 0 && lim.MaxImageBytes <= 0 {
		return true
	}
	// No string can be "image" without those bytes, or an escape \u for
	// one of its letters: most results are let through on this alone.
	if !bytes.Contains(result, []byte(`"image"`)) && !bytes.Contains(result, []byte(`\u`)) {
		return true
	}
	if !rpc.Valid(result) {
		return false
	}
	content := rpc.Field(result, "content")
	if rpc.Kind(content) != rpc.KindArray {
		return true
	}
	ok := true
	rpc.EachElement(content, func(from, to int) {
		if ok && isType(content[from:to], "image") {
			ok = pictureFits(content[from:to], lim)
		}
	})
	return ok
}

// pictureFits reports whether an image block is within the picture limits,
// from its header. A block that is not a picture of a format Fit reads
// (data not a string, SVG…) fits while its data is within the bytes.
func pictureFits(blk []byte, lim Limits) bool {
	tok := rpc.Field(blk, "data")
	if rpc.Kind(tok) != rpc.KindString {
		return true
	}
	if lim.MaxImageBytes > 0 && len(tok)-2 > lim.MaxImageBytes {
		return false
	}
	if lim.MaxImageSide <= 0 {
		return true
	}
	b64 := unescaped(tok)
	format, size, err := peekSize(b64)
	switch {
	case format == "":
		return true
	case err != nil:
		return false // a PNG or JPEG whose header cannot be read: decided by decoding it
	}
	return size.X <= lim.MaxImageSide && size.Y <= lim.MaxImageSide
}

// isType reports whether a content block's type is t.
func isType(blk []byte, t string) bool {
	tok := rpc.Field(blk, "type")
	if len(tok) == len(t)+2 && tok[0] == '"' && string(tok[1:len(tok)-1]) == t {
		return true
	}
	if bytes.IndexByte(tok, '\\') < 0 {
		return false
	}
	counted("json")
	s, ok := rpc.String(tok)
	return ok && s == t
}

// unescaped is the text of a string token as bytes: the token's interior
// itself when it has no escapes (base64 has none, unless a base escaped
// its slashes).
func unescaped(tok []byte) []byte {
	if bytes.IndexByte(tok, '\\') < 0 {
		return tok[1 : len(tok)-1]
	}
	counted("json")
	s, _ := rpc.String(tok)
	return []byte(s)
}

// stringOf is the text of a member's string value, "" when it is absent
// or not a string.
func stringOf(obj []byte, key string) string {
	tok := rpc.Field(obj, key)
	if rpc.Kind(tok) != rpc.KindString {
		return ""
	}
	return string(unescaped(tok))
}

// keyIs reports whether a raw key token (quotes included) is key.
func keyIs(raw []byte, key string) bool {
	if len(raw) == len(key)+2 && string(raw[1:len(raw)-1]) == key {
		return true
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return false
	}
	k, ok := rpc.Unquote(raw)
	return ok && k == key
}

// memberSpan is where the value of obj's member key lies in obj (the last
// one, as decoders read it).
func memberSpan(obj []byte, key string) (start, end int, ok bool) {
	_ = rpc.EachMember(obj, func(raw []byte, s, e int) bool {
		if keyIs(raw, key) {
			start, end, ok = s, e, true
		}
		return true
	})
	return start, end, ok
}

// The kinds of content block, by what Fit can do with them.
type blockKind uint8

const (
	kOther   blockKind = iota // kept whole or left out
	kText                     // text, or a resource's text: cut
	kPicture                  // a PNG, JPEG, GIF or WebP picture: scaled
)

// block is one content block: what the base sent, what Fit knows of it,
// and what goes out.
type block struct {
	raw  []byte
	kind blockKind
	// ts, te: a text block's string token in raw (quotes included); for a
	// picture, its data token.
	ts, te int
	// ms, me: a picture's mimeType token in raw; ms < 0 when it has none.
	ms, me int
	pic    *picture
	mime   string // its mimeType, for notes
	what   string // what a note calls it: "text", "audio", "picture"…
	// must: a picture over the picture limits, or one whose header cannot
	// be read: reduced (or left out) whatever the budget.
	must bool
	// forced: left out whatever the budget (a picture over the bytes that
	// cannot be scaled).
	forced bool
	why    error // why a picture cannot be reduced, when known up front

	// For the budget: what the block takes as it is (for a picture that
	// must be reduced, the most it may take), the least it can be reduced
	// to and keep something, and what the note replacing it takes.
	size, floor, noteOnly int

	out  []byte // the block as it goes out
	note []byte // the note after it, if any
	done bool   // out (and note) are final
}

// outLen is what the block and its note take in the content array.
func (b *block) outLen() int {
	n := len(b.out)
	if b.note != nil {
		n += 1 + len(b.note)
	}
	return n
}

// member is one of the result's members other than its content.
type member struct {
	raw     []byte // its key token as written
	val     []byte
	content bool // the content array
	keep    bool // isError with a boolean value: never left out
	dropped bool
}

func (m member) len() int { return len(m.raw) + 1 + len(m.val) }

// pictureNoteRoom is the most a note on a reduced picture takes: its
// sizes are not known before it is decoded (a header may be unreadable),
// so the room is reserved for the largest a decoder returns.
func pictureNoteRoom(lim Limits) int {
	big := image.Pt(math.MaxInt32, math.MaxInt32)
	return len(textBlock(pictureNote(big, big, fmtJPEG, lim)))
}

// Room for the notes, reserved before they are written.
var (
	// mimeGrowth: a reduced picture's mimeType may be written longer than
	// the base wrote it ("image/jpg" becomes "image/jpeg") or added.
	mimeGrowth = len(`,"mimeType":"image/jpeg"`)
	// minPicture is the least base64 worth sending a picture in; below it,
	// a note says the picture was left out.
	minPicture = 2048
)

func reduce(in []byte, lim Limits, rep *Report) []byte {
	if !utf8.Valid(in) {
		in = bytes.ToValidUTF8(in, []byte("\uFFFD"))
	}
	limit := lim.maxBytes()
	if !rpc.Valid(in) || rpc.Kind(in) != rpc.KindObject {
		if limit == 0 || len(in) <= limit {
			return in
		}
		rep.LeftOut = append(rep.LeftOut, "the whole result ("+human(len(in))+")")
		return minimal(nil, unreadableNote(len(in), lim))
	}

	// The members, the content among them (the last "content", as
	// decoders read it, when it is an array).
	var members []member
	var isError []byte
	_ = rpc.EachMember(in, func(raw []byte, s, e int) bool {
		members = append(members, member{raw: raw, val: in[s:e]})
		return true
	})
	ci := -1
	for i, m := range members {
		switch {
		case keyIs(m.raw, "content"):
			ci = i
		case keyIs(m.raw, "isError"):
			if k := rpc.Kind(m.val); k == rpc.KindTrue || k == rpc.KindFalse {
				members[i].keep, isError = true, m.val
			}
		}
	}
	if ci >= 0 && rpc.Kind(members[ci].val) != rpc.KindArray {
		ci = -1
	}
	var blocks []*block
	if ci >= 0 {
		members[ci].content = true
		content := members[ci].val
		rpc.EachElement(content, func(from, to int) {
			blocks = append(blocks, classify(content[from:to], lim))
		})
	}

	f := fitting{lim: lim, limit: limit, members: members, blocks: blocks, rep: rep}
	out, ok := f.run()
	if !ok || limit > 0 && len(out) > limit {
		return minimal(isError, "mcp-bridge: the result ("+human(len(in))+") could not be reduced to fit "+lim.takes()+".")
	}
	return out
}

// classify reads what Fit needs of a content block.
func classify(raw []byte, lim Limits) *block {
	b := &block{raw: raw, kind: kOther, ms: -1, what: "content"}
	typ := rpc.Field(raw, "type")
	t, _ := rpc.String(typ)
	switch t {
	case "text":
		if s, e, ok := memberSpan(raw, "text"); ok && rpc.Kind(raw[s:e]) == rpc.KindString {
			b.kind, b.ts, b.te, b.what = kText, s, e, "text"
		}
	case "resource":
		b.what = "resource"
		if rs, re, ok := memberSpan(raw, "resource"); ok && rpc.Kind(raw[rs:re]) == rpc.KindObject {
			res := raw[rs:re]
			b.mime = stringOf(res, "mimeType")
			if s, e, ok := memberSpan(res, "text"); ok && rpc.Kind(res[s:e]) == rpc.KindString {
				b.kind, b.ts, b.te = kText, rs+s, rs+e
			}
		}
	case "image":
		b.what, b.mime = "picture", stringOf(raw, "mimeType")
		classifyPicture(b, lim)
	case "audio", "resource_link":
		b.what, b.mime = t, stringOf(raw, "mimeType")
	}
	b.measure(lim)
	return b
}

func classifyPicture(b *block, lim Limits) {
	s, e, ok := memberSpan(b.raw, "data")
	if !ok || rpc.Kind(b.raw[s:e]) != rpc.KindString {
		return // kept whole or left out, like any block Fit cannot read
	}
	b.ts, b.te = s, e
	if ms, me, ok := memberSpan(b.raw, "mimeType"); ok {
		b.ms, b.me = ms, me
	}
	p := &picture{b64: unescaped(b.raw[s:e])}
	b.pic = p
	p.format, p.size, p.err = peekSize(p.b64)
	declared := formatOfMime(b.mime)
	overBytes := lim.MaxImageBytes > 0 && len(p.b64) > lim.MaxImageBytes
	switch {
	case p.format == "" && declared == "":
		// SVG, BMP, a type Fit does not read: it passes while it fits.
		b.why, b.forced = errFormat, overBytes
	case p.format == "":
		// It says PNG (or JPEG…) and is not.
		b.why, b.forced = p.err, true
	case p.err != nil:
		// Its header is unreadable: decoding it decides.
		b.kind, b.must = kPicture, true
	default:
		b.kind = kPicture
		b.must = overBytes || declared != p.format ||
			lim.MaxImageSide > 0 && (p.size.X > lim.MaxImageSide || p.size.Y > lim.MaxImageSide)
	}
}

// measure sets what the block takes, at least and as a note alone.
func (b *block) measure(lim Limits) {
	b.size = len(b.raw)
	switch b.kind {
	case kText:
		b.noteOnly = len(textBlock(blockNote(b.what, b.mime, len(b.raw), lim)))
		total := countChars(b.raw[b.ts+1 : b.te-1])
		b.floor = len(b.raw) - (b.te - b.ts) + 2 + 1 + len(textBlock(textNote(total, total, lim)))
	case kPicture:
		b.noteOnly = len(textBlock(pictureLostNote(b.mime, len(b.pic.b64), longestWhy, lim)))
		wrap := len(b.raw) - (b.te - b.ts) + mimeGrowth + 2 + 1 + pictureNoteRoom(lim)
		b.floor = wrap + minPicture
		if b.must {
			// It will be reduced: it may take up to the picture limit.
			want := len(b.pic.b64)
			if lim.MaxImageBytes > 0 {
				want = lim.MaxImageBytes
			}
			b.size = wrap + want
		}
	default:
		why := "it cannot be reduced"
		if b.why != nil {
			why = b.why.Error()
		}
		if b.pic != nil {
			b.noteOnly = len(textBlock(pictureLostNote(b.mime, len(b.pic.b64), why, lim)))
		} else {
			b.noteOnly = len(textBlock(blockNote(b.what, b.mime, len(b.raw), lim)))
		}
		if b.forced {
			b.size = b.noteOnly
		}
	}
	b.floor = max(b.floor, b.noteOnly)
	switch {
	case b.kind == kPicture:
		// A picture kept as it is is decoded first, and left out if it
		// does not decode: room for that note too.
		b.size = max(b.size, b.noteOnly)
	case b.size <= b.noteOnly && !b.forced:
		// Smaller than its own note: it is never worth leaving out.
		b.noteOnly, b.floor = b.size, b.size
	}
}

// fitting is one result being fitted.
type fitting struct {
	lim     Limits
	limit   int
	members []member
	blocks  []*block
	rep     *Report
	dropped []string // members left out, for the last note
	endNote []byte
}

// cost is what block b takes when the blocks over level take level.
func (b *block) cost(level int) int {
	switch {
	case b.done:
		return b.outLen()
	case b.size <= level:
		return b.size
	case b.kind != kOther && !b.forced && level >= b.floor:
		return level
	}
	return b.noteOnly
}

// total is the result's length when the blocks take what cost says.
func (f *fitting) total(level int) int {
	n := 2 // { }
	first := true
	sep := func() {
		if !first {
			n++
		}
		first = false
	}
	hasContent := false
	for _, m := range f.members {
		if m.dropped {
			continue
		}
		sep()
		if m.content {
			hasContent = true
			n += len(m.raw) + 1 + f.contentLen(level)
			continue
		}
		n += m.len()
	}
	if !hasContent && f.endNote != nil {
		sep()
		n += len(`"content":`) + 2 + len(f.endNote)
	}
	return n
}

func (f *fitting) contentLen(level int) int {
	n := 2
	for i, b := range f.blocks {
		if i > 0 {
			n++
		}
		n += b.cost(level)
	}
	if f.endNote != nil {
		if len(f.blocks) > 0 {
			n++
		}
		n += len(f.endNote)
	}
	return n
}

// level finds the largest level at which the result fits.
func (f *fitting) level() (int, bool) {
	if f.limit == 0 {
		return int(^uint(0) >> 1), true
	}
	hi := 0
	for _, b := range f.blocks {
		hi = max(hi, b.size)
	}
	if f.total(hi) <= f.limit {
		return hi, true
	}
	if f.total(0) > f.limit {
		return 0, false
	}
	lo := 0 // fits; hi does not
	for lo+1 < hi {
		mid := lo + (hi-lo)/2
		if f.total(mid) <= f.limit {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, true
}

// run fits the result: members left out while even notes do not fit,
// then the pictures (the uncertain ones) at their share, then the text at
// what the pictures left.
func (f *fitting) run() ([]byte, bool) {
	if _, ok := f.level(); !ok && !f.dropMembers() {
		return nil, false
	}
	level, _ := f.level()
	for _, b := range f.blocks {
		if b.kind == kPicture && (b.must || b.size > level) {
			f.realize(b, b.cost(level))
		}
	}
	level, ok := f.level()
	if !ok {
		return nil, false
	}
	for _, b := range f.blocks {
		if !b.done {
			f.realize(b, b.cost(level))
		}
	}
	return f.assemble(), true
}

// dropMembers leaves out the result's other members, largest first, until
// the notes alone fit; false when they never do.
func (f *fitting) dropMembers() bool {
	order := make([]int, 0, len(f.members))
	for i, m := range f.members {
		if !m.content && !m.keep {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return f.members[order[a]].len() > f.members[order[b]].len() })
	for _, i := range order {
		m := &f.members[i]
		m.dropped = true
		name := memberName(m.raw) + " (" + human(m.len()) + ")"
		f.dropped = append(f.dropped, name)
		f.rep.LeftOut = append(f.rep.LeftOut, name)
		f.endNote = textBlock(memberNote(f.dropped, f.lim))
		if f.total(0) <= f.limit {
			return true
		}
	}
	return false
}

// memberName is a member's key for a note, cut short if a base made it
// long.
func memberName(raw []byte) string {
	k, _ := rpc.Unquote(raw)
	if utf8.RuneCountInString(k) > 40 {
		k = string([]rune(k)[:40]) + "…"
	}
	return k
}

// realize makes block b take at most a bytes (with its note).
func (f *fitting) realize(b *block, a int) {
	b.done = true
	if !b.must && !b.forced && a >= b.size {
		if b.kind != kPicture {
			b.out = b.raw
			return
		}
		if b.why = b.pic.check(); b.why == nil {
			b.out = b.raw
			return
		}
		f.leaveOut(b)
		return
	}
	switch {
	case b.kind == kText && a >= b.floor && a < b.size:
		f.cutText(b, a)
		return
	case b.kind == kPicture && a >= b.floor:
		if f.shrinkPicture(b, a) {
			return
		}
	}
	f.leaveOut(b)
}

func (f *fitting) cutText(b *block, a int) {
	inner := b.raw[b.ts+1 : b.te-1]
	total := countChars(inner)
	room := a - (len(b.raw) - len(inner)) - 1 - len(textBlock(textNote(total, total, f.lim)))
	prefix, kept := cutChars(inner, room)
	b.out = slices.Concat(b.raw[:b.ts+1], prefix, b.raw[b.te-1:])
	b.note = textBlock(textNote(total-kept, total, f.lim))
	f.rep.CutChars += total - kept
}

// shrinkPicture reduces a picture to take at most a bytes with its note;
// false when it could not be.
func (f *fitting) shrinkPicture(b *block, a int) bool {
	p := b.pic
	wrap := len(b.raw) - (b.te - b.ts) + mimeGrowth + 2 + 1 + pictureNoteRoom(f.lim)
	maxB64 := a - wrap
	if f.lim.MaxImageBytes > 0 {
		maxB64 = min(maxB64, f.lim.MaxImageBytes)
	}
	if maxB64 < minPicture {
		b.why = errNoRoom
		return false
	}
	data, to, format, err := p.fit(f.lim.MaxImageSide, maxB64)
	if err != nil {
		b.why = err
		return false
	}
	from := p.size // as decoded
	mime := `"image/` + format + `"`
	var out []byte
	if b.ms >= 0 {
		// data and mimeType replaced where they lie, in either order.
		type span struct {
			s, e int
			v    []byte
		}
		spans := []span{{b.ts, b.te, nil}, {b.ms, b.me, []byte(mime)}}
		if b.ms < b.ts {
			spans[0], spans[1] = spans[1], spans[0]
		}
		last := 0
		for _, sp := range spans {
			out = append(out, b.raw[last:sp.s]...)
			if sp.v == nil {
				out = append(append(append(out, '"'), data...), '"')
			} else {
				out = append(out, sp.v...)
			}
			last = sp.e
		}
		out = append(out, b.raw[last:]...)
	} else {
		out = slices.Concat(b.raw[:b.ts], []byte(`"`), data, []byte(`"`), b.raw[b.te:])
		out = rpc.AppendMembers(out, `"mimeType":`+mime)
	}
	b.out = out
	b.note = textBlock(pictureNote(from, to, format, f.lim))
	f.rep.Pictures = append(f.rep.Pictures, PictureReport{From: from, To: to, Format: format})
	return true
}

// leaveOut replaces block b by a note saying what it was.
func (f *fitting) leaveOut(b *block) {
	b.done = true
	if b.pic != nil {
		why := b.why
		if why == nil {
			why = errNoRoom
		}
		b.out = textBlock(pictureLostNote(b.mime, len(b.pic.b64), why.Error(), f.lim))
		f.rep.Pictures = append(f.rep.Pictures, PictureReport{From: b.pic.size, Why: why.Error()})
		return
	}
	kind := b.what
	b.out = textBlock(blockNote(kind, b.mime, len(b.raw), f.lim))
	f.rep.LeftOut = append(f.rep.LeftOut, article(kind)+" "+kind+" block ("+human(len(b.raw))+")")
}

// assemble writes the result: its members in their order, the content's
// blocks with their notes, and the note on members left out.
func (f *fitting) assemble() []byte {
	out := make([]byte, 0, f.total(0)+256)
	out = append(out, '{')
	first := true
	sep := func() {
		if !first {
			out = append(out, ',')
		}
		first = false
	}
	wroteContent := false
	for _, m := range f.members {
		if m.dropped {
			continue
		}
		sep()
		out = append(append(out, m.raw...), ':')
		if !m.content {
			out = append(out, m.val...)
			continue
		}
		wroteContent = true
		out = f.appendContent(out)
	}
	if !wroteContent && f.endNote != nil {
		sep()
		out = f.appendContent(append(out, `"content":`...))
	}
	return append(out, '}')
}

func (f *fitting) appendContent(out []byte) []byte {
	out = append(out, '[')
	for i, b := range f.blocks {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, b.out...)
		if b.note != nil {
			out = append(append(out, ','), b.note...)
		}
	}
	if f.endNote != nil {
		if len(f.blocks) > 0 {
			out = append(out, ',')
		}
		out = append(out, f.endNote...)
	}
	return append(out, ']')
}

// minimal is the least result: a note, and isError as the base gave it.
func minimal(isError []byte, note string) []byte {
	out := append([]byte(`{"content":[`), textBlock(note)...)
	out = append(out, ']')
	if isError != nil {
		out = append(append(out, `,"isError":`...), isError...)
	}
	return append(out, '}')
}
