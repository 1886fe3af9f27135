package otlp

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// TestLogHidesEveryCredentialInTheURL: a collector URL carries secrets in
// its user name alone (https://API-KEY@collector, as some vendors take
// it) and in its query (?api_key=…) as well as in a password: none of
// them reaches the log, while the host that failed still does.
func TestLogHidesEveryCredentialInTheURL(t *testing.T) {
	col := &collector{statuses: []int{400, 400, 400}}
	srv := httptest.NewServer(col)
	defer srv.Close()
	for _, u := range []string{
		strings.Replace(srv.URL, "http://", "http://k3yname@", 1) + "/v1/traces",
		srv.URL + "/v1/traces?api_key=k3yname",
		srv.URL + "/v1/traces#k3yname",
	} {
		var logBuf bytes.Buffer
		cl := &Client{URL: u, Signal: "traces", Log: zerolog.New(&logBuf)}
		_ = cl.Send(context.Background(), []byte("x"))
		host := strings.TrimPrefix(srv.URL, "http://")
		if !strings.Contains(logBuf.String(), host) {
			t.Errorf("the log does not name the collector %s:\n%s", host, logBuf.String())
		}
		if strings.Contains(logBuf.String(), "k3yname") {
			t.Errorf("%s: a secret reached the log:\n%s", u, logBuf.String())
		}
	}
}
