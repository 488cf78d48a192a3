#include "server/http/metrics.h"

#include <cstdio>

namespace adj::http {

namespace {
constexpr double kTurnBuckets[] = {0.1, 0.5, 1, 2, 5, 10, 30, 60, 300};

std::string num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}
}  // namespace

std::string prometheus_label(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void Metrics::request(const std::string& route, int status) {
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_[{route, status}];
}

void Metrics::submission(const std::string& channel, bool accepted) {
  std::lock_guard<std::mutex> lock(mu_);
  ++submissions_[{channel, accepted}];
}

void Metrics::turn_run(double seconds, bool ok) {
  std::lock_guard<std::mutex> lock(mu_);
  (ok ? turn_runs_ok_ : turn_runs_failed_) += 1;
  turn_seconds_sum_ += seconds;
  for (double b : kTurnBuckets)
    if (seconds <= b) {
      ++turn_buckets_[b];
      break;
    }
}

void Metrics::auth_refusal(const std::string& channel, const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  ++auth_refusals_[{channel, reason}];
}

void Metrics::set_gauge(const std::string& name, double value) {
  std::lock_guard<std::mutex> lock(mu_);
  gauges_[name] = value;
}

void Metrics::connection_refused(const std::string& listener, const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  ++refused_connections_[{listener, reason}];
}

std::string Metrics::render() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  out += "# HELP adjutant_http_requests_total HTTP requests by route and status.\n";
  out += "# TYPE adjutant_http_requests_total counter\n";
  for (const auto& [k, n] : requests_)
    out += "adjutant_http_requests_total{route=\"" + prometheus_label(k.first) + "\",status=\"" +
           std::to_string(k.second) + "\"} " + std::to_string(n) + "\n";
  out += "# HELP adjutant_submissions_total Order files received, by channel and outcome.\n";
  out += "# TYPE adjutant_submissions_total counter\n";
  for (const auto& [k, n] : submissions_)
    out += "adjutant_submissions_total{channel=\"" + prometheus_label(k.first) + "\",result=\"" +
           (k.second ? "accepted" : "refused") + "\"} " + std::to_string(n) + "\n";
  out += "# HELP adjutant_turn_run_seconds Turn run durations.\n";
  out += "# TYPE adjutant_turn_run_seconds histogram\n";
  long cumulative = 0;
  for (double b : kTurnBuckets) {
    auto it = turn_buckets_.find(b);
    cumulative += it == turn_buckets_.end() ? 0 : it->second;
    out += "adjutant_turn_run_seconds_bucket{le=\"" + num(b) + "\"} " + std::to_string(cumulative) +
           "\n";
  }
  const long total = turn_runs_ok_ + turn_runs_failed_;
  out += "adjutant_turn_run_seconds_bucket{le=\"+Inf\"} " + std::to_string(total) + "\n";
  out += "adjutant_turn_run_seconds_sum " + num(turn_seconds_sum_) + "\n";
  out += "adjutant_turn_run_seconds_count " + std::to_string(total) + "\n";
  out += "# HELP adjutant_turn_runs_failed_total Turn runs that failed.\n";
  out += "# TYPE adjutant_turn_runs_failed_total counter\n";
  out += "adjutant_turn_runs_failed_total " + std::to_string(turn_runs_failed_) + "\n";
  out += "# HELP adjutant_connections_refused_total Connections refused, by listener and reason.\n";
  out += "# TYPE adjutant_connections_refused_total counter\n";
  for (const auto& [k, n] : refused_connections_)
    out += "adjutant_connections_refused_total{listener=\"" + prometheus_label(k.first) +
           "\",reason=\"" + prometheus_label(k.second) + "\"} " + std::to_string(n) + "\n";
  out += "# HELP adjutant_auth_refusals_total Secrets and tokens refused, by channel and reason.\n";
  out += "# TYPE adjutant_auth_refusals_total counter\n";
  for (const auto& [k, n] : auth_refusals_)
    out += "adjutant_auth_refusals_total{channel=\"" + prometheus_label(k.first) + "\",reason=\"" +
           prometheus_label(k.second) + "\"} " + std::to_string(n) + "\n";
  for (const auto& [name, v] : gauges_) {
    out += "# TYPE " + name + " gauge\n";
    out += name + " " + num(v) + "\n";
  }
  if (collector_) collector_(out);
  return out;
}

}  // namespace adj::http
