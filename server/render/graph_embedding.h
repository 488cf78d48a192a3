// A first embedding of a graph in the plane for the automatic map layout (svg_map.cc): classical
// multidimensional scaling of the hop distances (Torgerson), which unfolds grids and chains that
// a force layout started from a circle leaves folded.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "server/render/map_geometry.h"

namespace adj::render {

// Positions of nodes 0..n-1 (undirected `edges` between them) in about [-1, 1]^2 whose distances
// follow the graph's hop distances. Nodes of separate components are placed as if one step
// farther than the farthest pair. Deterministic. Cost: n breadth-first searches and O(n^2) memory
// and time per power-iteration step; meant for n up to about a thousand.
std::vector<Point> classical_mds(std::size_t n,
                                 const std::vector<std::pair<std::size_t, std::size_t>>& edges);

}  // namespace adj::render
