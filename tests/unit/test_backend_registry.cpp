// The backend registry (core/backend.hpp): the library's targets and the test suite's
// serial backend are listed and named; a program registers a host backend of its own
// and calls run on it; bad registrations are value_errors that say what was wrong.
#include <atomic>
#include <cstdint>
#include <string>

#include <ufunc/core/backend.hpp>
#include <ufunc/core/elementwise.hpp>

#include "backends/serial/serial_backend.hpp"
#include "test_support.hpp"

namespace {

bool listed(ufunc::target_id t) {
  for (ufunc::target_id r : ufunc::registered_targets())
    if (r == t) return true;
  return false;
}

std::string registration_error(const ufunc::backend& b) {
  try {
    ufunc::register_backend(b);
  } catch (const ufunc::value_error& e) {
    return e.what();
  }
  return "(registered)";
}

// A program's own backend: counts the tasks it runs, runs them in one piece.
std::atomic<int> counted_tasks{0};
void run_counted(const ufunc::elementwise_task& task) {
  ++counted_tasks;
  task.run(0, task.size());
}
constexpr ufunc::target_id counting{40};

void register_counting_once() {
  static const bool done = [] {
    ufunc::backend b;
    b.id = counting;
    b.name = "counting";
    b.execute = &run_counted;
    ufunc::register_backend(b);
    return true;
  }();
  (void)done;
}

}  // namespace

TEST_CASE("backend registry: the library's targets and the serial test backend are listed, named and parsed") {
  CHECK(listed(ufunc::target_id::cpu));
#if defined(UFUNC_HAS_TBB)
  CHECK(listed(ufunc::target_id::parallel));
#else
  CHECK_FALSE(listed(ufunc::target_id::parallel));
#endif
  CHECK_FALSE(listed(ufunc::target_id::automatic));
  CHECK(listed(ufunc::testing::serial_target));
  CHECK(ufunc::to_string(ufunc::testing::serial_target) == "serial");
  CHECK(ufunc::target_from_string("serial") == ufunc::testing::serial_target);
  CHECK(ufunc::target_available(ufunc::testing::serial_target));
  // The list is in id order, cpu first.
  const auto targets = ufunc::registered_targets();
  REQUIRE(!targets.empty());
  CHECK(targets.front() == ufunc::target_id::cpu);
  CHECK(targets.back() >= ufunc::testing::serial_target);
}

TEST_CASE("backend registry: a program's backend runs the calls that name it, elementwise and methods") {
  register_counting_once();
  CHECK(ufunc::to_string(counting) == "counting");
  CHECK(ufunc::target_from_string("counting") == counting);
  const auto x = ufunc_test::sample_array<double>(1000, 1), y = ufunc_test::sample_array<double>(1000, 2);
  const int before = counted_tasks.load();
  const auto on_counting = ufunc::multiply(x, y, {.target = counting}).to_vector<double>();
  CHECK(counted_tasks.load() > before);
  CHECK(on_counting == ufunc::multiply(x, y, {.target = ufunc::target_id::cpu}).to_vector<double>());
  // No execute_units: the methods run their units in order on the calling thread.
  CHECK(ufunc::add.reduce(x, {.target = counting}).to_vector<double>() ==
        ufunc::add.reduce(x, {.target = ufunc::target_id::cpu}).to_vector<double>());
}

TEST_CASE("backend registry: bad registrations and unknown targets are errors that say what was wrong") {
  register_counting_once();
  ufunc::backend b;
  b.execute = &run_counted;
  b.id = ufunc::target_id::automatic;
  b.name = "auto2";
  CHECK(registration_error(b).find("'automatic' is not a target") != std::string::npos);
  b.id = ufunc::target_id::cpu;
  b.name = "cpu2";
  CHECK(registration_error(b).find("target 0 has a backend already ('cpu')") != std::string::npos);
  b.id = ufunc::target_id{41};
  b.name = "serial";
  CHECK(registration_error(b).find("the name 'serial' is taken by target 16") != std::string::npos);
  for (const char* bad : {"", "Serial", "two words", "a-b"}) {
    CAPTURE(bad);
    b.name = bad;
    CHECK(registration_error(b).find("needs a name of [a-z0-9_] characters") != std::string::npos);
  }
  b.name = "automatic";
  CHECK(registration_error(b).find("reserved") != std::string::npos);
  CHECK_FALSE(ufunc::target_available(ufunc::target_id{41}));  // nothing half-registered

  const auto x = ufunc_test::sample_array<float>(10, 1);
  CHECK_THROWS_WITH_AS(ufunc::sin(x, {.target = ufunc::target_id{42}}),
                       doctest::Contains("target 42 has no backend: register one with ufunc::register_backend"),
                       ufunc::target_error);
  CHECK_THROWS_WITH_AS((void)ufunc::target_from_string("nowhere"), doctest::Contains("counting"), ufunc::target_error);
  CHECK_THROWS_WITH_AS((void)ufunc::target_from_string("nowhere"), doctest::Contains("serial"), ufunc::target_error);
}
