# A runtime's own layer whose rules read data of its own (docs/bundles.md):
# the accounts it has frozen, at the top-level root runtime_data, beside
# hcp and not under it. A sidecar replacing a revision of the hcp bundle
# reads data.hcp once for each rule it checks; data under hcp/ext would be
# read, and copied, each time.
package hcp.ext

# deny holds why the caller's account is frozen, when it is.
deny contains reason if some reason in data.runtime_data.frozen[input.principal.id]
