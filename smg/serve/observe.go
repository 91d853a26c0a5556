package serve

import (
	"cmp"
	"context"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/time/rate"
)

// Options tune a Server.
type Options struct {
	// Log, when set, gets a line for each request: its operation, status,
	// time and tenant.
	Log *slog.Logger
	// Rate is how many requests a second a caller (a key, or without keys
	// an address) may make on average, Burst how many at once; 0: no
	// limit.
	Rate  float64
	Burst int
	// Timeout bounds each request's work (0: DefaultTimeout): one that
	// takes longer is answered 503, safe to retry (a write that did not
	// finish left the memory as it was).
	Timeout time.Duration
	// MaxTurn is the most bytes a turn's text may take (0:
	// DefaultMaxTurn); a request with a larger one is refused, 413.
	MaxTurn int
}

// DefaultTimeout is a request's time unless Options.Timeout says.
const DefaultTimeout = 60 * time.Second

// metrics are the service's Prometheus metrics, served at /metrics.
type metrics struct {
	reg      *prometheus.Registry
	duration *prometheus.HistogramVec
}

func newMetrics(store Store) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "smg_http_request_duration_seconds",
		Help:    "Time to answer a request, by operation and status.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"operation", "status"})
	m.reg.MustRegister(m.duration,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "smg_memories_open", Help: "Memories held open, with their indexes."},
			func() float64 { return float64(store.Stats().Open) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "smg_memory_opens_cached_total", Help: "Requests that found their memory open."},
			func() float64 { return float64(store.Stats().Hits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "smg_memory_opens_read_total", Help: "Requests that read their memory from the store (its file, or the database), with its index."},
			func() float64 { return float64(store.Stats().Misses) }),
	)
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// observe times each operation for the metrics and the log.
func (s *Server) observe(ctx huma.Context, next func(huma.Context)) {
	start := time.Now()
	rec := &record{}
	limited, cancel := context.WithTimeout(ctx.Context(), cmp.Or(s.opts.Timeout, DefaultTimeout))
	defer cancel()
	next(huma.WithValue(huma.WithContext(ctx, limited), recordKey{}, rec))
	took := time.Since(start)
	op := ctx.Operation().OperationID
	status := ctx.Status()
	if status == 0 {
		status = http.StatusOK
	}
	s.metrics.duration.WithLabelValues(op, strconv.Itoa(status)).Observe(took.Seconds())
	s.log(ctx.Context(), ctx.Method(), ctx.URL().Path, op, status, took, rec)
}

// log writes the line of a request: what it was, how it ended, whose it
// was, and the error behind a failure of the server.
func (s *Server) log(ctx context.Context, method, path, op string, status int, took time.Duration, rec *record) {
	if s.opts.Log == nil {
		return
	}
	level := slog.LevelInfo
	attrs := []slog.Attr{slog.String("method", method), slog.String("path", path), slog.String("operation", op),
		slog.Int("status", status), slog.Duration("took", took), slog.String("tenant", rec.caller.tenant)}
	if rec.cause != nil {
		level = slog.LevelError
		attrs = append(attrs, slog.String("error", rec.cause.Error()))
	}
	s.opts.Log.LogAttrs(ctx, level, "request", attrs...)
}

// limiter keeps a token bucket per caller.
type limiter struct {
	rate  rate.Limit
	burst int
	mu    sync.Mutex
	by    map[string]*rate.Limiter
}

// maxCallers bounds the buckets kept: past it they start again full.
const maxCallers = 10000

func (l *limiter) allow(who string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.by[who]
	if b == nil {
		if len(l.by) >= maxCallers {
			clear(l.by)
		}
		b = rate.NewLimiter(l.rate, l.burst)
		l.by[who] = b
	}
	return b.Allow()
}

// callerName is who a rate is counted for: the key, or the address of a
// request without one.
func callerName(c caller, remote string) string {
	if c.key != nil {
		return "key:" + c.key.ID
	}
	if host, _, err := net.SplitHostPort(remote); err == nil {
		return "addr:" + host
	}
	return "addr:" + remote
}

// throttle refuses a caller past its rate, with 429 and Retry-After. It
// runs after authorize: a caller is its key, or its address without keys.
func (s *Server) throttle(ctx huma.Context, next func(huma.Context)) {
	if s.limit == nil {
		next(ctx)
		return
	}
	if !s.limit.allow(callerName(callerOf(ctx.Context()), ctx.RemoteAddr())) {
		ctx.SetHeader("Retry-After", "1")
		_ = huma.WriteErr(s.api, ctx, http.StatusTooManyRequests, "too many requests: "+strconv.FormatFloat(float64(s.limit.rate), 'g', -1, 64)+" a second on average are allowed")
		return
	}
	next(ctx)
}
