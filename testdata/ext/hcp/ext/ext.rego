# A runtime's own layer (SPEC §4.2) for the tests, in its own bundle with
# root hcp/ext. Its rules fire only for inputs that carry the runtime field,
# which the decision library ignores: input.runtime.deny and
# input.runtime.confirm list the reasons to deny or to ask.
package hcp.ext

# deny holds the reasons to deny the call.
deny contains reason if some reason in input.runtime.deny

# confirm holds the reasons to ask before the call runs.
confirm contains reason if some reason in input.runtime.confirm
