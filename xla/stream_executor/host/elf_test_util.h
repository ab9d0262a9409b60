// ElfEditor: reads and rewrites fields of an ELF64 shared object's bytes in
// place, for tests that need a good host kernel module made bad in one way
// (host_object_check_test, tests/hostile) or a test module trimmed to the
// kernels an artifact names (HideExportsExcept). It finds the tables through
// the section headers, unlike the check, which never trusts them. Test-only:
// it XLA_CHECKs instead of returning errors.
//
// Thread-safety: none; one editor per thread.
#ifndef XLA_STREAM_EXECUTOR_HOST_ELF_TEST_UTIL_H_
#define XLA_STREAM_EXECUTOR_HOST_ELF_TEST_UTIL_H_

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>

#include "absl/strings/string_view.h"

namespace stream_executor::host {

class ElfEditor {
 public:
  // XLA_CHECKs that `bytes` start with an ELF64 header.
  explicit ElfEditor(std::string bytes);

  const std::string& bytes() const { return bytes_; }
  Elf64_Ehdr header() const { return Get<Elf64_Ehdr>(0); }
  void set_header(const Elf64_Ehdr& h) { Put(0, h); }

  // Program headers.
  int num_segments() const { return header().e_phnum; }
  Elf64_Phdr segment(int i) const { return Get<Elf64_Phdr>(SegmentOffset(i)); }
  void set_segment(int i, const Elf64_Phdr& p) { Put(SegmentOffset(i), p); }
  // The index of the first program header of `type`, or -1.
  int FindSegment(uint32_t type) const;
  // The index of the `n`th PT_LOAD (XLA_CHECKs that it exists).
  int Load(int n) const;

  // Entries of the dynamic section (PT_DYNAMIC), DT_NULL included.
  int num_dynamic() const;
  Elf64_Dyn dynamic(int i) const { return Get<Elf64_Dyn>(DynamicOffset(i)); }
  void set_dynamic(int i, const Elf64_Dyn& d) { Put(DynamicOffset(i), d); }
  // The index of the first entry with `tag`, or -1.
  int FindDynamic(int64_t tag) const;

  // The index of the section named `name`, or -1; the section itself
  // (XLA_CHECKs that it exists).
  int FindSection(absl::string_view name) const;
  Elf64_Shdr section(absl::string_view name) const;

  // .dynsym entries and their names in .dynstr.
  int num_symbols() const;
  Elf64_Sym symbol(int i) const { return Get<Elf64_Sym>(SymbolOffset(i)); }
  void set_symbol(int i, const Elf64_Sym& s) { Put(SymbolOffset(i), s); }
  std::string symbol_name(int i) const;
  // The index of the dynamic symbol `name`, or -1.
  int FindSymbol(absl::string_view name) const;

  // Entries of a relocation section (".rela.dyn", ".rela.plt").
  int num_relocations(absl::string_view section) const;
  Elf64_Rela relocation(absl::string_view section, int i) const;
  void set_relocation(absl::string_view section, int i, const Elf64_Rela& r);

  // Raw access; XLA_CHECKs the bounds.
  template <typename T>
  T Get(uint64_t offset) const {
    CheckRange(offset, sizeof(T));
    T value;
    std::memcpy(&value, bytes_.data() + offset, sizeof(T));
    return value;
  }
  template <typename T>
  void Put(uint64_t offset, const T& value) {
    CheckRange(offset, sizeof(T));
    std::memcpy(bytes_.data() + offset, &value, sizeof(T));
  }

 private:
  void CheckRange(uint64_t offset, uint64_t size) const;
  uint64_t SegmentOffset(int i) const;
  uint64_t DynamicOffset(int i) const;
  uint64_t SymbolOffset(int i) const;
  uint64_t RelocationOffset(absl::string_view section, int i) const;

  std::string bytes_;
};

// `bytes` with every defined global or weak dynamic symbol whose name is
// not in `keep` made hidden (STV_HIDDEN): dlsym no longer finds it and
// CheckHostSharedObject no longer counts it as an export. For artifacts
// that name some of a test module's kernels.
std::string HideExportsExcept(std::string bytes, const std::set<std::string>& keep);

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_ELF_TEST_UTIL_H_
