package image_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/floehq/floe/tools/deploy/image"
)

// instruction is one line of the Dockerfile's final stage.
type instruction struct{ op, args string }

// finalStage reads the Dockerfile's instructions after its last FROM,
// joining continued lines.
func finalStage(t *testing.T) []instruction {
	t.Helper()
	raw, err := os.ReadFile("../../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(raw), "\\\n", " ")
	var out []instruction
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		op, args, _ := strings.Cut(line, " ")
		if strings.EqualFold(op, "FROM") {
			out = nil
			continue
		}
		out = append(out, instruction{strings.ToUpper(op), strings.TrimSpace(args)})
	}
	return out
}

// The Dockerfile describes the image the Go build makes: the same user,
// working directory, volume, port, environment, entrypoint, command, OCI
// labels and files (every path the image holds is a COPY destination).
func TestDockerfile_MatchesTheImage(t *testing.T) {
	got := map[string][]string{}
	for _, in := range finalStage(t) {
		got[in.op] = append(got[in.op], in.args)
	}
	one := func(op, want string) {
		if len(got[op]) != 1 || got[op][0] != want {
			t.Errorf("Dockerfile %s %v, want %q", op, got[op], want)
		}
	}
	one("USER", image.User)
	one("WORKDIR", image.DataDir)
	one("EXPOSE", image.Port)
	one("VOLUME", `["`+image.DataDir+`"]`)
	one("ENTRYPOINT", jsonOf(image.Entrypoint))
	one("CMD", jsonOf(image.Cmd))
	if !slices.Equal(got["ENV"], image.Env()) {
		t.Errorf("Dockerfile ENV %v, want %v", got["ENV"], image.Env())
	}
	labels := regexp.MustCompile(`(org\.opencontainers\.image\.[a-z]+)=`).FindAllStringSubmatch(strings.Join(got["LABEL"], " "), -1)
	var names []string
	for _, m := range labels {
		names = append(names, m[1])
	}
	var want []string
	for k := range (image.Spec{}).Labels() {
		want = append(want, k)
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("Dockerfile labels %v, want %v", names, want)
	}
	var dests []string
	for _, c := range got["COPY"] {
		f := strings.Fields(c)
		dests = append(dests, f[len(f)-1])
	}
	slices.Sort(dests)
	wantDests := []string{"/etc/group", "/etc/passwd", image.CACertPath, "/home/nonroot", "/tmp", image.BinaryPath,
		image.ZoneInfo, image.DataDir}
	slices.Sort(wantDests)
	if !slices.Equal(dests, wantDests) {
		t.Errorf("Dockerfile copies to %v, the image holds %v", dests, wantDests)
	}
}

func jsonOf(v []string) string {
	b, _ := json.Marshal(v)
	return string(b)
}
