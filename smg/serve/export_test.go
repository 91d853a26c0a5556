package serve

import "github.com/smg-memory/smg/smg"

// LogOf is the log a PostgreSQL store keeps a memory in.
func LogOf(p *Postgres, tenant, id string) smg.Log {
	return &pgLog{pool: p.pool, tenant: tenant, id: id}
}
