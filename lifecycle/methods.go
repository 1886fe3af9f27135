package lifecycle

// Answerer is who answers a method: the reader at once, or the worker
// through the CAD base.
type Answerer uint8

const (
	// ByReader: the protocol the bridge speaks itself, answered by the
	// reader without waiting (a listen stays open there, among the
	// client's requests in progress).
	ByReader Answerer = iota + 1
	// ByWorker: a job for the one ordered worker, which asks the base.
	ByWorker
)

// Method is one entry of the method table: the one place that says which
// methods exist in which era, who answers them, and how their params are
// read (ReadRequest runs read once, when the message is decoded).
type Method struct {
	Name   string
	Legacy bool // exists in the handshake era
	Modern bool // exists in 2026-07-28
	By     Answerer
	// NoEraCheck: a 2026-07-28 request for it is answered whatever its
	// _meta says (server/discover is how a client learns what to say).
	NoEraCheck bool
	// Notification: sent without an id, answered by nobody.
	Notification bool
	// members are the params members it may carry, spelled exactly: a
	// member given twice, or spelled like one of these in another case, is
	// refused (the forwarding rule: what the base reads is what was
	// checked). nil: no such rule.
	members []string
	exact   [][]byte // members, as bytes for the scan
	read    func(r *Request, params []byte, p paramMembers)
}

// In reports whether the method exists in era.
func (m *Method) In(era Era) bool {
	if m == nil {
		return false
	}
	if era == Modern {
		return m.Modern
	}
	return m.Legacy
}

// The method names the bridge knows.
const (
	MethodInitialize  = "initialize"
	MethodPing        = "ping"
	MethodDiscover    = "server/discover"
	MethodListen      = "subscriptions/listen"
	MethodToolsList   = "tools/list"
	MethodToolsCall   = "tools/call"
	MethodCancelled   = "notifications/cancelled"
	MethodInitialized = "notifications/initialized"
)

// methods is the table. Anything not in it is -32601 (a request) or
// ignored (a notification); so is an entry in the era it does not exist in.
var methods = map[string]*Method{
	MethodInitialize: {Name: MethodInitialize, Legacy: true, By: ByReader, read: readInitialize},
	MethodPing:       {Name: MethodPing, Legacy: true, By: ByReader},
	MethodDiscover:   {Name: MethodDiscover, Modern: true, By: ByReader, NoEraCheck: true},
	MethodListen:     {Name: MethodListen, Modern: true, By: ByReader, read: readListen},
	MethodToolsList: {Name: MethodToolsList, Legacy: true, Modern: true, By: ByWorker,
		members: []string{"cursor", "_meta"}, read: readToolsList},
	MethodToolsCall: {Name: MethodToolsCall, Legacy: true, Modern: true, By: ByWorker,
		members: []string{"name", "arguments", "_meta", "requestState", "inputResponses"}, read: readToolsCall},
	MethodCancelled:   {Name: MethodCancelled, Legacy: true, Modern: true, Notification: true, read: readCancelled},
	MethodInitialized: {Name: MethodInitialized, Legacy: true, Notification: true},
}

func init() {
	for _, m := range methods {
		for _, k := range m.members {
			m.exact = append(m.exact, []byte(k))
		}
	}
}

// LookupMethod is the table's entry for name; nil when there is none.
func LookupMethod(name string) *Method { return methods[name] }

// Methods is every method of the table that exists in era, requests and
// notifications alike.
func Methods(era Era) []string {
	var names []string
	for name, m := range methods {
		if m.In(era) {
			names = append(names, name)
		}
	}
	return names
}
