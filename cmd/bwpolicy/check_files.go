package main

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/bwpolicy/bwpolicy/compiler"
	"github.com/bwpolicy/bwpolicy/diag"
)

// fileResult is what checking one input produced.
type fileResult struct {
	name               string
	findings, failures diag.List
	sources            map[string][]byte
}

// checkFiles checks o's files against req, --jobs at a time (one per CPU
// by default), and returns their results in o's order, so that the
// report is the same, byte for byte, whatever the number of jobs. The
// host, the prepared rules and the profiles in req are shared; each job
// holds one file's compile at a time. The first file whose check failed
// as a tool (an internal error, an organisation rule that failed or
// crossed a bound) ends the run: the files after it are not checked (an
// organisation rule that hangs would otherwise cost the time bound once
// per file), and those before it are, so the result does not depend on
// which job got there first.
func checkFiles(ctx context.Context, req compiler.Request, o *checkOptions, refused map[string]diag.Pos) []fileResult {
	jobs := o.jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	results := make([]fileResult, len(o.files))
	var stop atomic.Int64 // the lowest index that failed; len(files) while none did
	stop.Store(int64(len(o.files)))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(jobs, len(o.files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(o.files) || int64(i) > stop.Load() {
					return
				}
				results[i] = checkOne(ctx, req, o, o.files[i], refused)
				if len(results[i].failures) > 0 {
					for {
						cur := stop.Load()
						if int64(i) >= cur || stop.CompareAndSwap(cur, int64(i)) {
							break
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	return results[:min(int(stop.Load())+1, len(results))]
}

// checkOne checks one file.
func checkOne(ctx context.Context, req compiler.Request, o *checkOptions, f string, refused map[string]diag.Pos) fileResult {
	fileReq := req
	if f == stdinName {
		fileReq.Source = o.stdin
	}
	r := fileResult{name: f, sources: map[string][]byte{}}
	if r.name == "" {
		r.name = compiler.DefaultsName
	}
	r.findings, r.failures = checkFile(ctx, fileReq, f, r.sources, refused)
	return r
}
