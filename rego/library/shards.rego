# Tenant shards (docs/fleet.md): a sharded build's policy bundle holds the
# grants without a tenant, and says how many shards hold the rest
# (data.hcp_grants.base.shards); the bundle of shard K holds the grants of
# the tenants whose shard is K (data.hcp_grants.shards[K]), and says which
# it is and of how many (shard.index, shard.of). A sidecar loads the policy
# bundle and the shards of its cell's tenants.
package hcp.authz

# _sharded holds when the policy is a sharded build's.
_sharded if data.hcp_grants.base.shards

# _tenant_tables are the tables that hold the grants of the principal's
# tenant: its shard's in a sharded build, the base tables otherwise (and
# for a principal without a tenant, which no shard's grants name).
_tenant_tables := data.hcp_grants.shards[_shard_key] if {
	_sharded
	_tenant != ""
} else := data.hcp_grants.base

# _tenant_available holds when the grants of the principal's tenant are
# loaded here: always in an unsharded build and for a principal without a
# tenant; otherwise when its shard is loaded, from a build of as many
# shards. A missing shard must deny: the principal's own grants missing
# would let default grants hold for it, which can be wider.
_tenant_available if not _sharded

_tenant_available if _tenant == ""

_tenant_available if data.hcp_grants.shards[_shard_key].shard.of == data.hcp_grants.base.shards

# _shard_key is the key, under shards, of the shard of the principal's
# tenant: the shard of the first two bytes of the tenant's sha256, as the
# policy bundle's table shard_of gives it for each four hex digits
# (docs/fleet.md defines the function for routers).
_shard_key := data.hcp_grants.base.shard_of[substring(crypto.sha256(_tenant), 0, 4)] if {
	_sharded
	_tenant != ""
}
