package otlp

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is where and how one exporter sends.
type Config struct {
	URL       string      // the full URL posted to (…/v1/traces)
	Headers   http.Header // sent with every request
	JSON      bool        // http/json; else http/protobuf
	Gzip      bool        // compress request bodies
	Timeout   time.Duration
	TLS       *tls.Config // nil: the system's roots, no client certificate
	UserAgent string

	// Metrics only: the temporality preference ("cumulative", "delta" or
	// "lowmemory", as the specification defines them), and histograms
	// as base-2 exponential histograms rather than explicit buckets.
	Temporality string
	Exponential bool
}

// Signal is what an exporter sends.
type Signal int

const (
	Traces Signal = iota
	Metrics
)

func (s Signal) path() string {
	if s == Traces {
		return "/v1/traces"
	}
	return "/v1/metrics"
}

func (s Signal) env() string {
	if s == Traces {
		return "TRACES"
	}
	return "METRICS"
}

// DefaultTimeout bounds one export, its retries included, unless
// OTEL_EXPORTER_OTLP_TIMEOUT says otherwise (the specification's default).
const DefaultTimeout = 10 * time.Second

// ConfigFromEnv reads the OTEL_EXPORTER_OTLP_* variables for sig, each
// per-signal variable (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) over the
// general one. Warnings say what is ignored; an error, what makes
// exporting impossible (an endpoint that is not an http(s) URL, a
// certificate that cannot be read). Header values never appear in either.
func ConfigFromEnv(sig Signal, env func(string) (string, bool)) (Config, []string, error) {
	get := func(key string) (name, value string) {
		name = "OTEL_EXPORTER_OTLP_" + sig.env() + "_" + key
		if v, ok := env(name); ok && strings.TrimSpace(v) != "" {
			return name, strings.TrimSpace(v)
		}
		name = "OTEL_EXPORTER_OTLP_" + key
		v, _ := env(name)
		return name, strings.TrimSpace(v)
	}
	cfg := Config{Timeout: DefaultTimeout}
	var warnings []string
	var err error
	if cfg.URL, err = endpoint(sig, env); err != nil {
		return cfg, nil, err
	}
	switch name, v := get("PROTOCOL"); strings.ToLower(v) {
	case "", "http/protobuf":
	case "http/json":
		cfg.JSON = true
	case "grpc":
		warnings = append(warnings, fmt.Sprintf("telemetry: %s=grpc: coder sends OTLP over HTTP (http/protobuf), which a collector takes on port 4318", name))
	default:
		warnings = append(warnings, fmt.Sprintf("telemetry: %s=%s is not a protocol coder knows; sending http/protobuf", name, v))
	}
	name, v := get("HEADERS")
	cfg.Headers, warnings = parseHeaders(name, v, warnings)
	switch name, v := get("COMPRESSION"); strings.ToLower(v) {
	case "", "none":
	case "gzip":
		cfg.Gzip = true
	default:
		warnings = append(warnings, fmt.Sprintf("telemetry: %s=%s: coder compresses with gzip or not at all; not compressing", name, v))
	}
	if name, v := get("TIMEOUT"); v != "" {
		if ms, err := strconv.Atoi(v); err == nil && ms > 0 {
			cfg.Timeout = time.Duration(ms) * time.Millisecond
		} else {
			warnings = append(warnings, fmt.Sprintf("telemetry: %s=%s is not a positive number of milliseconds; using %s", name, v, DefaultTimeout))
		}
	}
	if sig == Metrics {
		warnings = metricPreferences(&cfg, get, warnings)
	}
	cfg.TLS, err = tlsFromEnv(get)
	return cfg, warnings, err
}

// metricPreferences reads OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE
// and _DEFAULT_HISTOGRAM_AGGREGATION.
func metricPreferences(cfg *Config, get func(string) (string, string), warnings []string) []string {
	switch name, v := get("TEMPORALITY_PREFERENCE"); strings.ToLower(v) {
	case "", "cumulative":
	case "delta", "lowmemory":
		cfg.Temporality = strings.ToLower(v)
	default:
		warnings = append(warnings, fmt.Sprintf("telemetry: %s=%s: not cumulative, delta or lowmemory; using cumulative", name, v))
	}
	switch name, v := get("DEFAULT_HISTOGRAM_AGGREGATION"); strings.ToLower(v) {
	case "", "explicit_bucket_histogram":
	case "base2_exponential_bucket_histogram":
		cfg.Exponential = true
	default:
		warnings = append(warnings, fmt.Sprintf("telemetry: %s=%s: not explicit_bucket_histogram or base2_exponential_bucket_histogram; using explicit buckets", name, v))
	}
	return warnings
}

// endpoint is the URL to post sig to: the per-signal endpoint as given,
// or the general one with /v1/traces (or /v1/metrics) added to its path,
// or the collector on this machine (http://localhost:4318).
func endpoint(sig Signal, env func(string) (string, bool)) (string, error) {
	name := "OTEL_EXPORTER_OTLP_" + sig.env() + "_ENDPOINT"
	v, _ := env(name)
	perSignal := strings.TrimSpace(v) != ""
	if !perSignal {
		name = "OTEL_EXPORTER_OTLP_ENDPOINT"
		v, _ = env(name)
		if strings.TrimSpace(v) == "" {
			v = "http://localhost:4318"
		}
	}
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s is not an http:// or https:// URL", name)
	}
	switch {
	case !perSignal:
		u.Path = strings.TrimSuffix(u.Path, "/") + sig.path()
		u.RawPath = ""
	case u.Path == "":
		u.Path = "/"
	}
	return u.String(), nil
}

// parseHeaders reads "key=value,key2=value2" with percent-encoded values
// (the W3C Baggage form the specification names).
func parseHeaders(name, v string, warnings []string) (http.Header, []string) {
	h := http.Header{}
	if v == "" {
		return h, warnings
	}
	for i, entry := range strings.Split(v, ",") {
		key, value, ok := strings.Cut(entry, "=")
		key = strings.TrimSpace(key)
		if ok {
			value, ok = unescape(value)
		}
		if !ok || !validHeaderName(key) {
			warnings = append(warnings, fmt.Sprintf("telemetry: %s: entry %d is not key=value; ignored", name, i+1))
			continue
		}
		h.Set(key, strings.TrimSpace(value))
	}
	return h, warnings
}

func unescape(v string) (string, bool) {
	s, err := url.PathUnescape(v)
	return s, err == nil && !strings.ContainsAny(s, "\r\n\x00")
}

// validHeaderName: an HTTP token (RFC 9110 §5.6.2).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// tlsFromEnv reads _CERTIFICATE (the roots to trust, PEM) and
// _CLIENT_CERTIFICATE with _CLIENT_KEY (PEM), for https endpoints.
func tlsFromEnv(get func(string) (string, string)) (*tls.Config, error) {
	caName, ca := get("CERTIFICATE")
	certName, cert := get("CLIENT_CERTIFICATE")
	keyName, key := get("CLIENT_KEY")
	if ca == "" && cert == "" && key == "" {
		return nil, nil
	}
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", caName, err)
		}
		conf.RootCAs = x509.NewCertPool()
		if !conf.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: %s holds no PEM certificate", caName, ca)
		}
	}
	if cert != "" || key != "" {
		if cert == "" || key == "" {
			return nil, errors.New(certName + " and " + keyName + " go together")
		}
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("%s, %s: %w", certName, keyName, err)
		}
		conf.Certificates = []tls.Certificate{pair}
	}
	return conf, nil
}

// redacted is a URL for messages: without user info or query, where
// some collectors take their credentials.
func redacted(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the collector"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment = nil, "", false, ""
	return u.String()
}
