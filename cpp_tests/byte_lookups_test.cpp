// The byte lookups (ops/cpu/quantized/byte_lookups.h): every one this processor runs against the
// table itself, with a random table (every entry independent, unlike an op's monotone one), over
// every length up to a few vector steps and some beyond, from unaligned addresses, out of place and
// in place; the process's choice against the processor's own list of instructions; the names a run
// may ask for, and the refusals. The lines (ops/cpu/quantized/byte_line.h) fitted to aten's own
// tables of random scales and zero points, the formula and the AVX2 loop against the table, and the
// tables no line gives. The ops' results with each lookup against aten's: quantized_test.cpp.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ops/cpu/quantized/byte_lookup_choice.h"
#include "ops/cpu/quantized/byte_table.h"
#include "test_support.h"

namespace hardsigmoid_test {
namespace {

namespace cpu = hardsigmoid_ops::cpu;

std::vector<cpu::ByteLookup> runnable_lookups() {
  std::vector<cpu::ByteLookup> runnable;
  for (const cpu::ByteLookup lookup : cpu::kByteLookups) {
    if (cpu::can_run(lookup)) runnable.push_back(lookup);
  }
  return runnable;
}

std::vector<uint8_t> random_bytes(int64_t n) {
  const at::Tensor t = at::randint(0, 256, {n}, at::kLong).to(at::kByte);
  return std::vector<uint8_t>(t.const_data_ptr<uint8_t>(), t.const_data_ptr<uint8_t>() + n);
}

TEST(ByteLookups, EachLookupIsTheTable) {
  HARDSIGMOID_SEED_THIS_TEST();
  std::array<uint8_t, 256> table;
  const std::vector<uint8_t> entries = random_bytes(256);
  std::copy(entries.begin(), entries.end(), table.begin());
  // Every byte value first, then random ones; read from 4 to 7 bytes past the vector's start (the
  // loops load and store unaligned).
  std::vector<uint8_t> source(4 + 4099);
  for (int b = 0; b < 256; ++b) source[4 + b] = static_cast<uint8_t>(b);
  const std::vector<uint8_t> rest = random_bytes(4099 - 256);
  std::copy(rest.begin(), rest.end(), source.begin() + 4 + 256);
  std::vector<int64_t> lengths;
  for (int64_t n = 0; n <= 200; ++n) lengths.push_back(n);
  for (int64_t n : {255, 256, 257, 1000, 4095}) lengths.push_back(n);
  for (const cpu::ByteLookup lookup : runnable_lookups()) {
    SCOPED_TRACE(cpu::byte_lookup_name(lookup));
    // A random table is no line: AVX2's line becomes its shuffles (ByteLine's tests below run it).
    const cpu::PreparedTable prepared =
        cpu::prepare_table(lookup, table.data(), cpu::kLineFromElements);
    EXPECT_EQ(prepared.lookup,
              lookup == cpu::ByteLookup::kAvx2Line ? cpu::ByteLookup::kAvx2Shuffles : lookup);
    for (int offset = 0; offset < 4; ++offset) {
      for (const int64_t n : lengths) {
        const uint8_t* from = source.data() + 4 + offset;
        std::vector<uint8_t> expected(n), to(n + 1, 0xA5);
        for (int64_t i = 0; i < n; ++i) expected[i] = table[from[i]];
        cpu::lookup_contiguous(prepared, from, to.data(), n);
        ASSERT_TRUE(std::equal(expected.begin(), expected.end(), to.begin()))
            << n << " bytes from offset " << offset;
        ASSERT_EQ(to[n], 0xA5) << "wrote past " << n << " bytes";
        std::vector<uint8_t> in_place(from, from + n);
        cpu::lookup_contiguous(prepared, in_place.data(), in_place.data(), n);
        ASSERT_EQ(in_place, expected) << n << " bytes in place";
      }
    }
    // Tensors: strided rows (a byte at a time) and contiguous ones split between threads.
    const at::Tensor self = at::randint(0, 256, {3, 70001}, at::kLong).to(at::kByte);
    const at::Tensor expected =
        at::tensor(std::vector<uint8_t>(table.begin(), table.end()), at::kByte)
            .take(self.to(at::kLong));
    at::Tensor out = at::empty_like(self);
    cpu::apply_byte_table(table, self, out, lookup);
    EXPECT_TRUE(at::equal(out, expected));
    const at::Tensor transposed = self.t();
    at::Tensor transposed_out = at::empty({70001, 3}, at::kByte);
    cpu::apply_byte_table(table, transposed, transposed_out, lookup);
    EXPECT_TRUE(at::equal(transposed_out, expected.t()));
  }
}

#if defined(__x86_64__)
// The instruction-set names the kernel lists for this processor, from /proc/cpuinfo's "flags",
// not from the library's own test of the processor.
std::string cpu_flags() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) == 0) return line + " ";
  }
  return "";
}

bool has_flag(const std::string& flags, const std::string& flag) {
  return flags.find(" " + flag + " ") != std::string::npos;
}
#endif

// A lookup judged not runnable where the processor has it would silently give the slower one.
TEST(ByteLookups, ChosenIsTheFastestTheProcessorHas) {
#if defined(__x86_64__)
  const std::string flags = cpu_flags();
  ASSERT_FALSE(flags.empty()) << "no flags line in /proc/cpuinfo";
  std::string expected = "bytes";
  if (has_flag(flags, "avx512vbmi") && has_flag(flags, "avx512bw")) {
    expected = "vbmi";
  } else if (has_flag(flags, "avx2")) {
    expected = "avx2-line";
  }
#elif defined(__aarch64__)
  // Advanced SIMD is part of every aarch64 processor Linux runs on.
  const std::string expected = "neon";
#else
  const std::string expected = "bytes";
#endif
  EXPECT_EQ(cpu::byte_lookup_name(cpu::byte_lookup_for(nullptr)), expected);
  EXPECT_EQ(cpu::byte_lookup_name(cpu::byte_lookup_for("")), expected);
  // The process's choice: the one a run names, else the fastest.
  const char* requested = std::getenv("HARDSIGMOID_OPS_BYTE_LOOKUP");
  EXPECT_EQ(cpu::byte_lookup_name(cpu::byte_lookup_for_this_call()),
            requested && *requested ? std::string(requested) : expected);
}

// aten's table of the op for one 8-bit dtype, scale and zero point: its codes for every input
// code, indexed by the code's byte.
std::array<uint8_t, 256> atens_table(at::ScalarType dtype, double scale, int64_t zero_point) {
  const at::Tensor bytes = at::arange(0, 256, at::kLong).to(at::kByte);
  const at::Tensor codes = dtype == at::kQUInt8 ? bytes : bytes.view(at::kChar);
  const at::Tensor results =
      at::hardsigmoid(at::_make_per_tensor_quantized_tensor(codes, scale, zero_point));
  const at::Tensor result_bytes = results.int_repr().view(at::kByte).contiguous();
  std::array<uint8_t, 256> table;
  std::copy(result_bytes.const_data_ptr<uint8_t>(), result_bytes.const_data_ptr<uint8_t>() + 256,
            table.begin());
  return table;
}

// Every byte of `line` against the table: the scalar formula and, where the processor runs it,
// the AVX2 loop over every byte value and random bytes, at unaligned addresses with tails.
void expect_line_gives(const cpu::ByteLine& line, const std::array<uint8_t, 256>& table) {
  for (int b = 0; b < 256; ++b) {
    ASSERT_EQ(cpu::line_byte(line, static_cast<uint8_t>(b)), table[b]) << "byte " << b;
  }
#if defined(__x86_64__)
  if (!cpu::can_run(cpu::ByteLookup::kAvx2Line)) return;
  std::vector<uint8_t> source(1 + 256 + 77);
  for (int b = 0; b < 256; ++b) source[1 + b] = static_cast<uint8_t>(b);
  const std::vector<uint8_t> rest = random_bytes(77);
  std::copy(rest.begin(), rest.end(), source.begin() + 1 + 256);
  const int64_t n = static_cast<int64_t>(source.size()) - 1;
  std::vector<uint8_t> to(n);
  cpu::line_avx2(line, source.data() + 1, to.data(), n);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(to[i], table[source[1 + i]]) << "byte " << int(source[1 + i]) << " at " << i;
  }
#endif
}

// aten's tables: the benchmark's parameters (docs/performance_history.md, "AVX2's line") and 200
// drawn at random (scales from 0.002 to 3 on a log scale, every zero point); a line is found for
// all but about 1 in 1000.
TEST(ByteLine, GivesAtensTables) {
  HARDSIGMOID_SEED_THIS_TEST();
  for (const auto& [dtype, zero_point] :
       {std::pair{at::kQUInt8, int64_t{128}}, std::pair{at::kQInt8, int64_t{0}}}) {
    const auto table = atens_table(dtype, 8.0 / 255, zero_point);
    const std::optional<cpu::ByteLine> line = cpu::fit_byte_line(table.data());
    ASSERT_TRUE(line) << c10::toString(dtype) << ": the benchmark's table";
    expect_line_gives(*line, table);
    // Taken from kLineFromElements bytes a call, the shuffles below.
    EXPECT_EQ(
        cpu::prepare_table(cpu::ByteLookup::kAvx2Line, table.data(), cpu::kLineFromElements).lookup,
        cpu::ByteLookup::kAvx2Line);
    EXPECT_EQ(
        cpu::prepare_table(cpu::ByteLookup::kAvx2Line, table.data(), cpu::kLineFromElements - 1)
            .lookup,
        cpu::ByteLookup::kAvx2Shuffles);
    // A scale of 3 and more: a ramp of one entry, a line of the largest step.
    const auto steep = atens_table(dtype, 4.0, zero_point);
    if (const std::optional<cpu::ByteLine> steep_line = cpu::fit_byte_line(steep.data())) {
      expect_line_gives(*steep_line, steep);
    }
  }
  int fitted = 0;
  const int tables = 200;
  for (int t = 0; t < tables; ++t) {
    const bool unsigned_codes = at::randint(0, 2, {1}, at::kLong).item<int64_t>() == 0;
    const at::ScalarType dtype = unsigned_codes ? at::kQUInt8 : at::kQInt8;
    const double scale =
        std::exp(std::log(0.002) + std::log(1500.0) * at::rand({1}, at::kDouble).item<double>());
    const int64_t low = unsigned_codes ? 0 : -128;
    const int64_t zero_point = low + at::randint(0, 256, {1}, at::kLong).item<int64_t>();
    SCOPED_TRACE(std::string(c10::toString(dtype)) + " scale " + std::to_string(scale) +
                 " zero point " + std::to_string(zero_point));
    const auto table = atens_table(dtype, scale, zero_point);
    if (const std::optional<cpu::ByteLine> line = cpu::fit_byte_line(table.data())) {
      ++fitted;
      expect_line_gives(*line, table);
    }
  }
  EXPECT_GE(fitted, tables - 5) << "lines found for " << fitted << " of " << tables << " tables";
}

#if defined(__x86_64__)
// The AVX2 loop against the formula on lines anywhere in fit_byte_line's ranges, not only those
// aten's tables give (offsets whose 16-bit lanes have the top bit set, the largest multipliers,
// shifts 1 and 8), and outside them (the formula a byte at a time): every byte value, then random
// bytes, every length to 100 and some beyond, unaligned, out of place and in place.
TEST(ByteLine, Avx2LoopIsTheFormula) {
  HARDSIGMOID_SEED_THIS_TEST();
  if (!cpu::can_run(cpu::ByteLookup::kAvx2Line)) GTEST_SKIP() << "the processor has no AVX2";
  std::vector<cpu::ByteLine> lines = {
      {0, -65535, 1, 0, 0},     {65535, 65535, 1, 0, 0},     {65535, -65535, 8, 0x80, 0x80},
      {65535, 32768, 8, 0, 0},  {40000, -32768, 4, 0x80, 0}, {1, 0, 1, 0, 0x80},
      {300, 70000, 3, 0, 0},    {300, -70000, 3, 0, 0},      {300, 100, 0, 0, 0},
      {300, 100, 9, 0x80, 0x80}};
  for (int l = 0; l < 200; ++l) {
    const at::Tensor drawn = at::randint(0, 1 << 30, {5}, at::kLong);
    const int64_t* d = drawn.const_data_ptr<int64_t>();
    lines.push_back({static_cast<uint16_t>(d[0] % 65536),
                     static_cast<int32_t>(d[1] % 131071) - 65535, static_cast<int>(1 + d[2] % 8),
                     static_cast<uint8_t>(d[3] % 2 ? 0x80 : 0),
                     static_cast<uint8_t>(d[4] % 2 ? 0x80 : 0)});
  }
  std::vector<uint8_t> source(3 + 256 + 300);
  for (int b = 0; b < 256; ++b) source[3 + b] = static_cast<uint8_t>(b);
  const std::vector<uint8_t> rest = random_bytes(300);
  std::copy(rest.begin(), rest.end(), source.begin() + 3 + 256);
  std::vector<int64_t> lengths;
  for (int64_t n = 0; n <= 100; ++n) lengths.push_back(n);
  for (int64_t n : {255, 256, 257, 556}) lengths.push_back(n);
  for (const cpu::ByteLine& line : lines) {
    SCOPED_TRACE("multiplier " + std::to_string(line.multiplier) + ", offset " +
                 std::to_string(line.offset) + ", shift " + std::to_string(line.shift) +
                 ", flips " + std::to_string(line.flip_in) + " " + std::to_string(line.flip_out));
    for (const int64_t n : lengths) {
      const uint8_t* from = source.data() + 3 - n % 3;
      std::vector<uint8_t> expected(n), to(n + 1, 0xA5);
      for (int64_t i = 0; i < n; ++i) expected[i] = cpu::line_byte(line, from[i]);
      cpu::line_avx2(line, from, to.data(), n);
      ASSERT_TRUE(std::equal(expected.begin(), expected.end(), to.begin())) << n << " bytes";
      ASSERT_EQ(to[n], 0xA5) << "wrote past " << n << " bytes";
      std::vector<uint8_t> in_place(from, from + n);
      cpu::line_avx2(line, in_place.data(), in_place.data(), n);
      ASSERT_EQ(in_place, expected) << n << " bytes in place";
    }
  }
}
#endif

// A line is checked on every byte before it is used: tables that are no line give none (two
// slopes), and aten's tables with one entry of the ramp moved by one, still monotone, give either
// none or a line that gives the moved entry too.
TEST(ByteLine, NeverAnotherTable) {
  HARDSIGMOID_SEED_THIS_TEST();
  std::array<uint8_t, 256> two_slopes{};
  for (int b = 0; b < 256; ++b) {
    two_slopes[b] = static_cast<uint8_t>(b < 100 ? b / 2 : std::min(255, 50 + 3 * (b - 100) / 2));
  }
  EXPECT_FALSE(cpu::fit_byte_line(two_slopes.data()));
  for (int t = 0; t < 100; ++t) {
    const double scale = 0.02 + 0.1 * at::rand({1}, at::kDouble).item<double>();
    std::array<uint8_t, 256> table = atens_table(at::kQUInt8, scale, 128);
    // An entry of the ramp that can move up or down by one and leave the table monotone.
    std::vector<int> movable;
    for (int b = 1; b < 255; ++b) {
      if (table[b - 1] < table[b] && table[b] < table[b + 1]) movable.push_back(b);
    }
    ASSERT_FALSE(movable.empty());
    const int b = movable[at::randint(0, static_cast<int64_t>(movable.size()), {1}, at::kLong)
                              .item<int64_t>()];
    table[b] = static_cast<uint8_t>(table[b] + (t % 2 ? 1 : -1));
    SCOPED_TRACE("scale " + std::to_string(scale) + ", entry " + std::to_string(b) + " moved");
    if (const std::optional<cpu::ByteLine> line = cpu::fit_byte_line(table.data())) {
      expect_line_gives(*line, table);
    }
  }
}

TEST(ByteLookups, NamedOrRefused) {
  for (const cpu::ByteLookup lookup : cpu::kByteLookups) {
    const std::string name = cpu::byte_lookup_name(lookup);
    ASSERT_EQ(cpu::byte_lookup_named(name), lookup);
    if (cpu::can_run(lookup)) {
      EXPECT_EQ(cpu::byte_lookup_for(name.c_str()), lookup);
    } else {
      EXPECT_TRUE(raised(thrown_by([&] { cpu::byte_lookup_for(name.c_str()); }), Raises::Error,
                         {"HARDSIGMOID_OPS_BYTE_LOOKUP=" + name, "this processor cannot run it",
                          "this processor runs"}));
    }
  }
  EXPECT_TRUE(cpu::can_run(cpu::ByteLookup::kBytes));
  EXPECT_TRUE(raised(thrown_by([] { cpu::byte_lookup_for("avx3"); }), Raises::Error,
                     {"HARDSIGMOID_OPS_BYTE_LOOKUP=avx3", "no lookup of that name", "bytes"}));
}

}  // namespace
}  // namespace hardsigmoid_test
