package serve

import "github.com/smg-memory/smg/smg"

// LogOf is the log a PostgreSQL store keeps a memory in.
func LogOf(p *Postgres, tenant, id string) smg.Log {
	return &pgLog{pool: p.pool, tenant: tenant, id: id}
}

// CacheGuardOf is the guard through which a PostgreSQL store's memory puts
// its index cache in place.
func CacheGuardOf(p *Postgres, tenant, id string) func(put func() error) error {
	return p.cacheGuard(tenant, id)
}
