package permission

import (
	"context"
	"errors"
	"testing"
)

func TestNonInteractive(t *testing.T) {
	tests := []struct {
		name     string
		approver NonInteractive
		req      Request
		approved bool
		feedback string
	}{
		{"policy ask", NonInteractive{}, Request{PolicyAsk: true}, true, ""},
		{"danger", NonInteractive{}, Request{Danger: true}, false, DangerDeniedFeedback},
		{"danger with policy ask", NonInteractive{}, Request{PolicyAsk: true, Danger: true}, false, DangerDeniedFeedback},
		{"danger allowed by config", NonInteractive{AllowDanger: true}, Request{Danger: true}, true, ""},
		{"escalation even with danger allowed", NonInteractive{AllowDanger: true}, Request{Danger: true, Escalation: true}, false, EscalationDeniedFeedback},
	}
	for _, tt := range tests {
		r, err := tt.approver.Approve(context.Background(), tt.req)
		if err != nil || r.Approved != tt.approved || r.Feedback != tt.feedback || r.Always {
			t.Errorf("%s: %+v, %v", tt.name, r, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (NonInteractive{}).Approve(ctx, Request{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if r, err := (DenyWhenAsked{}).Approve(context.Background(), Request{PolicyAsk: true}); err != nil || r.Approved {
		t.Errorf("DenyWhenAsked: %+v, %v", r, err)
	}
}

type recordingApprover struct{ asked []Request }

func (r *recordingApprover) Approve(_ context.Context, req Request) (Reply, error) {
	r.asked = append(r.asked, req)
	return Reply{Approved: false, Feedback: "no"}, nil
}

func TestAutoApproveAsksPassesOnlyDanger(t *testing.T) {
	person := &recordingApprover{}
	a := AutoApproveAsks{Person: person}
	if r, _ := a.Approve(context.Background(), Request{PolicyAsk: true}); !r.Approved {
		t.Fatal("a policy ask was not approved")
	}
	if r, _ := a.Approve(context.Background(), Request{PolicyAsk: true, Danger: true}); r.Approved || len(person.asked) != 1 {
		t.Fatalf("danger request: %+v, person asked %d times", r, len(person.asked))
	}
}
