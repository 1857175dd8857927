# Tenant shards (docs/fleet.md): a sharded build's policy bundle holds the
# grants without a tenant, and says how many shards hold the rest
# (data.hcp_grants.base.shards); the bundle of shard K holds the grants of
# the tenants whose shard is K (data.hcp_grants.shards[K]), and says which
# it is and of how many (shard.index, shard.of). A sidecar loads the policy
# bundle and the shards of its cell's tenants.
package hcp.authz

# _sharded holds when the policy is a sharded build's.
_sharded if _base.shards

# _tenant_tables are the tables that hold the grants of the principal's
# tenant: its shard's in a sharded build, the base tables otherwise (and
# for a principal without a tenant, which no shard's grants name).
_tenant_tables := data.hcp_grants.shards[_shard_key] if {
	_sharded
	_tenant != ""
} else := _base

# _tenant_available holds when the grants of the principal's tenant are
# loaded here: always in an unsharded build and for a principal without a
# tenant; otherwise when its shard is loaded, from a build of as many
# shards. A missing shard must deny: the principal's own grants missing
# would let default grants hold for it, which can be wider.
_tenant_available if not _sharded

_tenant_available if _tenant == ""

_tenant_available if data.hcp_grants.shards[_shard_key].shard.of == _base.shards

# _shard_key is the key, under shards, of the shard of the principal's
# tenant: the first 32 bits of the tenant's sha256, a number, modulo the
# number of shards, as docs/fleet.md defines it for routers.
_shard_key := format_int(_hash32(crypto.sha256(_tenant)) % _base.shards, 10) if {
	_sharded
	_tenant != ""
}

# _hash32 is the number the first eight hex digits of a sha256 spell.
_hash32(hex) := (_hex16(substring(hex, 0, 4)) * 65536) + _hex16(substring(hex, 4, 4))

# _hex16 is the number four hex digits spell.
_hex16(digits) := (((((_hex_digit[substring(digits, 0, 1)] * 16) + _hex_digit[substring(digits, 1, 1)]) * 16) + _hex_digit[substring(digits, 2, 1)]) * 16) + _hex_digit[substring(digits, 3, 1)]

_hex_digit := {
	"0": 0, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7,
	"8": 8, "9": 9, "a": 10, "b": 11, "c": 12, "d": 13, "e": 14, "f": 15,
}
