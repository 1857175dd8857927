# Exact allow rules (docs/decisions.md, "The chain": the confirm gate)
# A rule is an object whose only members are pack_id and verb_key
# (strings), args (an object) and limits (an object of {min, max}
# objects). It matches a command call when pack_id and verb_key are equal,
# every pinned argument is in the call with an equal value, every argument
# of the call is pinned or limited, and every limited argument the call
# carries is a number within its bounds. Anything else matches nothing.
#
# Numbers from the input are never compared with OPA's own number
# comparison, which rounds some decimals to float64 ("12.500000000000000010"
# equals 12.50 there) and costs seconds, or panics, on a megabyte of digits.
# They are read as exact decimals of at most 64 characters (_decimal_text)
# and compared as such.
package hcp.authz

_rule_fields := {"pack_id", "verb_key", "args", "limits"}

# _allow_rule_matches holds when allow rule i of the input matches the
# call. Its functions take the rule's index and argument names, never a
# value from the input: OPA caches a function's results by its arguments,
# compared as OPA compares numbers, so 12.50 would be served what
# 12.500000000000000010 got.
_allow_rule_matches(i) if {
	rule := input.access.allow[i]
	count(object.keys(rule) - _rule_fields) == 0
	rule.pack_id == input.pack_id
	is_string(rule.verb_key)
	rule.verb_key == input.verb_key
	pinned := object.get(rule, "args", {})
	is_object(pinned)
	limits := object.get(rule, "limits", {})
	is_object(limits)
	every name, _ in pinned {
		_pin_holds(i, name)
	}
	every name, _ in _args {
		_named_by(i, name)
	}
	every name, _ in limits {
		_limit_holds(i, name)
	}
}

# _named_by holds when rule i pins or limits argument name: a lookup, so
# that a call of many arguments against many rules costs their sum.
_named_by(i, name) if _ = input.access.allow[i].args[name]

_named_by(i, name) if _ = input.access.allow[i].limits[name]

# _pin_holds holds when the call carries pinned argument name of rule i
# with an equal value: JSON texts (as json.marshal writes them, keys
# sorted) that are the same, or hold the same tokens but that numbers of
# at most 64 characters are equal by value (_number). The tokens are
# strings, numbers, and the runs of anything else between them, so a
# string never equals a number. The call's side is written and split once
# a decision (_arg_json, _arg_tokens, _arg_token_numbers), not once a
# rule: a rule costs what it holds, however long the argument.
_pin_holds(i, name) if json.marshal(input.access.allow[i].args[name]) == _arg_json[name]

_pin_holds(i, name) if {
	want := json.marshal(input.access.allow[i].args[name])
	want != _arg_json[name]
	tokens := regex.find_n(_json_token, want, -1)
	got := _arg_tokens[name]
	count(tokens) == count(got)
	every k, t in tokens {
		_same_token(t, name, k)
	}
}

_arg_json := {name: json.marshal(v) | some name, v in _args}

_arg_tokens := {name: regex.find_n(_json_token, text, -1) | some name, text in _arg_json}

_arg_names := object.keys(_args)

# _arg_token_numbers holds the value of each token of the call's arguments
# that is a number of at most 64 characters, read once a decision.
_arg_token_numbers := {name: {k: d | some k, t in tokens; d := _number(t)} | some name, tokens in _arg_tokens}

_json_token := `"(?:[^"\\]|\\.)*"|-?[0-9][-+.eE0-9]*|[^-"0-9]+`

# _same_token holds when token t of a rule's pin is token k of the call's
# argument name: the same text, or numbers of equal value.
_same_token(t, name, k) if t == _arg_tokens[name][k]

_same_token(t, name, k) if _number(t) == _arg_token_numbers[name][k]

# _limit_holds checks the shape of limit name of rule i, and the bound when
# the call carries the argument.
_limit_holds(i, name) if {
	_bounds(i, name)
	not name in _arg_names
}

_limit_holds(i, name) if {
	bounds := _bounds(i, name)
	x := _arg_numbers[name]
	_at_most(object.get(bounds, "min", x), x)
	_at_most(x, object.get(bounds, "max", x))
}

# _bounds is limit name of rule i with its bounds as decimals, when it is
# an object of min and max that are numbers a limit can judge.
_bounds(i, name) := bounds if {
	limit := input.access.allow[i].limits[name]
	is_object(limit)
	count(object.keys(limit) - {"min", "max"}) == 0
	bounds := object.union(
		{k: d | some k, v in limit; is_string(v); d := _numeric_string(v)},
		{k: d | some k, v in limit; is_number(v); d := _number(json.marshal(v))},
	)
	count(bounds) == count(limit)
}

# _arg_numbers maps each argument that a limit can judge to its decimal.
_arg_numbers := object.union(
	{name: d | some name, v in _args; is_string(v); d := _numeric_string(v)},
	{name: d | some name, v in _args; is_number(v); d := _number(_arg_texts[name])},
)

# _numeric_string reads a string of the form -?[0-9]+(\.[0-9]+)? of at most
# 64 characters, its length checked before anything else reads it.
_numeric_string(s) := _decimal_text(s) if {
	count(s) <= 64
	regex.match(`^-?[0-9]+(\.[0-9]+)?$`, s)
}

# _number reads the JSON text of a number of at most 64 characters.
_number(text) := _decimal_text(text) if count(text) <= 64

# _decimal_text is the exact value of a number's text as [sign, exponent,
# digits]: sign -1, 0 or 1, and value = sign × 0.digits × 10^exponent, the
# digits without leading or trailing zeros. Zero is [0, 0, ""]. The
# exponent is an integer, which OPA compares and adds exactly however
# large; the digits compare as text once the exponents are equal.
_decimal_text(text) := _decimal_of(sign, trim_right(significant, "0"), exponent) if {
	[[_, sign, whole, fraction, exp_sign, exp_digits]] := regex.find_all_string_submatch_n(
		`^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([-+]?)0*([0-9]+))?$`,
		text, 1,
	)
	digits := concat("", [whole, fraction])
	significant := trim_left(digits, "0")
	exponent := ((count(whole) - count(digits)) + count(significant)) + _exponent(exp_sign, exp_digits)
}

_decimal_of(_, "", _) := [0, 0, ""]

_decimal_of("-", digits, exponent) := [-1, exponent, digits] if digits != ""

_decimal_of("", digits, exponent) := [1, exponent, digits] if digits != ""

_exponent(_, "") := 0

_exponent("-", digits) := 0 - to_number(digits) if digits != ""

_exponent(sign, digits) := to_number(digits) if {
	sign != "-"
	digits != ""
}

# _at_most holds when decimal a is at most decimal b.
_at_most([s, _, _], [t, _, _]) if s < t

_at_most([0, _, _], [0, _, _])

_at_most([1, e, m], [1, f, n]) if [e, m] <= [f, n]

_at_most([-1, e, m], [-1, f, n]) if [f, n] <= [e, m]
