# Exact allow rules (SPEC §3.4)
# A rule is an object whose only members are pack_id and verb_key
# (strings), args (an object) and limits (an object of {min, max}
# objects). It matches a command call when pack_id and verb_key are equal,
# every pinned argument is in the call with an equal value, every argument
# of the call is pinned or limited, and every limited argument the call
# carries is a number within its bounds. Anything else matches nothing.
package hcp.authz

_rule_fields := {"pack_id", "verb_key", "args", "limits"}

_allow_rule_matches(rule) if {
	count(object.keys(rule) - _rule_fields) == 0
	rule.pack_id == input.pack_id
	is_string(rule.verb_key)
	rule.verb_key == input.verb_key
	pinned := object.get(rule, "args", {})
	is_object(pinned)
	limits := object.get(rule, "limits", {})
	is_object(limits)
	args := object.get(input, "args", {})
	every name, value in pinned {
		args[name] == value
	}
	every name, _ in args {
		_named_by(name, pinned, limits)
	}
	every name, limit in limits {
		_limit_holds(args, name, limit)
	}
}

_named_by(name, pinned, _) if name in object.keys(pinned)

_named_by(name, _, limits) if name in object.keys(limits)

# _limit_holds checks the shape of one limit, and the bound when the call
# carries the argument.
_limit_holds(args, name, limit) if {
	_limit_shape(limit)
	not name in object.keys(args)
}

_limit_holds(args, name, limit) if {
	_limit_shape(limit)
	x := _number(args[name])
	not x < _number(object.get(limit, "min", x))
	not x > _number(object.get(limit, "max", x))
}

_limit_shape(limit) if {
	is_object(limit)
	count(object.keys(limit) - {"min", "max"}) == 0
	every bound in limit {
		_number(bound)
	}
}

# _number reads a JSON number, or a string of the form -?[0-9]+(\.[0-9]+)?
# as the exact number it writes: read as JSON once its leading zeros are
# gone ("007" is 7), since to_number's float64 fails from 1e309 on.
_number(x) := x if is_number(x)

_number(x) := json.unmarshal(regex.replace(x, `^(-?)0+([0-9])`, "$1$2")) if {
	is_string(x)
	regex.match(`^-?[0-9]+(\.[0-9]+)?$`, x)
}
