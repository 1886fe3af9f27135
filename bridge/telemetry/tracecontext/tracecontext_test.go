package tracecontext

import (
	"strings"
	"testing"
)

const good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func TestParseParent(t *testing.T) {
	for _, c := range []struct {
		name, in string
		ok       bool
		sampled  bool
	}{
		{"the specification's example", good, true, true},
		{"not sampled", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", true, false},
		{"other flag bits are dropped, sampled kept", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-ff", true, true},
		{"54 characters", good[:54], false, false},
		{"56 characters in version 00", good + "0", false, false},
		{"version 00 with a suffix", good + "-00", false, false},
		{"a later version with a suffix", "01" + good[2:] + "-whatever", true, true},
		{"a later version, exactly 55", "cc" + good[2:], true, true},
		{"a later version, suffix without a dash", "01" + good[2:] + "x", false, false},
		{"version ff", "ff" + good[2:], false, false},
		{"upper-case hex in the trace id", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", false, false},
		{"upper-case version", "0A" + good[2:], false, false},
		{"trace id all zeros", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", false, false},
		{"span id all zeros", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false, false},
		{"trace id one bit set", "00-00000000000000000000000000000001-0000000000000001-01", true, true},
		{"a dash moved", "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01", false, false},
		{"underscore separators", strings.ReplaceAll(good, "-", "_"), false, false},
		{"a non-hex letter", "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01", false, false},
		{"flags not hex", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x", false, false},
		{"leading blank", " " + good[:54], false, false},
		{"multi-byte UTF-8 in place of a digit", "00-4bf92f3577b34da6a3ce929d0e0e47é-00f067aa0ba902b7-01", false, false},
		{"empty", "", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, ok := ParseParent(c.in)
			if ok != c.ok {
				t.Fatalf("ParseParent(%q) ok = %v, want %v", c.in, ok, c.ok)
			}
			if ok && p.Sampled() != c.sampled {
				t.Errorf("sampled = %v, want %v", p.Sampled(), c.sampled)
			}
		})
	}
}

func TestParentString(t *testing.T) {
	p, ok := ParseParent(good)
	if !ok {
		t.Fatal("the specification's example did not parse")
	}
	if got := p.String(); got != good {
		t.Errorf("String() = %q, want %q", got, good)
	}
	// A later version is written back as version 00, without its suffix.
	p, _ = ParseParent("01" + good[2:] + "-extra")
	if got := p.String(); got != good {
		t.Errorf("String() of a version-01 value = %q, want %q", got, good)
	}
}

func TestParseState(t *testing.T) {
	members := func(n int) string {
		var m []string
		for i := range n {
			m = append(m, "k"+strings.Repeat("a", i%5)+string(rune('a'+i%26))+string(rune('a'+i/26))+"=v")
		}
		return strings.Join(m, ",")
	}
	for _, c := range []struct {
		name, in, want string
		ok             bool
	}{
		{"the specification's example", "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", true},
		{"blank around members is dropped", " rojo=1 ,\tcongo=2\t", "rojo=1,congo=2", true},
		{"empty members are skipped", "rojo=1,,congo=2,", "rojo=1,congo=2", true},
		{"empty", "", "", true},
		{"32 members", members(32), members(32), true},
		{"33 members", members(33), "", false},
		{"a repeated key", "rojo=1,congo=2,rojo=3", "", false},
		{"multi-tenant key", "fw529a3039@dt=ab,a@b=c", "fw529a3039@dt=ab,a@b=c", true},
		{"tenant may start with a digit", "1a@b=c", "1a@b=c", true},
		{"system may not", "a@1b=c", "", false},
		{"two @", "a@b@c=d", "", false},
		{"upper-case key", "Rojo=1", "", false},
		{"key starting with a digit", "1rojo=1", "", false},
		{"key of 256", strings.Repeat("a", 256) + "=1", strings.Repeat("a", 256) + "=1", true},
		{"key of 257", strings.Repeat("a", 257) + "=1", "", false},
		{"system id of 14", "t@" + strings.Repeat("s", 14) + "=1", "t@" + strings.Repeat("s", 14) + "=1", true},
		{"system id of 15", "t@" + strings.Repeat("s", 15) + "=1", "", false},
		{"tenant id of 241", strings.Repeat("t", 241) + "@s=1", strings.Repeat("t", 241) + "@s=1", true},
		{"tenant id of 242", strings.Repeat("t", 242) + "@s=1", "", false},
		{"value of 256", "k=" + strings.Repeat("v", 256), "k=" + strings.Repeat("v", 256), true},
		{"value of 257", "k=" + strings.Repeat("v", 257), "", false},
		{"empty value", "k=", "", false},
		{"no =", "rojo", "", false},
		{"value with =", "k=a=b", "", false},
		{"value ending in a space is trimmed as blank", "k=ab ", "k=ab", true},
		{"inner space in a value", "k=a b", "k=a b", true},
		{"value with a control character", "k=a\x01b", "", false},
		{"value with DEL", "k=a\x7fb", "", false},
		{"value with UTF-8", "k=é", "", false},
		{"value with a quote and a backslash (allowed)", `k=a"\b`, `k=a"\b`, true},
		{"512 bytes", "k=" + strings.Repeat("v", 251) + ",l=" + strings.Repeat("v", 256), "k=" + strings.Repeat("v", 251) + ",l=" + strings.Repeat("v", 256), true},
		{"513 bytes", "k=" + strings.Repeat("v", 252) + ",l=" + strings.Repeat("v", 256), "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ParseState(c.in)
			if ok != c.ok || got != c.want {
				t.Errorf("ParseState(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
			}
		})
	}
}

// FuzzParse: no input panics; what is accepted is written back in a form
// that parses to the same value, and stays within the limits.
func FuzzParse(f *testing.F) {
	f.Add(good, "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
	f.Add("01"+good[2:]+"-x", " a@b=c ,, d=e")
	f.Add("ff"+good[2:], strings.Repeat("a=b,", 40))
	f.Fuzz(func(t *testing.T, parent, state string) {
		if p, ok := ParseParent(parent); ok {
			q, ok := ParseParent(p.String())
			if !ok || q != p {
				t.Fatalf("%q parsed, but its String %q did not parse back the same", parent, p.String())
			}
			if p.Flags&^FlagSampled != 0 {
				t.Fatalf("flags %x kept bits other than sampled", p.Flags)
			}
		}
		if s, ok := ParseState(state); ok {
			if len(s) > MaxStateBytes || strings.Count(s, ",") >= MaxMembers {
				t.Fatalf("%q accepted as %q: over the limits", state, s)
			}
			again, ok := ParseState(s)
			if !ok || again != s {
				t.Fatalf("%q accepted as %q, which parses to %q, %v", state, s, again, ok)
			}
			for i := 0; i < len(s); i++ {
				if s[i] < 0x20 || s[i] > 0x7e {
					t.Fatalf("%q accepted with byte %#x", state, s[i])
				}
			}
		}
	})
}
