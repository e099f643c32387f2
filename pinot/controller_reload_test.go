package pinot_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floehq/floe/pinot"
)

func TestController_ReloadSegments(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.Path)
		if r.URL.Path == "/segments/empty_OFFLINE/reload" {
			http.Error(w, `{"code":404,"error":"no segments"}`, http.StatusNotFound)
			return
		}
		_, _ = w.Write([]byte(`{"status":"Segment reload details: {}"}`))
	}))
	defer srv.Close()
	c, err := pinot.NewController(srv.URL, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	var asked []pinot.Write
	ctx := pinot.WithGuard(t.Context(), func(_ context.Context, w pinot.Write) error {
		asked = append(asked, w)
		return nil
	})
	if err := c.ReloadSegments(ctx, "orders"); err != nil {
		t.Fatalf("reload: %v", err)
	}
	if err := c.ReloadSegments(ctx, "empty"); err != nil {
		t.Errorf("reload of a table without segments: %v, want nil", err)
	}
	want := []string{"POST /segments/orders_OFFLINE/reload", "POST /segments/empty_OFFLINE/reload"}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("requests %v, want %v", got, want)
	}
	if len(asked) != 2 || asked[0].Op != pinot.OpReload || asked[0].Table != "orders" || asked[0].Destructive {
		t.Errorf("guard asked %+v, want a non-destructive %q of orders before each request", asked, pinot.OpReload)
	}
	refused := errors.New("lease lost")
	ctx = pinot.WithGuard(t.Context(), func(context.Context, pinot.Write) error { return refused })
	if err := c.ReloadSegments(ctx, "orders"); !errors.Is(err, refused) || len(got) != 2 {
		t.Errorf("reload under a refusing guard: %v after %d requests; want the refusal and nothing sent", err, len(got))
	}
}
