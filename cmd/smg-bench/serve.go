package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/smg/serve"
)

// serveRow is what serve measures for one number of users.
type serveRow struct {
	Users      int     `json:"users"`
	Requests   int     `json:"requests"`
	Seconds    float64 `json:"seconds"`
	PerSecond  float64 `json:"requestsPerSecond"`
	Append     latency `json:"appendMs"`
	Context    latency `json:"contextMs"`
	Failed     int     `json:"failed"`
	PeakRSSMB  float64 `json:"peakRssMB"`
	Memories   int     `json:"memories"`
	TurnsAdded int     `json:"turnsAdded"`
}

func serveBenchCommand(stdout io.Writer) *cobra.Command {
	var data string
	var users []int
	var turns, every, procs int
	var pace time.Duration
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "serve --data FILE [--users 10,100] [--turns 40] [--every 4]",
		Short: "Measure smg serve under simulated users: appends and contexts over HTTP",
		Long: `Serve starts smg serve's HTTP service on a directory store of its own, on
the loopback interface, and has each of N simulated users, at once, append
the turns of a conversation of FILE one at a time (a live chat) to a memory
of their own and ask a context every --every turns, with the next turn's
text as the question, each request as soon as the one before it is
answered or, with --pace, one every --pace (a user who reads and types;
each user starts at a random point of the first --pace). It reports the
requests a second, the p50 and p99 of
the appends (each durable before it is answered) and of the contexts, the
requests that failed (any answer but 2xx), and the process's peak memory
(the server and the simulated users together).`,
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
			var rows []serveRow
			for _, n := range users {
				r, err := measureServe(convs, n, turns, every, pace)
				if err != nil {
					return err
				}
				rows = append(rows, r)
			}
			if asJSON {
				return writeJSON(stdout, rows)
			}
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "users\trequests\tper s\tappend p50 ms\tappend p99 ms\tcontext p50 ms\tcontext p99 ms\tfailed\tpeak RSS MB\t")
			for _, r := range rows {
				fmt.Fprintf(tw, "%d\t%d\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%.0f\t\n", r.Users, r.Requests, r.PerSecond, r.Append.P50, r.Append.P99, r.Context.P50, r.Context.P99, r.Failed, r.PeakRSSMB)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			paced := "each request as soon as the one before is answered"
			if pace > 0 {
				paced = "a request every " + pace.String() + " a user"
			}
			_, err = fmt.Fprintf(stdout, "GOMAXPROCS %d; %d turns a user, a context every %d; %s; one process\n", procs, turns, every, paced)
			return err
		},
	}
	cmd.Flags().StringVar(&data, "data", "", "the conversations the users' turns come from (any input smg ingest reads)")
	cmd.Flags().IntSliceVar(&users, "users", []int{10, 100}, "the numbers of users, one run each")
	cmd.Flags().IntVar(&turns, "turns", 40, "the turns each user appends")
	cmd.Flags().IntVar(&every, "every", 4, "a context every this many turns")
	cmd.Flags().IntVar(&procs, "procs", 2, "GOMAXPROCS (the target is 100 users on 2 cores)")
	cmd.Flags().DurationVar(&pace, "pace", 0, "a user's time between requests (0: none, the server saturated)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	_ = cmd.MarkFlagRequired("data")
	return cmd
}

// measureServe runs n users against a new server, each making a request
// every pace (0: one as soon as the one before is answered).
func measureServe(convs [][]smg.Turn, n, turns, every int, pace time.Duration) (serveRow, error) {
	r := serveRow{Users: n, Memories: n}
	dir, err := os.MkdirTemp("", "smg-bench-serve-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	store, err := serve.NewDir(dir, max(n, serve.DefaultOpen), smg.FileOptions{Open: smg.OpenOptions{NoVectors: true}})
	if err != nil {
		return r, err
	}
	defer store.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return r, err
	}
	srv := &http.Server{Handler: serve.New(store, nil)}
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: n}}
	post := func(path string, body any) (time.Duration, error) {
		js, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		start := time.Now()
		resp, err := client.Post(base+path, "application/json", bytes.NewReader(js))
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		took := time.Since(start)
		if resp.StatusCode/100 != 2 {
			return took, fmt.Errorf("%s: %s", path, resp.Status)
		}
		return took, nil
	}
	for i := range n {
		if _, err := post("/v1/memories", map[string]any{"id": fmt.Sprintf("user-%d", i)}); err != nil {
			return r, err
		}
	}
	var mu sync.Mutex
	var appends, contexts []time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Go(func() {
			conv := convs[i%len(convs)]
			path := fmt.Sprintf("/v1/memories/user-%d", i)
			// The users start spread over the first pace, each then on
			// its own beat.
			next := start.Add(time.Duration(rand.Int64N(int64(max(pace, 1)))))
			wait := func() {
				if pace > 0 {
					time.Sleep(time.Until(next))
					next = next.Add(pace)
				}
			}
			for t := range turns {
				wait()
				turn := conv[(i/len(convs)*turns+t)%len(conv)]
				took, err := post(path+"/turns", map[string]any{"conversation": "c", "turns": []map[string]any{
					{"role": roleOr(turn.Role), "speaker": turn.Speaker, "content": turn.Content, "id": fmt.Sprint(t)}}})
				mu.Lock()
				if err != nil {
					r.Failed++
				} else {
					appends = append(appends, took)
					r.TurnsAdded++
				}
				mu.Unlock()
				if (t+1)%every != 0 {
					continue
				}
				wait()
				question := conv[(i/len(convs)*turns+t+1)%len(conv)]
				took, err = post(path+"/context", map[string]any{"question": question.Content, "budget": 1000})
				mu.Lock()
				if err != nil {
					r.Failed++
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
	r.PeakRSSMB = peakRSSMB()
	return r, nil
}

// roleOr is a turn's role, or user.
func roleOr(role string) string {
	if role == "" {
		return "user"
	}
	return role
}
