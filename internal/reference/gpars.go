package reference

// The JSON-RPC error codes of GPARS (seed 001_*).
const (
	gparsAuthorizationDenied = -32001
	gparsServerUnavailable   = -32002
)

// GPARSError returns the GPARS error object of
// docs/decisions.md#the-decision-document for a decision, or
// nil when none is defined (allowed, confirm_required). Its code is a Go
// int. It never carries the policy, the grants, the missing capability or
// what would be permitted.
func GPARSError(decision map[string]any) map[string]any {
	code, _ := decision["code"].(string)
	if _, denied := conformance[code]; !denied || code == confirmRequired {
		return nil
	}
	switch code {
	case packUnavailable:
		packID, _ := decision["pack_id"].(string)
		return gparsError(gparsServerUnavailable, "MCP server '"+packID+"' is not reachable.", "SERVER_UNAVAILABLE")
	case tenantUnavailable:
		// Names neither the tenant nor its shard: the agent learns that
		// this sidecar cannot judge the call, not how the fleet is cut.
		return gparsError(gparsServerUnavailable, "Authorization for this request is not available here.", "SERVER_UNAVAILABLE")
	case invalidInput:
		return gparsError(gparsAuthorizationDenied, "The request is not permitted for this agent.", "AUTHORIZATION_DENIED")
	}
	key, ok := decision["verb_key"].(string)
	if !ok {
		key, _ = decision["stimulus"].(string)
	}
	return gparsError(gparsAuthorizationDenied, key+" is not permitted for this agent.", "AUTHORIZATION_DENIED")
}

func gparsError(code int, message, gparsCode string) map[string]any {
	return map[string]any{
		"code":    code,
		"message": message,
		"data":    map[string]any{"gpars_code": gparsCode},
	}
}
