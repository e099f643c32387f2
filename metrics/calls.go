package metrics

import "time"

// ControllerCall observes one Pinot controller request attempt; endpoint
// is a route template such as "POST /segments/{table}/delete" (M2).
func (r *Registry) ControllerCall(endpoint string, d time.Duration, err error) {
	r.controllerTime.WithLabelValues(endpoint).Observe(d.Seconds())
	if err != nil {
		r.controllerErrors.WithLabelValues(endpoint).Inc()
	}
}

// StoreCall observes one checkpoint store call: a Redis command, script or
// pipeline, or a bolt transaction.
func (r *Registry) StoreCall(op string, d time.Duration, err error) {
	r.storeTime.WithLabelValues(op).Observe(d.Seconds())
	if err != nil {
		r.storeErrors.WithLabelValues(op).Inc()
	}
}
