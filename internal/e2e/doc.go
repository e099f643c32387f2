// Package e2e holds floe's end-to-end tests: real `floe serve` processes
// sharing one real redis-server and one segment sink, driven over the REST
// API while a test writes an Iceberg table, and stopped the hard ways an
// operator's bad day stops them (SIGKILL, SIGSTOP, a partition from
// Redis). After each scenario the tests check the architecture's
// invariants on what the processes left behind: the live segments hold
// exactly the Iceberg snapshot's rows (I2), the sink equals the checkpoint
// with no orphan, and no run stays RUNNING.
//
// The tests run under the integration build tag (make test).
package e2e
