package reference

// allowRule is one of the user's exact allow rules (docs/decisions.md
// item 8), read from access.allow.
type allowRule struct {
	packID  string
	verbKey string
	args    map[string]any   // pinned arguments and their values
	limits  map[string]limit // bounded arguments
}

// limit bounds an argument, both ends inclusive; a nil end is open.
type limit struct {
	min, max *decimal
}

// readAllowRule reads an allow rule. It reports false for anything not of
// the rule's exact shape: an object whose only members are pack_id and
// verb_key (required strings), args (an object) and limits (an object of
// objects whose only members are min and max, each a number). Such a rule
// matches nothing.
func readAllowRule(v any) (allowRule, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return allowRule{}, false
	}
	var r allowRule
	var hasPack, hasVerb bool
	for name, member := range obj {
		switch name {
		case "pack_id":
			r.packID, hasPack = member.(string)
			ok = hasPack
		case "verb_key":
			r.verbKey, hasVerb = member.(string)
			ok = hasVerb
		case "args":
			r.args, ok = member.(map[string]any)
		case "limits":
			r.limits, ok = readLimits(member)
		default:
			ok = false
		}
		if !ok {
			return allowRule{}, false
		}
	}
	return r, hasPack && hasVerb
}

// readLimits reads the limits member of an allow rule.
func readLimits(v any) (map[string]limit, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	limits := make(map[string]limit, len(obj))
	for name, member := range obj {
		l, ok := readLimit(member)
		if !ok {
			return nil, false
		}
		limits[name] = l
	}
	return limits, true
}

// readLimit reads one argument's {min, max}.
func readLimit(v any) (limit, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return limit{}, false
	}
	var l limit
	for name, member := range obj {
		n, ok := numberOf(member)
		if !ok {
			return limit{}, false
		}
		switch name {
		case "min":
			l.min = &n
		case "max":
			l.max = &n
		default:
			return limit{}, false
		}
	}
	return l, true
}

// matches reports whether the rule matches a command call: same pack and
// verb key; every pinned argument present with an equal JSON value; every
// argument of the call pinned or bounded; every bounded argument that the
// call carries a number within its limit.
func (r allowRule) matches(c *call) bool {
	if r.packID != c.packID || r.verbKey != c.key {
		return false
	}
	for name, want := range r.args {
		got, ok := c.args[name]
		if !ok || !jsonEqual(got, want) {
			return false
		}
	}
	for name, value := range c.args {
		_, pinned := r.args[name]
		l, bounded := r.limits[name]
		if !pinned && !bounded {
			return false
		}
		if bounded && !l.holds(value) {
			return false
		}
	}
	return true
}

// holds reports whether v is a number within the limit.
func (l limit) holds(v any) bool {
	n, ok := numberOf(v)
	if !ok {
		return false
	}
	return (l.min == nil || l.min.cmp(n) <= 0) && (l.max == nil || n.cmp(*l.max) <= 0)
}
