package testpeer

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// PinotInstallHint tells a developer how to get the Pinot cluster jars.
const PinotInstallHint = "scripts/setup-pinot-cluster.sh (Java 17, Maven, Pinot jars from Maven Central)"

// PinotVersion is the Pinot release the test cluster runs. Pinot 1.x
// publishes pinot-server and pinot-tools nowhere floe's machines can reach
// (only the libraries), so the cluster is the newest complete release
// there; segments are still proven against 1.5.1 by internal/pinottest.
const PinotVersion = "0.11.0"

// pinotReadyTimeout bounds how long one role may take to become healthy.
const pinotReadyTimeout = 4 * time.Minute

// PinotCluster is a running single-node Pinot cluster (ZooKeeper,
// controller, broker, server) on free loopback ports.
type PinotCluster struct {
	ControllerURL  string // http://127.0.0.1:port
	BrokerURL      string // http://127.0.0.1:port, POST /query/sql
	ServerAdminURL string
	ZKAddress      string // 127.0.0.1:port
	ClusterName    string
	// StartupTime is how long StartPinot took from first JVM to all healthy.
	StartupTime time.Duration
}

// PinotOptions configures StartPinotWith.
type PinotOptions struct {
	// S3Endpoint, when set, gives the controller and the server an S3
	// PinotFS on that endpoint (moto: path-style addressing, credentials
	// MotoCredential), so that servers download metadata-pushed segments
	// from s3:// URIs.
	S3Endpoint string
	// S3Region defaults to us-east-1.
	S3Region string
}

// MotoCredential is the access key id and secret key the Pinot cluster
// uses against moto (which accepts any).
const MotoCredential = "testing"

// StartPinot starts ZooKeeper, a controller, a broker and a server as
// separate JVMs (-Xmx512m each) with data under t.TempDir(), waits until
// every role is healthy and registered, and stops them when the test ends
// (their logs are dumped when it failed). The instances register as
// 127.0.0.1; ZooKeeper listens on 127.0.0.1 only, while Pinot 0.11 binds
// its HTTP and query ports on all interfaces (the legacy port settings
// cannot be narrowed).
func StartPinot(t testing.TB) *PinotCluster {
	t.Helper()
	return StartPinotWith(t, PinotOptions{})
}

// StartPinotWith is StartPinot with options (an S3 deep store).
func StartPinotWith(t testing.TB, opts PinotOptions) *PinotCluster {
	t.Helper()
	began := time.Now()
	l := newPinotLauncher(t)
	c := &PinotCluster{ClusterName: "floe"}
	zkPort := FreePort(t)
	c.ZKAddress = net.JoinHostPort("127.0.0.1", strconv.Itoa(zkPort))
	zk := l.start("pinot-zookeeper", "256m", "zookeeper", strconv.Itoa(zkPort), l.dir("zookeeper"))
	waitPinotTCP(t, zk, c.ZKAddress)

	ctlPort := FreePort(t)
	c.ControllerURL = fmt.Sprintf("http://127.0.0.1:%d", ctlPort)
	s3 := s3Settings(opts)
	ctl := l.start("pinot-controller", "512m", append([]string{"controller",
		"-zkAddress", c.ZKAddress, "-clusterName", c.ClusterName, "-controllerHost", "127.0.0.1",
		"-controllerPort", strconv.Itoa(ctlPort), "-dataDir", l.dir("controller")}, s3("pinot.controller")...)...)
	waitPinotHealth(t, ctl, c.ControllerURL+"/health")

	brkPort, srvPort, adminPort := FreePort(t), FreePort(t), FreePort(t)
	c.BrokerURL = fmt.Sprintf("http://127.0.0.1:%d", brkPort)
	c.ServerAdminURL = fmt.Sprintf("http://127.0.0.1:%d", adminPort)
	brk := l.start("pinot-broker", "512m", "broker",
		"-zkAddress", c.ZKAddress, "-clusterName", c.ClusterName, "-brokerHost", "127.0.0.1",
		"-brokerPort", strconv.Itoa(brkPort), "-brokerMultiStageRunnerPort", strconv.Itoa(FreePort(t)))
	srv := l.start("pinot-server", "512m", append([]string{"server",
		"-zkAddress", c.ZKAddress, "-clusterName", c.ClusterName, "-serverHost", "127.0.0.1",
		"-serverPort", strconv.Itoa(srvPort), "-serverAdminPort", strconv.Itoa(adminPort),
		"-serverGrpcPort", strconv.Itoa(FreePort(t)),
		"-serverMultiStageServerPort", strconv.Itoa(FreePort(t)),
		"-serverMultiStageRunnerPort", strconv.Itoa(FreePort(t)),
		"-dataDir", l.dir("server-data"), "-segmentDir", l.dir("server-segments")}, s3("pinot.server")...)...)
	// Registered last, this cleanup runs first: the four JVMs stop side by
	// side (one after the other, each shutting down for seconds, a cluster
	// took 10-13 s to stop).
	t.Cleanup(func() { stopTogether(zk, ctl, brk, srv) })
	waitPinotHealth(t, brk, c.BrokerURL+"/health")
	waitPinotHealth(t, srv, c.ServerAdminURL+"/health")
	waitPinotInstances(t, ctl, c.ControllerURL, "Broker_127.0.0.1_"+strconv.Itoa(brkPort),
		"Server_127.0.0.1_"+strconv.Itoa(srvPort))
	c.StartupTime = time.Since(began)
	t.Logf("testpeer: Pinot %s cluster up in %s (controller %s, broker %s)", PinotVersion,
		c.StartupTime.Round(time.Millisecond), c.ControllerURL, c.BrokerURL)
	return c
}

// s3Settings returns, per role prefix (pinot.controller, pinot.server),
// the launcher's --set flags that register an S3 PinotFS and segment
// fetcher on opts.S3Endpoint (none without one). PathStyleS3PinotFS is
// Pinot's S3PinotFS with path-style addressing (tools/pinot-cluster).
func s3Settings(opts PinotOptions) func(role string) []string {
	return func(role string) []string {
		if opts.S3Endpoint == "" {
			return nil
		}
		region := opts.S3Region
		if region == "" {
			region = "us-east-1"
		}
		fs := role + ".storage.factory."
		var out []string
		for _, kv := range []string{
			fs + "class.s3=dev.floe.cluster.PathStyleS3PinotFS",
			fs + "s3.region=" + region,
			fs + "s3.endpoint=" + opts.S3Endpoint,
			fs + "s3.accessKey=" + MotoCredential,
			fs + "s3.secretKey=" + MotoCredential,
			role + ".segment.fetcher.protocols=file,http,s3",
		} {
			out = append(out, "--set", kv)
		}
		return out
	}
}

// pinotLauncher starts Pinot roles from the jars of tools/pinot-cluster.
type pinotLauncher struct {
	t         testing.TB
	java      string
	classpath string
	root      string
}

func newPinotLauncher(t testing.TB) *pinotLauncher {
	t.Helper()
	target := filepath.Join(RepoRoot(t), "tools", "pinot-cluster", "target")
	classes := filepath.Join(target, "classes")
	if _, err := os.Stat(filepath.Join(classes, "dev", "floe", "cluster", "Launch.class")); err != nil {
		t.Fatalf("testpeer: Pinot cluster not built (%s missing): run %s", classes, PinotInstallHint)
	}
	if jars, _ := filepath.Glob(filepath.Join(target, "lib", "pinot-server-*.jar")); len(jars) == 0 {
		t.Fatalf("testpeer: Pinot cluster jars missing in %s: run %s", filepath.Join(target, "lib"), PinotInstallHint)
	}
	return &pinotLauncher{
		t:         t,
		java:      Require(t, "java", PinotInstallHint),
		classpath: classes + string(os.PathListSeparator) + filepath.Join(target, "lib", "*"),
		root:      t.TempDir(),
	}
}

func (l *pinotLauncher) dir(name string) string {
	d := filepath.Join(l.root, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		l.t.Fatalf("testpeer: create %s: %v", d, err)
	}
	return d
}

func (l *pinotLauncher) start(name, heap string, args ...string) *Process {
	jvm := []string{
		"-Xmx" + heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Dzookeeper.admin.enableServer=false", "-Djava.io.tmpdir=" + l.dir(name+"-tmp"),
		"--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
		"--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
		"--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
		"--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
		"-cp", l.classpath, "dev.floe.cluster.Launch",
	}
	return Start(l.t, ProcessSpec{Name: name, Cmd: l.java, Args: append(jvm, args...), Dir: l.root})
}

// waitPinot polls probe until it succeeds, failing fast when p exits.
func waitPinot(t testing.TB, p *Process, what string, probe func() error) {
	t.Helper()
	deadline := time.Now().Add(pinotReadyTimeout)
	var lastErr error
	for time.Now().Before(deadline) {
		if exited, err := p.Exited(); exited {
			t.Fatalf("testpeer: %s exited before %s was ready (%v); log tail:\n%s", p.Name, what, err,
				strings.Join(p.LogTail(60), "\n"))
		}
		if lastErr = probe(); lastErr == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("testpeer: %s not ready after %s: %v", what, pinotReadyTimeout, lastErr)
}

func waitPinotTCP(t testing.TB, p *Process, addr string) {
	t.Helper()
	waitPinot(t, p, addr, func() error {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
		}
		return err
	})
}

func waitPinotHealth(t testing.TB, p *Process, url string) {
	t.Helper()
	waitPinot(t, p, url, func() error {
		body, err := pinotGet(url)
		if err == nil && strings.TrimSpace(body) != "OK" {
			err = fmt.Errorf("health says %q", body)
		}
		return err
	})
}

// waitPinotInstances waits until the controller lists every instance.
func waitPinotInstances(t testing.TB, ctl *Process, controllerURL string, instances ...string) {
	t.Helper()
	waitPinot(t, ctl, "instances "+strings.Join(instances, ", "), func() error {
		body, err := pinotGet(controllerURL + "/instances")
		if err != nil {
			return err
		}
		for _, in := range instances {
			if !strings.Contains(body, `"`+in+`"`) {
				return fmt.Errorf("instance %s not registered yet: %s", in, body)
			}
		}
		return nil
	})
}

func pinotGet(url string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("GET %s: %w", url, err)
	}
	if resp.StatusCode/100 != 2 {
		return string(body), fmt.Errorf("GET %s: HTTP %s", url, resp.Status)
	}
	return string(body), nil
}

// stopTogether stops every process at once and waits for all of them.
func stopTogether(ps ...*Process) {
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Stop()
		}()
	}
	wg.Wait()
}
