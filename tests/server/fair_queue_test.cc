// The order in which the HTTP listener's workers take requests (server/http/fair_queue.h).
#include "server/http/fair_queue.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace adj::http {
namespace {

TEST(FairQueue, ClientsTakeTurnsAndEachClientsJobsKeepTheirOrder) {
  FairQueue q;
  std::vector<std::string> ran;
  const auto job = [&ran](std::string name) { return [&ran, name] { ran.push_back(name); }; };
  for (int i = 1; i <= 5; ++i) q.push("A", job("A" + std::to_string(i)));
  q.push("B", job("B1"));
  q.push("", job("C1"));  // an unknown address is one client too
  q.push("A", job("A6"));
  q.push("B", job("B2"));
  EXPECT_EQ(q.size(), 9u);
  while (q.size() > 0) q.pop()();
  EXPECT_EQ(ran, (std::vector<std::string>{"A1", "B1", "C1", "A2", "B2", "A3", "A4", "A5", "A6"}));
}

TEST(FairQueue, AClientWhoseQueueRanDryJoinsAtTheEnd) {
  FairQueue q;
  std::vector<std::string> ran;
  const auto job = [&ran](std::string name) { return [&ran, name] { ran.push_back(name); }; };
  q.push("A", job("A1"));
  q.pop()();
  q.push("B", job("B1"));
  q.push("B", job("B2"));
  q.push("A", job("A2"));  // after B, who has been waiting
  q.pop()();
  q.push("C", job("C1"));
  while (q.size() > 0) q.pop()();
  EXPECT_EQ(ran, (std::vector<std::string>{"A1", "B1", "A2", "B2", "C1"}));
}

}  // namespace
}  // namespace adj::http
