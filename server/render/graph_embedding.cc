#include "server/render/graph_embedding.h"

#include <algorithm>
#include <cmath>
#include <deque>

namespace adj::render {

namespace {

// The top eigenvector of the double-centred matrix -D2/2 (applied without forming it: its rows
// sum to zero, so for a centred v, (B v)_i = -(D2 v)_i / 2 + the mean of -(D2 v) / 2), orthogonal
// to `other` when given. Power iteration from a fixed start.
std::vector<double> top_vector(const std::vector<float>& d2, std::size_t n,
                               const std::vector<double>* other, double* value) {
  std::vector<double> v(n), w(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = std::sin(static_cast<double>(i) * 1.7 + (other ? 0.9 : 0.2)) + 1e-3 * i;
  const auto centre = [n](std::vector<double>& x) {
    double mean = 0;
    for (double a : x) mean += a;
    mean /= static_cast<double>(n);
    for (double& a : x) a -= mean;
  };
  const auto orthogonalise = [&](std::vector<double>& x) {
    if (!other) return;
    double dot = 0;
    for (std::size_t i = 0; i < n; ++i) dot += x[i] * (*other)[i];
    for (std::size_t i = 0; i < n; ++i) x[i] -= dot * (*other)[i];
  };
  const auto normalise = [](std::vector<double>& x) {
    double len = 0;
    for (double a : x) len += a * a;
    len = std::sqrt(len);
    if (len > 0)
      for (double& a : x) a /= len;
    return len;
  };
  centre(v);
  orthogonalise(v);
  normalise(v);
  *value = 0;
  for (int it = 0; it < 120; ++it) {
    for (std::size_t i = 0; i < n; ++i) {
      const float* row = &d2[i * n];
      double s = 0;
      for (std::size_t j = 0; j < n; ++j) s += row[j] * v[j];
      w[i] = -0.5 * s;
    }
    centre(w);
    orthogonalise(w);
    *value = normalise(w);
    v.swap(w);
  }
  return v;
}

}  // namespace

std::vector<Point> classical_mds(std::size_t n,
                                 const std::vector<std::pair<std::size_t, std::size_t>>& edges) {
  std::vector<Point> out(n);
  if (n < 3) {
    for (std::size_t i = 0; i < n; ++i) out[i] = {i ? 1.0 : -1.0, 0};
    return out;
  }
  std::vector<std::vector<std::size_t>> adj(n);
  for (const auto& [a, b] : edges)
    if (a < n && b < n && a != b) {
      adj[a].push_back(b);
      adj[b].push_back(a);
    }
  // Hop distances (-1: unreachable), then unreachable pairs one farther than the farthest.
  std::vector<int> hops(n * n, -1);
  int farthest = 0;
  for (std::size_t s = 0; s < n; ++s) {
    int* row = &hops[s * n];
    std::deque<std::size_t> q{s};
    row[s] = 0;
    while (!q.empty()) {
      const std::size_t v = q.front();
      q.pop_front();
      for (std::size_t w : adj[v])
        if (row[w] < 0) {
          row[w] = row[v] + 1;
          farthest = std::max(farthest, row[w]);
          q.push_back(w);
        }
    }
  }
  std::vector<float> d2(n * n);
  for (std::size_t i = 0; i < n * n; ++i) {
    const double d = hops[i] < 0 ? farthest + 1 : hops[i];
    d2[i] = static_cast<float>(d * d);
  }
  double l1 = 0, l2 = 0;
  const std::vector<double> x = top_vector(d2, n, nullptr, &l1);
  const std::vector<double> y = top_vector(d2, n, &x, &l2);
  double sx = std::sqrt(std::max(l1, 0.0)), sy = std::sqrt(std::max(l2, 0.0));
  double extent = 0;
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = {x[i] * sx, y[i] * sy};
    extent = std::max({extent, std::abs(out[i].x), std::abs(out[i].y)});
  }
  if (extent > 0)
    for (Point& p : out) p = {p.x / extent, p.y / extent};
  return out;
}

}  // namespace adj::render
