// The payload checksums: known values, incremental use, the two CRC-32C
// implementations against each other, and sealing.
#include "xla/backends/gpu/runtime/checksum.h"

#include <initializer_list>
#include <random>
#include <string>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

uint32_t Crc(absl::string_view bytes) {
  Crc32c crc;
  crc.Update(bytes);
  return crc.digest();
}

// Every size at every offset of `data`, whole and fed in `piece`-byte
// pieces, against the byte table.
void ExpectAgreesWithTable(const std::string& data, std::initializer_list<size_t> sizes,
                           std::initializer_list<size_t> offsets, size_t piece) {
  for (size_t size : sizes) {
    for (size_t offset : offsets) {
      if (offset + size > data.size()) continue;
      const absl::string_view bytes(data.data() + offset, size);
      const uint32_t whole = Crc(bytes);
      EXPECT_EQ(whole, Crc32cTableForTesting(bytes)) << size << " at " << offset;
      Crc32c pieces;
      for (size_t at = 0; at < size; at += piece) pieces.Update(bytes.substr(at, piece));
      EXPECT_EQ(pieces.digest(), whole) << size << " at " << offset;
    }
  }
}

std::string RandomBytes(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string data(size, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  return data;
}

TEST(Crc32cTest, KnownValues) {
  // The check value of CRC-32C, and RFC 3720's (iSCSI) test vectors.
  EXPECT_EQ(Crc("123456789"), 0xE3069283u);
  EXPECT_EQ(Crc(""), 0u);
  EXPECT_EQ(Crc(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(Crc(std::string(32, '\xff')), 0x62A8AB43u);
  std::string ascending(32, '\0');
  for (int i = 0; i < 32; ++i) ascending[i] = static_cast<char>(i);
  EXPECT_EQ(Crc(ascending), 0x46DD794Eu);
  EXPECT_EQ(Crc32cTableForTesting("123456789"), 0xE3069283u);
}

TEST(Crc32cTest, IncrementalAndTableAgreeOnOddSizesAndOffsets) {
  ExpectAgreesWithTable(RandomBytes(4099, 7), {0, 1, 7, 8, 9, 63, 1000, 4099}, {0, 1, 3}, 5);
}

// From 256 bytes on, where the CPU has PCLMUL, 64-byte rounds are folded
// with carry-less products and the rest goes through the crc32 chain; the
// byte table is the oracle. Sizes straddle the threshold and whole rounds,
// with odd tails and offsets, and pieces that split rounds.
TEST(Crc32cTest, FoldedRoundsAgreeWithTheTableOnLongInputs) {
  ExpectAgreesWithTable(RandomBytes(100003, 11),
                        {255, 256, 257, 319, 320, 12289, 36864 + 4095, 99999}, {0, 1, 4}, 13001);
  // All-zero and all-ones rounds (the folds see 0 and ~0 blocks).
  for (char fill : {'\0', '\xff'}) {
    const std::string flat(64 * 100 + 5, fill);
    EXPECT_EQ(Crc(flat), Crc32cTableForTesting(flat)) << static_cast<int>(fill);
  }
}

TEST(PayloadChecksumTest, EachAlgorithmOverTheDeterministicSerialization) {
  GpuExecutablePayloadProto payload;
  payload.set_module_name("m");
  payload.add_constants()->set_content(std::string(70001, 'x'));  // several 64 KiB buffers
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream out(&bytes);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.SetSerializationDeterministic(true);
    payload.SerializeToCodedStream(&coded);
  }
  Fnv1a64 fnv;
  fnv.Update(bytes);
  EXPECT_EQ(PayloadChecksum(payload), fnv.digest());
  EXPECT_EQ(PayloadChecksum(payload, CHECKSUM_ALGORITHM_FNV1A_64), fnv.digest());
  EXPECT_EQ(PayloadChecksum(payload, CHECKSUM_ALGORITHM_CRC32C), Crc(bytes));
  EXPECT_TRUE(IsSupportedChecksum(CHECKSUM_ALGORITHM_CRC32C));
  EXPECT_FALSE(IsSupportedChecksum(CHECKSUM_ALGORITHM_UNSPECIFIED));
  EXPECT_FALSE(IsSupportedChecksum(static_cast<ChecksumAlgorithmProto>(3)));
}

TEST(SealArtifactTest, KeepsCrc32cAndDefaultsToFnv) {
  GpuExecutableProto a;
  a.mutable_payload()->set_module_name("m");
  SealArtifact(&a);
  EXPECT_EQ(a.header().checksum_algorithm(), CHECKSUM_ALGORITHM_FNV1A_64);
  EXPECT_EQ(a.header().payload_checksum(), PayloadChecksum(a.payload()));
  a.mutable_header()->set_checksum_algorithm(CHECKSUM_ALGORITHM_CRC32C);
  SealArtifact(&a);
  EXPECT_EQ(a.header().checksum_algorithm(), CHECKSUM_ALGORITHM_CRC32C);
  EXPECT_EQ(a.header().payload_checksum(), PayloadChecksum(a.payload(), CHECKSUM_ALGORITHM_CRC32C));
  EXPECT_LE(a.header().payload_checksum(), 0xFFFFFFFFu);
}

}  // namespace
}  // namespace xla::gpu
