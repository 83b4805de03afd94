// Command benchtool is bench/run.sh's helper (see BENCHMARKS.md):
//
//	benchtool bare INVOCATION.json SECCOMP-OUT FIRST-EMPTY-FD SECCOMP-FD
//	    prints the invocation's bwrap command line for running bwrap
//	    directly (hyperfine -N syntax) and, on a second line, the
//	    descriptors it reads empty streams from (FIRST-EMPTY-FD, +1, ...:
//	    bwrap closes each after use, so every use needs its own); writes
//	    the seccomp program to SECCOMP-OUT; lists on stderr what differs
//	    from bwrun's run
//	benchtool rewind FD
//	    seeks FD (inherited) back to offset 0 (hyperfine --prepare)
//	benchtool table HYPERFINE.json
//	    the Markdown table of medians, ratios to the first command
//	benchtool gobench GO-TEST-BENCH-OUTPUT
//	    the Markdown table of median ns/op per benchmark, with the growth
//	    from N=10 to N=100 where a benchmark has /10 and /100 variants
//	benchtool interleave ROUNDS NAME=CMDLINE...
//	    runs the commands round-robin (a shuffled order each round),
//	    ROUNDS times, and prints the Markdown table of median wall times
//	    and ratios to the first: on a busy machine, drift hits every
//	    command alike. CMDLINE is split at spaces; the commands inherit
//	    this process's open descriptors at their numbers, stdin, stdout
//	    and stderr are /dev/null, and inherited fd 9 is rewound before
//	    each run (see rewind)
//	benchtool rss RUNS CMD [ARG...]
//	    runs CMD RUNS times and prints the median and largest peak RSS
//	    (wait4's ru_maxrss, as /usr/bin/time -v reports it), in KiB
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch args := os.Args[2:]; os.Args[1] {
	case "bare":
		if len(args) != 4 {
			usage()
		}
		err = bare(args[0], args[1], args[2], args[3], os.Stdout, os.Stderr)
	case "hermes":
		if len(args) != 2 {
			usage()
		}
		err = hermes(args[0], args[1], os.Stdout)
	case "rewind":
		if len(args) != 1 {
			usage()
		}
		var fd int
		if fd, err = strconv.Atoi(args[0]); err == nil {
			_, err = syscall.Seek(fd, 0, io.SeekStart)
		}
	case "table":
		if len(args) != 1 {
			usage()
		}
		err = table(args[0], os.Stdout)
	case "gobench":
		if len(args) != 1 {
			usage()
		}
		err = gobench(args[0], os.Stdout)
	case "interleave":
		if len(args) < 2 {
			usage()
		}
		err = interleave(args[0], args[1:], os.Stdout)
	case "rss":
		if len(args) < 2 {
			usage()
		}
		err = rss(args[0], args[1:], os.Stdout)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchtool %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: benchtool bare INV SECCOMP-OUT FIRST-EMPTY-FD SECCOMP-FD | hermes INV FIRST-EMPTY-FD | rewind FD | table HYPERFINE.json | gobench FILE | interleave ROUNDS NAME=CMDLINE... | rss RUNS CMD...")
	os.Exit(2)
}

// shellQuote quotes s for hyperfine's command splitting (POSIX shell
// words).
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hyperfineResult is the part of hyperfine's --export-json we use.
type hyperfineResult struct {
	Command string    `json:"command"`
	Mean    float64   `json:"mean"`
	Stddev  float64   `json:"stddev"`
	Median  float64   `json:"median"`
	Min     float64   `json:"min"`
	Max     float64   `json:"max"`
	Times   []float64 `json:"times"`
	// ExitCodes: hyperfine fails the run on a non-zero exit, unless -i.
}

func table(path string, w io.Writer) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc struct {
		Results []hyperfineResult `json:"results"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return err
	}
	if len(doc.Results) == 0 {
		return errors.New("no results")
	}
	base := doc.Results[0]
	fmt.Fprintf(w, "| command | median | mean ± σ | min | runs | median ÷ %s |\n|---|--:|--:|--:|--:|--:|\n", base.Command)
	for _, r := range doc.Results {
		med := r.Median
		if med == 0 && len(r.Times) > 0 {
			med = median(r.Times)
		}
		fmt.Fprintf(w, "| %s | %s | %s ± %s | %s | %d | %.2f× |\n", r.Command, ms(med), ms(r.Mean), ms(r.Stddev), ms(r.Min), len(r.Times), med/base.Median)
	}
	return nil
}

// ms formats seconds as milliseconds with three significant digits.
func ms(s float64) string {
	v := s * 1000
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.2f ms", v)
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([0-9.]+) ns/op`)

func gobench(path string, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	runs := map[string][]float64{}
	var order []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			continue
		}
		if _, seen := runs[m[1]]; !seen {
			order = append(order, m[1])
		}
		runs[m[1]] = append(runs[m[1]], v)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(order) == 0 {
		return errors.New("no benchmark results")
	}
	med := map[string]float64{}
	for k, v := range runs {
		med[k] = median(v)
	}
	fmt.Fprintln(w, "| benchmark | median | runs | N=100 ÷ N=10 | per extra item (10→100) |\n|---|--:|--:|--:|--:|")
	for _, name := range order {
		growth, per := "", ""
		if strings.HasSuffix(name, "/100") {
			if t10, ok := med[strings.TrimSuffix(name, "/100")+"/10"]; ok {
				growth = fmt.Sprintf("%.1f×", med[name]/t10)
				per = fmtNs((med[name] - t10) / 90)
			}
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s |\n", strings.TrimPrefix(name, "Benchmark"), fmtNs(med[name]), len(runs[name]), growth, per)
	}
	return nil
}

func fmtNs(ns float64) string {
	switch {
	case math.Abs(ns) >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case math.Abs(ns) >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case math.Abs(ns) >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

func rss(runsArg string, argv []string, w io.Writer) error {
	n, err := strconv.Atoi(runsArg)
	if err != nil || n < 1 {
		return fmt.Errorf("RUNS: %q is not a positive number", runsArg)
	}
	var kib []float64
	for i := 0; i < n; i++ {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%q: %w", argv, err)
		}
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			return errors.New("no rusage")
		}
		kib = append(kib, float64(ru.Maxrss))
	}
	sort.Float64s(kib)
	fmt.Fprintf(w, "%.0f %.0f\n", median(kib), kib[len(kib)-1])
	return nil
}

func interleave(roundsArg string, specs []string, w io.Writer) error {
	rounds, err := strconv.Atoi(roundsArg)
	if err != nil || rounds < 1 {
		return fmt.Errorf("ROUNDS: %q is not a positive number", roundsArg)
	}
	type command struct {
		name  string
		argv  []string
		times []float64
	}
	var cmds []*command
	for _, spec := range specs {
		name, line, ok := strings.Cut(spec, "=")
		argv := strings.Fields(line)
		if !ok || len(argv) == 0 {
			return fmt.Errorf("%q: want NAME=CMDLINE", spec)
		}
		cmds = append(cmds, &command{name: name, argv: argv})
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	// The inherited descriptors, at their numbers; 0-2 are /dev/null.
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return err
	}
	top := 2
	open := map[int]bool{}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 || fd >= 64 || fd == int(null.Fd()) {
			continue
		}
		// Skip the descriptor ReadDir itself used (closed by now).
		if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0); errno == 0 {
			open[fd] = true
			top = max(top, fd)
		}
	}
	files := make([]uintptr, top+1)
	for i := range files {
		files[i] = ^uintptr(0)
		if open[i] {
			files[i] = uintptr(i)
		}
	}
	files[0], files[1], files[2] = null.Fd(), null.Fd(), null.Fd()
	attr := &syscall.ProcAttr{Env: os.Environ(), Files: files}
	runOnce := func(c *command) error {
		if open[9] {
			if _, err := syscall.Seek(9, 0, io.SeekStart); err != nil {
				return err
			}
		}
		start := time.Now()
		pid, err := syscall.ForkExec(c.argv[0], c.argv, attr)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		var ws syscall.WaitStatus
		for {
			_, err = syscall.Wait4(pid, &ws, 0, nil)
			if err != syscall.EINTR {
				break
			}
		}
		elapsed := time.Since(start).Seconds()
		if err != nil || ws.ExitStatus() != 0 {
			return fmt.Errorf("%s: exit status %d (%v)", c.name, ws.ExitStatus(), err)
		}
		c.times = append(c.times, elapsed)
		return nil
	}
	order := make([]int, len(cmds))
	for i := range order {
		order[i] = i
	}
	for r := 0; r < rounds+3; r++ {
		rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			if err := runOnce(cmds[i]); err != nil {
				return err
			}
		}
		if r == 2 { // three warm-up rounds
			for _, c := range cmds {
				c.times = nil
			}
		}
	}
	base := median(cmds[0].times)
	fmt.Fprintf(w, "| command | median | mean ± σ | min | runs | median ÷ %s |\n|---|--:|--:|--:|--:|--:|\n", cmds[0].name)
	for _, c := range cmds {
		mean, sd := meanSD(c.times)
		fmt.Fprintf(w, "| %s | %s | %s ± %s | %s | %d | %.2f× |\n", c.name, ms(median(c.times)), ms(mean), ms(sd), ms(slicesMin(c.times)), len(c.times), median(c.times)/base)
	}
	return nil
}

func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	if len(xs) > 1 {
		sd = math.Sqrt(sd / float64(len(xs)-1))
	}
	return mean, sd
}

func slicesMin(xs []float64) float64 {
	m := math.Inf(1)
	for _, x := range xs {
		m = math.Min(m, x)
	}
	return m
}
