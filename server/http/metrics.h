// Prometheus metrics of the daemon: requests by route and status, order submissions by channel,
// turn-run durations, mail queue length (once mail exists). Rendered in the text exposition
// format for GET /metrics. Thread-safety: every method may be called from any thread.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace adj::http {

// A label value escaped for the Prometheus text format (backslash, double quote, newline).
std::string prometheus_label(const std::string& s);

class Metrics {
 public:
  void request(const std::string& route, int status);
  void submission(const std::string& channel, bool accepted);
  void turn_run(double seconds, bool ok);
  void set_gauge(const std::string& name, double value);
  // A connection refused by a listener ("http", "smtp") for `reason` ("global_cap",
  // "per_address_cap", "fd_limit").
  void connection_refused(const std::string& listener, const std::string& reason);
  // A secret or token refused (adjutant_auth_refusals_total): channel such as "api_basic",
  // reason "wrong_secret", "unknown_token", "unknown_player", "locked".
  void auth_refusal(const std::string& channel, const std::string& reason);
  // Prometheus text format (version 0.0.4).
  std::string render() const;
  // Called at the end of every render() to append more metrics (Prometheus text); nullptr takes
  // it off. Thread-safe; the collector must be too, and must not call this Metrics.
  void set_collector(std::function<void(std::string&)> collector) {
    std::lock_guard<std::mutex> lock(mu_);
    collector_ = std::move(collector);
  }

 private:
  mutable std::mutex mu_;
  std::function<void(std::string&)> collector_;
  std::map<std::pair<std::string, int>, long> requests_;
  std::map<std::pair<std::string, bool>, long> submissions_;
  long turn_runs_ok_ = 0, turn_runs_failed_ = 0;
  double turn_seconds_sum_ = 0;
  std::map<double, long> turn_buckets_;  // upper bound -> count (cumulative at render)
  std::map<std::string, double> gauges_;
  std::map<std::pair<std::string, std::string>, long> refused_connections_;
  std::map<std::pair<std::string, std::string>, long> auth_refusals_;
};

}  // namespace adj::http
