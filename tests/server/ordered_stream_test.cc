// stream_in_order (server/app/ordered_stream.h): every item is taken once, in index order, never
// more than the window ahead of the taker, whatever the number of workers; the first failure in
// index order stops it, and an exception reaches the caller after the workers ended.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "server/app/ordered_stream.h"

namespace adj {
namespace {

// Runs stream_in_order over n items (item i is "i") and records what was taken, and the most
// items ever made and not yet through take.
struct Streamed {
  std::vector<std::string> taken;
  std::size_t most_ahead = 0;
  Status status;

  Streamed(std::size_t n, std::size_t window, unsigned workers, std::size_t fail_make = SIZE_MAX,
           std::size_t fail_take = SIZE_MAX) {
    std::atomic<std::size_t> ahead{0}, most{0};
    status = stream_in_order<std::string>(
        n, window, workers,
        [&](std::size_t i, std::string& out) -> Status {
          if (i == fail_make) return Status::InvalidArgument("make " + std::to_string(i));
          out = std::to_string(i);
          const std::size_t now = ++ahead;
          std::size_t seen = most.load();
          while (now > seen && !most.compare_exchange_weak(seen, now)) {
          }
          return Status::Ok();
        },
        [&](std::size_t i, std::string&& item) -> Status {
          --ahead;
          if (i == fail_take) return Status::Internal("take " + std::to_string(i));
          taken.push_back(std::move(item));
          return Status::Ok();
        });
    most_ahead = most.load();
  }
};

std::vector<std::string> first(std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(std::to_string(i));
  return out;
}

TEST(OrderedStream, EveryItemIsTakenOnceInOrderWithinTheWindow) {
  for (unsigned workers : {0u, 1u, 2u, 4u})
    for (std::size_t window : {1u, 3u, 64u}) {
      const Streamed r(1000, window, workers);
      ASSERT_TRUE(r.status.ok()) << r.status.to_string();
      EXPECT_EQ(r.taken, first(1000)) << workers << " workers, window " << window;
      // The window ahead of the item being taken, and that item.
      EXPECT_LE(r.most_ahead, window + 1) << workers << " workers, window " << window;
    }
}

TEST(OrderedStream, NoItemsOrOneItem) {
  EXPECT_TRUE(Streamed(0, 4, 2).taken.empty());
  EXPECT_EQ(Streamed(1, 4, 2).taken, first(1));
  EXPECT_EQ(Streamed(5, 0, 2).taken, first(5));  // a window of 0 is taken as 1
}

TEST(OrderedStream, TheFirstFailureInOrderStopsIt) {
  for (unsigned workers : {0u, 2u}) {
    const Streamed made(500, 16, workers, 123);
    EXPECT_EQ(made.status.to_string(), Status::InvalidArgument("make 123").to_string());
    EXPECT_EQ(made.taken, first(123));
    const Streamed took(500, 16, workers, SIZE_MAX, 77);
    EXPECT_EQ(took.status.to_string(), Status::Internal("take 77").to_string());
    EXPECT_EQ(took.taken, first(77));
  }
}

TEST(OrderedStream, ExceptionsReachTheCallerInOrder) {
  for (unsigned workers : {0u, 2u}) {
    std::vector<std::size_t> taken;
    try {
      (void)stream_in_order<int>(
          300, 8, workers,
          [](std::size_t i, int& out) -> Status {
            if (i >= 40) throw std::runtime_error("make " + std::to_string(i));
            out = static_cast<int>(i);
            return Status::Ok();
          },
          [&](std::size_t i, int&&) {
            taken.push_back(i);
            return Status::Ok();
          });
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "make 40");
    }
    EXPECT_EQ(taken.size(), 40u);
    EXPECT_THROW((void)stream_in_order<int>(
                     300, 8, workers, [](std::size_t, int&) { return Status::Ok(); },
                     [](std::size_t i, int&&) -> Status {
                       if (i == 9) throw std::logic_error("take");
                       return Status::Ok();
                     }),
                 std::logic_error);
  }
}

}  // namespace
}  // namespace adj
