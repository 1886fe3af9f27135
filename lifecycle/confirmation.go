package lifecycle

// InputKey is the key of the bridge's one input request in a 2026-07-28
// input_required result (the confirmation question), and of the client's
// answer to it in the tools/call it sends again (params.inputResponses):
// ReadRequest reads that answer into Request.Input.
const InputKey = "confirm"
