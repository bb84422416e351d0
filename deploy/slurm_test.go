//go:build linux

package deploy

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"text/template"
	"time"
)

// TestSlurmJobArray runs deploy/slurm/grid-array.sh as a real Slurm job
// array of 4 tasks on a single-node Slurm that it starts itself (munged,
// slurmctld and slurmd from Debian's munge and slurm-wlm, every file in a
// temporary folder, ports picked free on the loopback), merges the four
// task folders with `fairbench merge`, and checks that the result is
// byte-identical to a one-process `fairbench grid` of the same scenario.
// It also checks that the array really split the grid: each task's folder
// holds a non-empty share of the runs, and the shares are disjoint.
func TestSlurmJobArray(t *testing.T) {
	tools := slurmTools(t)
	dir := slurmDir(t)
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	fb := buildFairbench(t, dir)
	scenario, err := os.ReadFile("testdata/slurm-grid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "grid.yaml"), scenario, 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("slurm/grid-array.sh")
	if err != nil {
		t.Fatal(err)
	}
	// sbatch reads the script; read here too, so that Go's test cache
	// reruns this test when the script changes.
	if _, err := os.ReadFile(script); err != nil {
		t.Fatal(err)
	}

	c := startSlurm(t, tools, dir)
	c.env = append(c.env, "FAIRBENCH="+fb)

	// Submit: 4 tasks, each writing its own folder shards/<index>. The
	// script's own #SBATCH lines (2 CPUs and 4G per task, the log name)
	// are used as they are.
	out := c.client(t, work, "sbatch", "--parsable", "--array=0-3", script, "grid.yaml", "shards/%a")
	jobID, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	if !regexp.MustCompile(`^[0-9]+$`).MatchString(jobID) {
		t.Fatalf("sbatch printed %q, want a job ID", out)
	}
	t.Cleanup(func() { c.cancel(jobID) })
	c.waitFor(t, "job array "+jobID+" to finish", 3*time.Minute, func() (bool, string) {
		q := c.client(t, work, "squeue", "-h", "-j", jobID, "-o", "%i %T %R")
		return strings.TrimSpace(q) == "", q
	})
	c.checkTasks(t, work, jobID, 4)

	// The same grid in one process, then the merge of the four folders.
	one := exec.Command(fb, "grid", "grid.yaml", "--jobs", "2", "--out", filepath.Join(dir, "ref"))
	one.Dir = work
	if out, err := one.CombinedOutput(); err != nil {
		t.Fatalf("one-process grid: %v\n%s", err, out)
	}
	ref := readDir(t, filepath.Join(dir, "ref"))
	var shards, dups []string
	seen := map[string]int{}
	for k := range 4 {
		shard := filepath.Join(work, "shards", fmt.Sprint(k))
		shards = append(shards, shard)
		ids := runIDs(readDir(t, shard))
		if len(ids) == 0 {
			t.Errorf("task %d wrote no run into %s", k, shard)
		}
		for _, id := range ids {
			if prev, dup := seen[id]; dup {
				dups = append(dups, fmt.Sprintf("%s (tasks %d and %d)", id, prev, k))
			}
			seen[id] = k
		}
	}
	if len(dups) > 0 {
		t.Errorf("the array did not shard the grid: %d runs are in several tasks' folders: %s", len(dups), strings.Join(dups, ", "))
	}
	if got, want := len(seen), len(runIDs(ref)); got != want {
		t.Errorf("the 4 tasks wrote %d distinct runs, the one-process grid %d", got, want)
	}
	merged := filepath.Join(dir, "merged")
	if out, err := exec.Command(fb, append(append([]string{"merge"}, shards...), "--out", merged)...).CombinedOutput(); err != nil {
		t.Fatalf("fairbench merge: %v\n%s", err, out)
	}
	sameFiles(t, readDir(t, merged), ref)
}

// slurmTools finds the Slurm and MUNGE programs (daemons live in /usr/sbin,
// which a user's PATH may lack). Without them the test is skipped, unless
// FAIRBENCH_REQUIRE_SLURM is set (as .ci/run does): then it fails.
func slurmTools(t *testing.T) map[string]string {
	t.Helper()
	tools := map[string]string{}
	var missing []string
	for _, name := range []string{"munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol", "scancel"} {
		p, err := exec.LookPath(name)
		for _, d := range []string{"/usr/sbin", "/sbin"} {
			if err != nil {
				p, err = exec.LookPath(filepath.Join(d, name))
			}
		}
		if err != nil {
			missing = append(missing, name)
		}
		tools[name] = p
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("Slurm/MUNGE programs missing: %v (Debian: apt-get install slurm-wlm munge; make test-deps does it)", missing)
		if os.Getenv("FAIRBENCH_REQUIRE_SLURM") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg + "; set FAIRBENCH_REQUIRE_SLURM=1 to fail instead")
	}
	return tools
}

// slurmDir makes the folder that holds every file of the cluster. munged
// refuses a socket under a folder that others cannot traverse, and
// t.TempDir's folders are private, so this one is made world-traversable.
func slurmDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "fairbench-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("removing the cluster's folder: %v", err)
		}
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// slurmConf is a single-node cluster that needs no cgroups, no systemd and
// no accounting database: processes are tracked by their parent PIDs
// (proctrack/linuxproc), tasks are not bound (task/none), and only the
// loopback address is bound (NoInAddrAny with 127.0.0.1 as every host's
// address). The node declares 8 CPUs and 16 GiB whatever the machine has
// (config_overrides), so that the four tasks of 2 CPUs and 4G each, as the
// script asks, run side by side.
var slurmConf = template.Must(template.New("slurm.conf").Parse(`ClusterName=fairbenchtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={{.CtldPort}}
SlurmdPort={{.DPort}}
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
SlurmUser={{.User}}
SlurmdUser={{.User}}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={{.Dir}}/munge/munge.socket
StateSaveLocation={{.Dir}}/ctld
SlurmdSpoolDir={{.Dir}}/spool
SlurmctldPidFile={{.Dir}}/slurmctld.pid
SlurmdPidFile={{.Dir}}/slurmd.pid
SlurmctldLogFile={{.Dir}}/slurmctld.log
SlurmdLogFile={{.Dir}}/slurmd.log
PlugStackConfig={{.Dir}}/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SlurmdParameters=config_overrides
NodeName={{.Node}} NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=8 RealMemory=16384 State=UNKNOWN
PartitionName=test Nodes={{.Node}} Default=YES MaxTime=INFINITE State=UP
`))

const slurmNode = "node0"

// slurmCluster is a running munged, slurmctld and slurmd.
type slurmCluster struct {
	dir     string
	tools   map[string]string
	env     []string // for the clients, and so for the jobs (sbatch exports it)
	daemons []*daemon
}

// daemon is one foreground daemon, its output in a file.
type daemon struct {
	name string
	cmd  *exec.Cmd
	out  string
	done chan struct{}
}

// startSlurm starts the cluster in dir and waits for its node to be idle.
// The daemons are stopped, last started first, when the test ends, and they
// get SIGTERM if the test process dies.
func startSlurm(t *testing.T, tools map[string]string, dir string) *slurmCluster {
	t.Helper()
	c := &slurmCluster{dir: dir, tools: tools}
	for _, sub := range []string{"munge", "ctld", "spool"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := make([]byte, 1024)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "munge", "munge.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plugstack.conf"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	ports := freePorts(t, 2)
	var conf bytes.Buffer
	if err := slurmConf.Execute(&conf, map[string]any{
		"Dir": dir, "User": u.Username, "Node": slurmNode, "CtldPort": ports[0], "DPort": ports[1],
	}); err != nil {
		t.Fatal(err)
	}
	confPath := filepath.Join(dir, "slurm.conf")
	if err := os.WriteFile(confPath, conf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SLURM_") { // an outer Slurm's settings do not apply here
			c.env = append(c.env, kv)
		}
	}
	c.env = append(c.env, "SLURM_CONF="+confPath)

	m := filepath.Join(dir, "munge")
	c.start(t, "munged", "--foreground", "--socket="+filepath.Join(m, "munge.socket"),
		"--key-file="+filepath.Join(m, "munge.key"), "--pid-file="+filepath.Join(m, "munged.pid"),
		"--log-file="+filepath.Join(m, "munged.log"), "--seed-file="+filepath.Join(m, "munged.seed"))
	c.waitFor(t, "munged's socket", time.Minute, func() (bool, string) {
		_, err := os.Stat(filepath.Join(m, "munge.socket"))
		return err == nil, fmt.Sprint(err)
	})
	c.start(t, "slurmctld", "-D", "-i")
	c.waitFor(t, "slurmctld to answer", time.Minute, func() (bool, string) {
		out, _ := c.output("scontrol", "ping")
		return strings.Contains(out, "is UP"), out
	})
	c.start(t, "slurmd", "-D", "-N", slurmNode)
	c.waitFor(t, "node "+slurmNode+" to be idle", time.Minute, func() (bool, string) {
		out, _ := c.output("sinfo", "-h", "-N", "-n", slurmNode, "-o", "%T")
		return strings.TrimSpace(out) == "idle", out
	})
	return c
}

// freePorts returns n TCP ports free on the loopback now.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// start runs one daemon in the foreground and registers its stop.
func (c *slurmCluster) start(t *testing.T, name string, args ...string) {
	t.Helper()
	d := &daemon{name: name, out: filepath.Join(c.dir, name+".out"), done: make(chan struct{})}
	f, err := os.Create(d.out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d.cmd = exec.Command(c.tools[name], args...)
	d.cmd.Env, d.cmd.Stdout, d.cmd.Stderr = c.env, f, f
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() { _ = d.cmd.Wait(); close(d.done) }()
	c.daemons = append(c.daemons, d)
	t.Cleanup(func() { d.stop(t) })
}

// stop sends SIGTERM to the daemon's process group, then SIGKILL if it is
// still there after 20 s.
func (d *daemon) stop(t *testing.T) {
	pg := -d.cmd.Process.Pid
	_ = syscall.Kill(pg, syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(20 * time.Second):
		t.Errorf("%s ignored SIGTERM for 20 s; killing it", d.name)
		_ = syscall.Kill(pg, syscall.SIGKILL)
		<-d.done
	}
}

// cancel cancels the job if it is still there and waits (at most 30 s) for
// its processes to end, so that the folder can be removed.
func (c *slurmCluster) cancel(jobID string) {
	if _, err := c.output("scancel", jobID); err != nil {
		return
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if out, err := c.output("squeue", "-h", "-j", jobID); err != nil || strings.TrimSpace(out) == "" {
			return
		}
	}
}

// output runs a Slurm client with the cluster's environment.
func (c *slurmCluster) output(name string, args ...string) (string, error) {
	cmd := exec.Command(c.tools[name], args...)
	cmd.Env = c.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// client runs a Slurm client in dir and fails the test if it fails.
func (c *slurmCluster) client(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(c.tools[name], args...)
	cmd.Dir, cmd.Env = dir, c.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, stderr.String(), c.logs())
	}
	return string(out)
}

// waitFor polls cond every 200 ms until it holds, failing the test (with
// the daemons' logs) on timeout or when a daemon has exited.
func (c *slurmCluster) waitFor(t *testing.T, what string, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	start := time.Now()
	for {
		ok, last := cond()
		if ok {
			t.Logf("waited %.1f s for %s", time.Since(start).Seconds(), what)
			return
		}
		for _, d := range c.daemons {
			select {
			case <-d.done:
				t.Fatalf("waiting for %s: %s exited (%v)%s", what, d.name, d.cmd.ProcessState, c.logs())
			default:
			}
		}
		if time.Since(start) > timeout {
			t.Fatalf("waited %v for %s; last: %s%s", timeout, what, strings.TrimSpace(last), c.logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkTasks checks, while slurmctld still remembers the job, that it had n
// array tasks 0..n-1 and that each completed with exit code 0 and left its
// log (the script's --output) in dir.
func (c *slurmCluster) checkTasks(t *testing.T, dir, jobID string, n int) {
	t.Helper()
	out := c.client(t, dir, "scontrol", "-o", "show", "job", jobID)
	field := func(line, key string) string {
		m := regexp.MustCompile(`(?:^| )` + key + `=(\S+)`).FindStringSubmatch(line)
		if m == nil {
			return ""
		}
		return m[1]
	}
	var tasks []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		task := field(line, "ArrayTaskId")
		tasks = append(tasks, task)
		log := filepath.Join(dir, "fairbench-"+jobID+"_"+task+".log")
		if st, ec := field(line, "JobState"), field(line, "ExitCode"); st != "COMPLETED" || ec != "0:0" {
			b, _ := os.ReadFile(log)
			t.Errorf("array task %s: JobState=%s ExitCode=%s, want COMPLETED 0:0; its log:\n%s", task, st, ec, b)
		} else if _, err := os.Stat(log); err != nil {
			t.Errorf("array task %s left no log: %v", task, err)
		}
	}
	slices.Sort(tasks)
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprint(i)
	}
	if !slices.Equal(tasks, want) {
		t.Errorf("the job's array tasks are %v, want %v", tasks, want)
	}
	if t.Failed() {
		t.Fatalf("job array %s failed%s", jobID, c.logs())
	}
}

// logs returns the end of every log of the cluster, for failure messages.
func (c *slurmCluster) logs() string {
	var b strings.Builder
	for _, name := range []string{"munge/munged.log", "munged.out", "slurmctld.log", "slurmctld.out", "slurmd.log", "slurmd.out"} {
		data, err := os.ReadFile(filepath.Join(c.dir, name))
		if err != nil || len(data) == 0 {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		fmt.Fprintf(&b, "\n--- %s (last %d lines)\n%s", name, min(len(lines), 30), strings.Join(lines[max(0, len(lines)-30):], "\n"))
	}
	return b.String()
}

// readDir reads every file of a result folder (not temporaries).
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// runIDs are the runs whose records a folder holds.
func runIDs(files map[string][]byte) []string {
	var ids []string
	for name := range files {
		if strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, "manifest-") {
			ids = append(ids, strings.TrimSuffix(name, ".json"))
		}
	}
	slices.Sort(ids)
	return ids
}

// sameFiles checks that two folders hold the same files, byte for byte.
func sameFiles(t *testing.T, got, want map[string][]byte) {
	t.Helper()
	for name, b := range want {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("merged folder lacks %s", name)
		case !bytes.Equal(g, b):
			t.Errorf("%s differs between the merged shards and the one-process run", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("merged folder has %s, which the one-process run lacks", name)
		}
	}
	if len(want) < 3 {
		t.Errorf("the one-process run wrote only %d files", len(want))
	}
}
