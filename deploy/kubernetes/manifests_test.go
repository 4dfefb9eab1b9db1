package kubernetes

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// decodeStrict decodes every YAML document of file into the API type its
// kind names; an unknown field, kind or version is an error.
func decodeStrict(t *testing.T, file string) []any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var objs []any
	for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		js, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatalf("%s document %d: %v", file, i, err)
		}
		var meta struct{ APIVersion, Kind string }
		json.Unmarshal(js, &meta)
		var obj any
		switch meta.APIVersion + " " + meta.Kind {
		case "apps/v1 Deployment":
			obj = &appsv1.Deployment{}
		case "v1 Service":
			obj = &corev1.Service{}
		case "batch/v1 Job":
			obj = &batchv1.Job{}
		default:
			t.Fatalf("%s document %d: unexpected %s %s", file, i, meta.APIVersion, meta.Kind)
		}
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.DisallowUnknownFields()
		if err := dec.Decode(obj); err != nil {
			t.Fatalf("%s document %d (%s): %v", file, i, meta.Kind, err)
		}
		objs = append(objs, obj)
	}
	return objs
}

// TestStrictDecodeRejectsUnknownFields: the check would catch a misspelt
// field.
func TestStrictDecodeRejectsUnknownFields(t *testing.T) {
	js, err := yaml.YAMLToJSON([]byte("apiVersion: batch/v1\nkind: Job\nspec:\n  completionsMode: Indexed\n"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&batchv1.Job{}); err == nil {
		t.Fatal("a misspelt field decoded without error")
	}
}

func TestServe(t *testing.T) {
	objs := decodeStrict(t, "serve.yaml")
	if len(objs) != 2 {
		t.Fatalf("serve.yaml: %d objects, want a Deployment and a Service", len(objs))
	}
	d, ok1 := objs[0].(*appsv1.Deployment)
	s, ok2 := objs[1].(*corev1.Service)
	if !ok1 || !ok2 {
		t.Fatalf("serve.yaml: %T, %T", objs[0], objs[1])
	}
	for k, v := range s.Spec.Selector {
		if d.Spec.Template.Labels[k] != v || d.Spec.Selector.MatchLabels[k] != v {
			t.Errorf("the Service selects %s=%s, which the Deployment's pods do not carry", k, v)
		}
	}
	c := d.Spec.Template.Spec.Containers[0]
	if len(c.Args) == 0 || c.Args[0] != "serve" || !slices.Contains(c.Args, "0.0.0.0:9000") {
		t.Errorf("serve args %q", c.Args)
	}
	if len(c.Ports) != 1 || c.Ports[0].ContainerPort != 9000 || s.Spec.Ports[0].TargetPort.String() != c.Ports[0].Name || s.Spec.Ports[0].Port != 9000 {
		t.Errorf("ports: container %+v, service %+v", c.Ports, s.Spec.Ports)
	}
}

func TestLoadJob(t *testing.T) {
	objs := decodeStrict(t, "load-job.yaml")
	j, ok := objs[0].(*batchv1.Job)
	if len(objs) != 1 || !ok {
		t.Fatalf("load-job.yaml: %d objects, want one Job", len(objs))
	}
	if j.Spec.CompletionMode == nil || *j.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Error("the Job is not Indexed")
	}
	if j.Spec.Completions == nil || j.Spec.Parallelism == nil || *j.Spec.Completions != *j.Spec.Parallelism {
		t.Error("completions and parallelism differ: the generators would not all run at once")
	}
	if j.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Error("a generator that fails must not run again over the others' window")
	}
	c := j.Spec.Template.Spec.Containers[0]
	args := strings.Join(c.Args, " ")
	for _, want := range []string{"load ", "-addr loopbench-serve:9000", "-start-at $(START_AT)", "-name gen-$(INDEX)", "-out -"} {
		if !strings.Contains(args, want) {
			t.Errorf("load args %q lack %q", args, want)
		}
	}
	// $(VAR) expands only for variables the container declares.
	for _, v := range []string{"START_AT", "INDEX"} {
		if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == v }) {
			t.Errorf("the container does not declare %s", v)
		}
	}
	serve := decodeStrict(t, "serve.yaml")[0].(*appsv1.Deployment)
	if img := serve.Spec.Template.Spec.Containers[0].Image; c.Image != img {
		t.Errorf("images differ: load %s, serve %s", c.Image, img)
	}
}

// TestScriptTargets: what scripts/k8s-load.sh rewrites is in the
// manifests, spelt as it expects.
func TestScriptTargets(t *testing.T) {
	script, err := os.ReadFile("../../scripts/k8s-load.sh")
	if err != nil {
		t.Fatal(err)
	}
	job, _ := os.ReadFile("load-job.yaml")
	serve, _ := os.ReadFile("serve.yaml")
	for _, c := range []struct{ in, needle string }{
		{string(job), "image: loopbench:dev"}, {string(serve), "image: loopbench:dev"},
		{string(job), "\n  completions: "}, {string(job), "\n  parallelism: "},
		{string(job), `value: "2026-01-01T00:00:00Z"`},
		{string(job), "- -duration\n"}, {string(job), "- -rate\n"}, {string(job), "- -conns\n"},
		{string(script), "setarg -duration"}, {string(script), `value: \"2026-01-01T00:00:00Z\"`},
	} {
		if !strings.Contains(c.in, c.needle) {
			t.Errorf("%q not found where the script expects it", c.needle)
		}
	}
}

func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var froms []string
	for _, line := range strings.Split(string(data), "\n") {
		if f, ok := strings.CutPrefix(line, "FROM "); ok {
			froms = append(froms, f)
		}
	}
	last := froms[len(froms)-1]
	if len(froms) < 2 || !(strings.Contains(last, "distroless/static") || strings.HasPrefix(last, "scratch")) {
		t.Errorf("stages %q: want a build stage and a distroless static or scratch base", froms)
	}
	if !strings.Contains(string(data), "CGO_ENABLED=0") {
		t.Error("the binary is not built static (CGO_ENABLED=0)")
	}
}
