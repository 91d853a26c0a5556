package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/smg/serve"
)

// serveRow is what serve measures for one number of users.
type serveRow struct {
	Users     int     `json:"users"`
	Servers   int     `json:"servers"`
	Store     string  `json:"store"`
	Requests  int     `json:"requests"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"requestsPerSecond"`
	Append    latency `json:"appendMs"`
	Context   latency `json:"contextMs"`
	Failed    int     `json:"failed"`
	// Failures are the first failed requests' errors, up to maxFailures.
	Failures   []string `json:"failures,omitempty"`
	PeakRSSMB  float64  `json:"peakRssMB"`
	Memories   int      `json:"memories"`
	TurnsAdded int      `json:"turnsAdded"`
	// Killed is how far into the run a server was killed (SIGKILL), in
	// seconds; Retried the requests sent again to another server because
	// theirs was killed under them; Lost the acknowledged turns no server
	// holds after the run.
	Killed  float64 `json:"killedAfterSeconds,omitempty"`
	Retried int     `json:"retried"`
	Lost    int     `json:"lost"`
}

// maxFailures is how many failed requests' errors a row keeps.
const maxFailures = 5

// failed counts a request that failed, and keeps its error if it is one
// of the first.
func (r *serveRow) failed(err error) {
	r.Failed++
	if len(r.Failures) < maxFailures {
		r.Failures = append(r.Failures, err.Error())
	}
}

// serveConfig is what a serve run does.
type serveConfig struct {
	users, turns, every int
	pace                time.Duration
	// store, when set, is a PostgreSQL server's URL: a database is made
	// on it for the run, and servers smg serve processes (the binary
	// smg) on it; kill, when above 0, kills the second of them that long
	// into the run. Without it, one server runs in this process on a
	// directory.
	store   string
	servers int
	kill    time.Duration
	smg     string
	// noVectors runs the servers without vectors (smg serve
	// --no-vectors); by default they embed every turn and question with
	// the built-in encoder, as smg serve does.
	noVectors bool
}

func serveBenchCommand(stdout io.Writer) *cobra.Command {
	var data string
	var users []int
	var procs int
	var cfg serveConfig
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "serve --data FILE [--users 10,100] [--turns 40] [--every 4] [--store postgres://… --servers 2 --kill 10s]",
		Short: "Measure smg serve under simulated users: appends and contexts over HTTP",
		Long: `Serve starts smg serve's HTTP service on a directory store of its own, on
the loopback interface, and has each of N simulated users, at once, append
the turns of a conversation of FILE one at a time (a live chat) to a memory
of their own and ask a context every --every turns (each user after a turn
of its own in every --every, so that they do not all ask at once), with
the next turn's
text as the question, each request as soon as the one before it is
answered or, with --pace, one every --pace (a user who reads and types;
each user starts at a random point of the first --pace). It reports the
requests a second, the p50 and p99 of
the appends (each durable before it is answered) and of the contexts, the
requests that failed (any answer but 2xx), and the process's peak memory
(the server and the simulated users together). The servers embed every
turn and question with the built-in encoder, as smg serve does, unless
--no-vectors.

With --store URL (a PostgreSQL server; a database is made on it for each
run and dropped after), it starts --servers smg serve processes (the
binary of --smg, or smg beside smg-bench, or on the PATH) on that
database, and gives user i to server i mod --servers, as a load balancer
would. With --kill D, the second server is killed (SIGKILL) D into the
run: its users go on on the others, sending again a request their server
did not answer (appends are idempotent by message id). After the run,
every turn a server acknowledged is looked for through a server that
lives: those missing are reported lost. The peak memory is then the
largest of the servers'.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			runtime.GOMAXPROCS(procs)
			res, err := importer.ReadFile(data, importer.Options{})
			if err != nil {
				return err
			}
			var convs [][]smg.Turn
			for _, c := range res.Conversations {
				if len(c.Turns) > 1 {
					convs = append(convs, c.Turns)
				}
			}
			if len(convs) == 0 {
				return fmt.Errorf("%s: no conversation of two turns or more", data)
			}
			if cfg.store != "" && cfg.smg == "" {
				if cfg.smg, err = smgBinary(); err != nil {
					return err
				}
			}
			var rows []serveRow
			for _, n := range users {
				c := cfg
				c.users = n
				r, err := measureServe(convs, c)
				if err != nil {
					return err
				}
				rows = append(rows, r)
			}
			if asJSON {
				return writeJSON(stdout, rows)
			}
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "users\tservers\trequests\tper s\tappend p50 ms\tappend p99 ms\tcontext p50 ms\tcontext p99 ms\tfailed\tretried\tlost\tpeak RSS MB\t")
			for _, r := range rows {
				fmt.Fprintf(tw, "%d\t%d\t%d\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%d\t%d\t%.0f\t\n", r.Users, r.Servers, r.Requests, r.PerSecond, r.Append.P50, r.Append.P99, r.Context.P50, r.Context.P99, r.Failed, r.Retried, r.Lost, r.PeakRSSMB)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, r := range rows {
				for _, f := range r.Failures {
					fmt.Fprintf(stdout, "%d users: failed: %s\n", r.Users, f)
				}
			}
			paced := "each request as soon as the one before is answered"
			if cfg.pace > 0 {
				paced = "a request every " + cfg.pace.String() + " a user"
			}
			vectors := "vectors by the built-in encoder"
			if cfg.noVectors {
				vectors = "no vectors"
			}
			where := "one server in this process on a directory"
			if cfg.store != "" {
				where = fmt.Sprintf("%d smg serve processes on one PostgreSQL database", cfg.servers)
				if cfg.kill > 0 {
					where += ", the second killed (SIGKILL) " + cfg.kill.String() + " into each run"
				}
			}
			_, err = fmt.Fprintf(stdout, "GOMAXPROCS %d; %d turns a user, a context every %d; %s; %s; %s\n", procs, cfg.turns, cfg.every, paced, where, vectors)
			return err
		},
	}
	cmd.Flags().StringVar(&data, "data", "", "the conversations the users' turns come from (any input smg ingest reads)")
	cmd.Flags().IntSliceVar(&users, "users", []int{10, 100}, "the numbers of users, one run each")
	cmd.Flags().IntVar(&cfg.turns, "turns", 40, "the turns each user appends")
	cmd.Flags().IntVar(&cfg.every, "every", 4, "a context every this many turns")
	cmd.Flags().IntVar(&procs, "procs", 2, "GOMAXPROCS (the target is 100 users on 2 cores)")
	cmd.Flags().DurationVar(&cfg.pace, "pace", 0, "a user's time between requests (0: none, the server saturated)")
	cmd.Flags().StringVar(&cfg.store, "store", "", "a PostgreSQL server (`URL`) to run smg serve processes on, a database of their own each run")
	cmd.Flags().IntVar(&cfg.servers, "servers", 2, "with --store, the smg serve processes")
	cmd.Flags().DurationVar(&cfg.kill, "kill", 0, "with --store, kill the second server this long into each run (0: never)")
	cmd.Flags().StringVar(&cfg.smg, "smg", "", "with --store, the smg binary (default: smg beside smg-bench, or on the PATH)")
	cmd.Flags().BoolVar(&cfg.noVectors, "no-vectors", false, "servers without vectors (by default they embed with the built-in encoder, as smg serve does)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	_ = cmd.MarkFlagRequired("data")
	return cmd
}

// smgBinary is smg beside this program, or on the PATH.
func smgBinary() (string, error) {
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), "smg"); fileExists(p) {
			return p, nil
		}
	}
	return exec.LookPath("smg")
}

func fileExists(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}

// benchServers are the servers a run's users reach.
type benchServers struct {
	bases []string
	alive []atomic.Bool
	procs []*exec.Cmd // the smg serve processes, when not in this process
	peak  float64     // the largest peak RSS of the processes, once ended
	stop  func()
}

// next is the first server from i on that lives.
func (s *benchServers) next(i int) int {
	for k := range len(s.bases) {
		if j := (i + k) % len(s.bases); s.alive[j].Load() {
			return j
		}
	}
	return i % len(s.bases)
}

// kill kills server i (SIGKILL); its users go on on the others.
func (s *benchServers) kill(i int) error {
	s.alive[i].Store(false)
	return s.procs[i].Process.Kill()
}

// inProcess starts one server in this process on a directory of its own.
func inProcess(users int, noVectors bool) (*benchServers, error) {
	// As smg serve does, before it listens.
	if _, err := smg.NewTokenizer(smg.CL100K); err != nil {
		return nil, err
	}
	if !noVectors {
		if _, err := smg.BuiltinEmbedder(); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "smg-bench-serve-")
	if err != nil {
		return nil, err
	}
	store, err := serve.NewDir(dir, max(users, serve.DefaultOpen), smg.FileOptions{Open: smg.OpenOptions{NoVectors: noVectors}})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		store.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	srv := &http.Server{Handler: serve.New(store, nil)}
	go srv.Serve(ln)
	s := &benchServers{bases: []string{"http://" + ln.Addr().String()}, alive: make([]atomic.Bool, 1)}
	s.alive[0].Store(true)
	s.stop = func() {
		srv.Shutdown(context.Background())
		store.Close()
		os.RemoveAll(dir)
	}
	return s, nil
}

// onPostgres makes a database on the PostgreSQL server of admin and
// starts cfg.servers smg serve processes on it.
func onPostgres(cfg serveConfig) (*benchServers, error) {
	ctx := context.Background()
	// The pool's settings (pool_max_conns, …) are the servers'.
	admin, err := url.Parse(cfg.store)
	if err != nil {
		return nil, err
	}
	q := admin.Query()
	for k := range q {
		if strings.HasPrefix(k, "pool_") {
			q.Del(k)
		}
	}
	admin.RawQuery = q.Encode()
	conn, err := pgx.Connect(ctx, admin.String())
	if err != nil {
		return nil, err
	}
	db := fmt.Sprintf("smg_bench_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	u, err := url.Parse(cfg.store)
	if err != nil {
		return nil, err
	}
	u.Path = "/" + db
	s := &benchServers{alive: make([]atomic.Bool, cfg.servers)}
	s.stop = func() {
		for i, p := range s.procs {
			if s.alive[i].Load() {
				p.Process.Signal(syscall.SIGTERM)
			}
			p.Wait()
			s.peak = max(s.peak, childPeakRSSMB(p.ProcessState))
		}
		conn.Exec(ctx, "DROP DATABASE "+db+" WITH (FORCE)")
		conn.Close(ctx)
	}
	for i := range cfg.servers {
		args := []string{"serve", "--store", u.String(), "--addr", "127.0.0.1:0", "--no-provider", "--rate", "0",
			"--open", fmt.Sprint(max(cfg.users, serve.DefaultOpen))}
		if cfg.noVectors {
			args = append(args, "--no-vectors")
		}
		p := exec.Command(cfg.smg, args...)
		p.Stderr = io.Discard // a line a request
		out, err := p.StdoutPipe()
		if err == nil {
			err = p.Start()
		}
		if err != nil {
			s.stop()
			return nil, err
		}
		s.procs = append(s.procs, p)
		line, err := bufio.NewReader(out).ReadString('\n')
		_, base, ok := strings.Cut(strings.TrimSpace(line), " on ")
		if err != nil || !ok {
			s.stop()
			return nil, fmt.Errorf("smg serve said %q: %v", line, err)
		}
		s.bases = append(s.bases, base)
		s.alive[i].Store(true)
	}
	return s, nil
}

// measureServe runs cfg.users users against new servers, each making a
// request every cfg.pace (0: one as soon as the one before is answered).
func measureServe(convs [][]smg.Turn, cfg serveConfig) (serveRow, error) {
	n := cfg.users
	r := serveRow{Users: n, Memories: n, Servers: 1, Store: "directory"}
	var srvs *benchServers
	var err error
	if cfg.store != "" {
		r.Servers, r.Store = cfg.servers, "postgres"
		srvs, err = onPostgres(cfg)
	} else {
		srvs, err = inProcess(n, cfg.noVectors)
	}
	if err != nil {
		return r, err
	}
	stopped := false
	defer func() {
		if !stopped {
			srvs.stop()
		}
	}()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: n}}
	var mu sync.Mutex
	// send sends a request of user home's to its server, or, when that was
	// killed under it, to the next that lives.
	send := func(home int, method, path string, body any) (time.Duration, []byte, error) {
		var js []byte
		if body != nil {
			var err error
			if js, err = json.Marshal(body); err != nil {
				return 0, nil, err
			}
		}
		for {
			at := srvs.next(home)
			req, err := http.NewRequest(method, srvs.bases[at]+path, bytes.NewReader(js))
			if err != nil {
				return 0, nil, err
			}
			if js != nil {
				req.Header.Set("Content-Type", "application/json")
			}
			start := time.Now()
			resp, err := client.Do(req)
			if err != nil && !srvs.alive[at].Load() {
				mu.Lock()
				r.Retried++
				mu.Unlock()
				continue
			}
			if err != nil {
				return 0, nil, err
			}
			answer, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			took := time.Since(start)
			if err != nil && !srvs.alive[at].Load() {
				continue
			}
			if err == nil && resp.StatusCode/100 != 2 {
				err = fmt.Errorf("%s: %s: %s", path, resp.Status, answer)
			}
			return took, answer, err
		}
	}
	for i := range n {
		if _, _, err := send(i, "POST", "/v1/memories", map[string]any{"id": fmt.Sprintf("user-%d", i)}); err != nil {
			return r, err
		}
	}
	var appends, contexts []time.Duration
	acked := make([][]string, n) // the ids of each user's acknowledged turns
	var wg sync.WaitGroup
	start := time.Now()
	if cfg.kill > 0 && len(srvs.procs) > 1 {
		killer := time.AfterFunc(cfg.kill, func() {
			if err := srvs.kill(1); err == nil {
				mu.Lock()
				r.Killed = time.Since(start).Seconds()
				mu.Unlock()
			}
		})
		defer killer.Stop()
	}
	for i := range n {
		wg.Go(func() {
			conv := convs[i%len(convs)]
			path := fmt.Sprintf("/v1/memories/user-%d", i)
			// The users start spread over the first pace, each then on
			// its own beat.
			next := start.Add(time.Duration(rand.Int64N(int64(max(cfg.pace, 1)))))
			wait := func() {
				if cfg.pace > 0 {
					time.Sleep(time.Until(next))
					next = next.Add(cfg.pace)
				}
			}
			// Each user asks after a turn of its own in every
			// cfg.every: users who all asked in the same second would
			// be a crowd no chat has.
			phase := rand.IntN(cfg.every)
			for t := range cfg.turns {
				wait()
				turn := conv[(i/len(convs)*cfg.turns+t)%len(conv)]
				took, _, err := send(i, "POST", path+"/turns", map[string]any{"conversation": "c", "turns": []map[string]any{
					{"role": roleOr(turn.Role), "speaker": turn.Speaker, "content": turn.Content, "id": fmt.Sprint(t)}}})
				mu.Lock()
				if err != nil {
					r.failed(err)
				} else {
					appends = append(appends, took)
					acked[i] = append(acked[i], fmt.Sprint(t))
					r.TurnsAdded++
				}
				mu.Unlock()
				if (t+1+phase)%cfg.every != 0 {
					continue
				}
				wait()
				question := conv[(i/len(convs)*cfg.turns+t+1)%len(conv)]
				took, _, err = send(i, "POST", path+"/context", map[string]any{"question": question.Content, "budget": 1000})
				mu.Lock()
				if err != nil {
					r.failed(err)
				} else {
					contexts = append(contexts, took)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	r.Seconds = time.Since(start).Seconds()
	r.Requests = len(appends) + len(contexts) + r.Failed
	r.PerSecond = float64(r.Requests) / r.Seconds
	r.Append, r.Context = percentiles(appends), percentiles(contexts)
	// Every acknowledged turn, looked for through a server that lives.
	for i, ids := range acked {
		_, answer, err := send(i+1, "GET", fmt.Sprintf("/v1/memories/user-%d/turns?limit=1000", i), nil)
		if err != nil {
			return r, err
		}
		var list struct {
			Turns []struct {
				ID string `json:"id"`
			} `json:"turns"`
		}
		if err := json.Unmarshal(answer, &list); err != nil {
			return r, err
		}
		held := map[string]bool{}
		for _, t := range list.Turns {
			held[t.ID] = true
		}
		for _, id := range ids {
			if !held[id] {
				r.Lost++
			}
		}
	}
	srvs.stop()
	stopped = true
	r.PeakRSSMB = peakRSSMB()
	if srvs.procs != nil {
		r.PeakRSSMB = srvs.peak
	}
	return r, nil
}

// roleOr is a turn's role, or user.
func roleOr(role string) string {
	if role == "" {
		return "user"
	}
	return role
}
