package config

import "testing"

// Telemetry is off unless asked for; a project file asks only in a trusted
// workspace (it decides where prompts and output may go); the person's own
// file and CODER_ENABLE_TELEMETRY always can.
func TestTelemetrySettings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name           string
		user, project  string
		env            string
		trusted        bool
		enabled, log   bool
		wantLoadFailed bool
	}{
		{name: "default off"},
		{name: "user file", user: `{"telemetry": {"enabled": true}}`, enabled: true},
		{name: "trusted project", project: `{"telemetry": {"enabled": true, "log_content": true}}`, trusted: true, enabled: true, log: true},
		{name: "untrusted project", project: `{"telemetry": {"enabled": true, "log_content": true}}`},
		{name: "untrusted project, user enabled", user: `{"telemetry": {"enabled": true}}`,
			project: `{"telemetry": {"log_content": true}}`, enabled: true},
		{name: "environment", env: "1", enabled: true},
		{name: "environment off", user: `{"telemetry": {"enabled": true}}`, env: "false"},
		{name: "bad environment", env: "yes please", wantLoadFailed: true},
		{name: "unknown key", user: `{"telemetry": {"endpoint": "http://x"}}`, wantLoadFailed: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.flags = Overrides{Trust: tc.trusted}
			if tc.user != "" {
				f.writeUser(tc.user)
			}
			if tc.project != "" {
				f.writeProject(tc.project)
			}
			if tc.env != "" {
				f.env["CODER_ENABLE_TELEMETRY"] = tc.env
			}
			l, err := f.load()
			if tc.wantLoadFailed {
				if err == nil {
					t.Fatalf("loaded: %+v", l.Config.Telemetry)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := l.Config.Telemetry; got.Enabled != tc.enabled || got.LogContent != tc.log {
				t.Fatalf("telemetry %+v, want enabled %v log_content %v", got, tc.enabled, tc.log)
			}
		})
	}
}
