package main

import (
	"io"
	"net/http"
	"strconv"
)

func init() { serveHTTP = listenAndServe }

// listenAndServe answers each POST with the base's answer to its body, one at
// a time as the base serves them (as stdio does); anything else gets 200
// (the bench waits on GET /healthz).
func listenAndServe(addr, base string) error {
	one := make(chan struct{}, 1)
	return http.ListenAndServe(addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		one <- struct{}{}
		ans, err := call(base, body)
		<-one
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(ans)))
		w.Write(ans)
	}))
}
