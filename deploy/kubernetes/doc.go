// Package kubernetes holds loopbench's Kubernetes recipe (a container
// image, a serve Deployment and Service, a load Job of N indexed pods; see
// scripts/k8s-load.sh) and the test that checks the manifests against the
// Kubernetes API types. It is a module of its own, so that the main
// module does not depend on k8s.io/api.
package kubernetes
