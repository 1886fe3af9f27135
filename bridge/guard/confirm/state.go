package confirm

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"
)

// Why a requestState is refused. Each means the question is asked again or
// the call is refused; never that it runs.
var (
	ErrForged   = errors.New("requestState was not issued by this mcp-bridge process (or was altered)")
	ErrMismatch = errors.New("requestState was issued for another tool or other arguments")
	ErrExpired  = errors.New("the confirmation expired before the answer came back")
	ErrReplayed = errors.New("requestState was already used: each confirmation allows one call")
)

// Signer issues and redeems requestState tokens: HMAC-SHA256 under a key
// made at random when the process starts, bound to the tool name and the
// canonical arguments, valid for a limited time and only once. The token is
// signed, not encrypted: it holds nothing secret.
type Signer struct {
	key []byte
	ttl time.Duration
	// Now is the clock (time.Now); tests may move it.
	Now func() time.Time

	mu   sync.Mutex
	used map[string]time.Time // nonce → expiry, for replay refusal
}

// NewSigner makes a signer with a fresh random key. ttl bounds how long the
// user has to answer.
func NewSigner(ttl time.Duration) *Signer {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		panic(err) // crypto/rand never fails on supported systems
	}
	return &Signer{key: key, ttl: ttl, Now: time.Now, used: map[string]time.Time{}}
}

type state struct {
	V     int    `json:"v"`
	Tool  string `json:"tool"`
	Args  string `json:"args"` // base64url SHA-256 of the canonical arguments
	Exp   int64  `json:"exp"`  // unix milliseconds
	Nonce string `json:"nonce"`
}

func argsDigest(args []byte) string {
	sum := sha256.Sum256(canonical(args))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func (s *Signer) mac(payload string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Issue returns a requestState for one confirmation of tool with args.
func (s *Signer) Issue(tool string, args []byte) string {
	nonce := make([]byte, 16)
	_, _ = rand.Read(nonce)
	st := state{V: 1, Tool: tool, Args: argsDigest(args), Exp: s.Now().Add(s.ttl).UnixMilli(), Nonce: base64.RawURLEncoding.EncodeToString(nonce)}
	b, _ := json.Marshal(st)
	payload := base64.RawURLEncoding.EncodeToString(b)
	return payload + "." + s.mac(payload)
}

// Redeem checks a requestState sent back with a call of tool with args.
// A valid token is spent: a second Redeem of it fails with ErrReplayed.
func (s *Signer) Redeem(token, tool string, args []byte) error {
	payload, sig, ok := strings.Cut(token, ".")
	if !ok || !hmac.Equal([]byte(sig), []byte(s.mac(payload))) {
		return ErrForged
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	var st state
	if err != nil || json.Unmarshal(raw, &st) != nil || st.V != 1 {
		return ErrForged
	}
	if st.Tool != tool || st.Args != argsDigest(args) {
		return ErrMismatch
	}
	now := s.Now()
	exp := time.UnixMilli(st.Exp)
	if !now.Before(exp) {
		return ErrExpired
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for n, e := range s.used { // forget spent tokens that expired anyway
		if !now.Before(e) {
			delete(s.used, n)
		}
	}
	if _, spent := s.used[st.Nonce]; spent {
		return ErrReplayed
	}
	s.used[st.Nonce] = exp
	return nil
}
