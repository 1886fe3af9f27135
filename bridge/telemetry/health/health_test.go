package health

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

type answer struct {
	code int
	body map[string]any
}

func get(t *testing.T, h http.Handler, method string) answer {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, "/healthz", nil))
	var a answer
	a.code = rec.Code
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(rec.Body.Bytes(), &a.body); err != nil {
			t.Fatalf("body is not JSON: %v: %q", err, rec.Body.String())
		}
	}
	if rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", rec.Header().Get("Cache-Control"))
	}
	return a
}

func TestHealthzFollowsTheBase(t *testing.T) {
	s := New()
	clock := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return clock }
	h := Healthz(s, func() map[string]any {
		// The core's figures; its "base" and "status" must not win.
		return map[string]any{"version": "v1", "sessions": 3, "base": "up", "status": "fine", "reason": "none"}
	})

	a := get(t, h, http.MethodGet)
	if a.code != 200 || a.body["base"] != "unknown" || a.body["status"] != "ok" || a.body["sessions"] != float64(3) || a.body["version"] != "v1" {
		t.Errorf("before any call: %d %v", a.code, a.body)
	}
	if _, ok := a.body["reason"]; ok {
		t.Errorf("a reason while nothing is down: %v", a.body)
	}

	s.Down("CAD base at 127.0.0.1:8080 refused the connection")
	a = get(t, h, http.MethodGet)
	if a.code != 503 || a.body["base"] != "down" || a.body["status"] != "cad_unreachable" ||
		a.body["reason"] != "CAD base at 127.0.0.1:8080 refused the connection" || a.body["since"] != "2026-12-02T10:00:00Z" {
		t.Errorf("base down: %d %v", a.code, a.body)
	}

	// Still down a minute later, for another reason: since stays.
	clock = clock.Add(time.Minute)
	s.Down("timed out")
	a = get(t, h, http.MethodHead)
	if a.code != 503 {
		t.Errorf("HEAD while down: %d", a.code)
	}
	if st := s.Status(); st.Reason != "timed out" || !st.Since.Equal(clock.Add(-time.Minute)) {
		t.Errorf("still down: %+v", st)
	}

	clock = clock.Add(time.Minute)
	s.Up()
	a = get(t, h, http.MethodGet)
	if a.code != 200 || a.body["base"] != "up" || a.body["since"] != "2026-12-02T10:02:00Z" || a.body["reason"] != nil {
		t.Errorf("base back: %d %v", a.code, a.body)
	}
	// Up again changes nothing, not even since.
	clock = clock.Add(time.Minute)
	s.Up()
	if st := s.Status(); !st.Since.Equal(clock.Add(-time.Minute)) {
		t.Errorf("a second Up moved since to %v", st.Since)
	}
}

func TestHealthzMethods(t *testing.T) {
	for _, h := range []http.Handler{Healthz(New(), nil), Livez()} {
		for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
			if a := get(t, h, m); a.code != http.StatusMethodNotAllowed {
				t.Errorf("%s: %d", m, a.code)
			}
		}
	}
}

func TestLivezIgnoresTheBase(t *testing.T) {
	s := New()
	s.Down("gone")
	rec := httptest.NewRecorder()
	Livez().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/livez", nil))
	if rec.Code != 200 || rec.Body.String() != "ok\n" {
		t.Errorf("livez while CAD is down: %d %q", rec.Code, rec.Body.String())
	}
}

func TestReasonIsBounded(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{strings.Repeat("a", maxReason), strings.Repeat("a", maxReason)},
		{strings.Repeat("a", maxReason+1), strings.Repeat("a", maxReason) + "…"},
		// a two-byte character across the limit is not cut in half
		{strings.Repeat("a", maxReason-1) + "é", strings.Repeat("a", maxReason-1) + "…"},
		{"bad \xff byte", "bad \uFFFD byte"},
	} {
		s := New()
		s.Down(c.in)
		got := s.Status().Reason
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("reason of %d bytes kept as %d bytes (%q…)", len(c.in), len(got), got[:min(len(got), 10)])
		}
	}
}

func TestUpCostsNothingWhileUp(t *testing.T) {
	s := New()
	s.Up()
	if n := testing.AllocsPerRun(1000, s.Up); n != 0 {
		t.Errorf("Up allocates %v times while up", n)
	}
}

func TestStateIsSafeForConcurrentUse(t *testing.T) {
	s := New()
	h := Healthz(s, nil)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				if (i+j)%2 == 0 {
					s.Up()
				} else {
					s.Down("x")
				}
				get(t, h, http.MethodGet)
			}
		}()
	}
	wg.Wait()
}
