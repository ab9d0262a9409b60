// The device counts a module's collectives need.
//
// Dumped programs (XLA's own tests, hlo_to_mhlo's, SPMD steps) often keep
// replica groups and source_target_pairs over 4 or 8 devices while their
// header says nothing, i.e. one replica of one partition. Compiling them
// needs the counts (`--num_replicas`, `--num_partitions`); this derives the
// smallest counts at which every id in the module is in range, by XLA's
// group modes (collective_groups.h):
//
//   ids in replica_groups of   cross_replica, cross_replica_and_partition
//                              mode: replica ids  -> num_replicas > max id
//                              cross_partition mode: partition ids
//                                                  -> num_partitions > max id
//                              flattened_id mode: global ids
//                                -> num_replicas x num_partitions > max id,
//                                   met by raising num_partitions (SPMD
//                                   programs use global ids over partitions)
//   source_target_pairs        with a channel_id: partition ids; without:
//                              replica ids (collective-permute's rule)
//
// The module header's counts are the starting point: a count is only ever
// raised. Replica groups in a form that cannot be expanded (a raw form such
// as a `mesh[...]` form with sub-axes, an invalid iota form) give no ids and leave the counts as
// they are; compilation then names the instruction. Nothing else
// (shardings, send/recv frontend attributes) is read.
//
// Used by benchmarks/corpus_coverage.sh (through `xla_aot parse
// --device_counts`), tests/e2e:corpus_coverage_test and host_corpus_test.
// Pure function of the module: thread-safe.
#ifndef XLA_HLO_IR_COLLECTIVE_DEVICE_COUNTS_H_
#define XLA_HLO_IR_COLLECTIVE_DEVICE_COUNTS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_module.h"

namespace xla {

struct DeviceCounts {
  int64_t num_replicas = 1;
  int64_t num_partitions = 1;
  int64_t participants() const { return num_replicas * num_partitions; }
  bool operator==(const DeviceCounts& o) const {
    return num_replicas == o.num_replicas && num_partitions == o.num_partitions;
  }
};

// The counts described above for every instruction of the computations the
// entry computation reaches (unreachable ones never run). Fails (InvalidArgument, naming the instruction) for a negative
// id and for use_global_device_ids=true without a channel_id.
absl::StatusOr<DeviceCounts> DeviceCountsForCollectives(const HloModule& module);

}  // namespace xla

#endif  // XLA_HLO_IR_COLLECTIVE_DEVICE_COUNTS_H_
