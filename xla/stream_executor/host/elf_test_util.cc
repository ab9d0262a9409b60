#include "xla/stream_executor/host/elf_test_util.h"

#include <utility>

#include "xla/util/logging.h"

namespace stream_executor::host {

ElfEditor::ElfEditor(std::string bytes) : bytes_(std::move(bytes)) {
  XLA_CHECK(bytes_.size() >= sizeof(Elf64_Ehdr) && std::memcmp(bytes_.data(), ELFMAG, SELFMAG) == 0 &&
            bytes_[EI_CLASS] == ELFCLASS64)
      << "not an ELF64 file (" << bytes_.size() << " bytes)";
}

void ElfEditor::CheckRange(uint64_t offset, uint64_t size) const {
  XLA_CHECK(offset <= bytes_.size() && size <= bytes_.size() - offset)
      << "[" << offset << ", +" << size << ") outside " << bytes_.size() << " bytes";
}

uint64_t ElfEditor::SegmentOffset(int i) const {
  XLA_CHECK(i >= 0 && i < num_segments()) << "program header " << i;
  return header().e_phoff + sizeof(Elf64_Phdr) * i;
}

int ElfEditor::FindSegment(uint32_t type) const {
  for (int i = 0; i < num_segments(); ++i) {
    if (segment(i).p_type == type) return i;
  }
  return -1;
}

int ElfEditor::Load(int n) const {
  for (int i = 0; i < num_segments(); ++i) {
    if (segment(i).p_type == PT_LOAD && n-- == 0) return i;
  }
  XLA_CHECK(false) << "too few PT_LOADs";
  return -1;
}

int ElfEditor::num_dynamic() const {
  const int d = FindSegment(PT_DYNAMIC);
  XLA_CHECK(d >= 0) << "no PT_DYNAMIC";
  return static_cast<int>(segment(d).p_filesz / sizeof(Elf64_Dyn));
}

uint64_t ElfEditor::DynamicOffset(int i) const {
  XLA_CHECK(i >= 0 && i < num_dynamic()) << "dynamic entry " << i;
  return segment(FindSegment(PT_DYNAMIC)).p_offset + sizeof(Elf64_Dyn) * i;
}

int ElfEditor::FindDynamic(int64_t tag) const {
  for (int i = 0; i < num_dynamic(); ++i) {
    if (dynamic(i).d_tag == tag) return i;
  }
  return -1;
}

int ElfEditor::FindSection(absl::string_view name) const {
  const Elf64_Ehdr h = header();
  const Elf64_Shdr names = Get<Elf64_Shdr>(h.e_shoff + sizeof(Elf64_Shdr) * h.e_shstrndx);
  for (int i = 0; i < h.e_shnum; ++i) {
    const Elf64_Shdr s = Get<Elf64_Shdr>(h.e_shoff + sizeof(Elf64_Shdr) * i);
    CheckRange(names.sh_offset + s.sh_name, 1);
    if (std::string(bytes_.c_str() + names.sh_offset + s.sh_name) == name) return i;
  }
  return -1;
}

Elf64_Shdr ElfEditor::section(absl::string_view name) const {
  const int i = FindSection(name);
  XLA_CHECK(i >= 0) << "no section " << name;
  return Get<Elf64_Shdr>(header().e_shoff + sizeof(Elf64_Shdr) * i);
}

int ElfEditor::num_symbols() const {
  return static_cast<int>(section(".dynsym").sh_size / sizeof(Elf64_Sym));
}

uint64_t ElfEditor::SymbolOffset(int i) const {
  XLA_CHECK(i >= 0 && i < num_symbols()) << "dynamic symbol " << i;
  return section(".dynsym").sh_offset + sizeof(Elf64_Sym) * i;
}

std::string ElfEditor::symbol_name(int i) const {
  const uint64_t at = section(".dynstr").sh_offset + symbol(i).st_name;
  CheckRange(at, 1);
  return std::string(bytes_.c_str() + at);
}

int ElfEditor::FindSymbol(absl::string_view name) const {
  for (int i = 0; i < num_symbols(); ++i) {
    if (symbol_name(i) == name) return i;
  }
  return -1;
}

int ElfEditor::num_relocations(absl::string_view name) const {
  return static_cast<int>(section(name).sh_size / sizeof(Elf64_Rela));
}

uint64_t ElfEditor::RelocationOffset(absl::string_view name, int i) const {
  XLA_CHECK(i >= 0 && i < num_relocations(name)) << name << " entry " << i;
  return section(name).sh_offset + sizeof(Elf64_Rela) * i;
}

Elf64_Rela ElfEditor::relocation(absl::string_view name, int i) const {
  return Get<Elf64_Rela>(RelocationOffset(name, i));
}

void ElfEditor::set_relocation(absl::string_view name, int i, const Elf64_Rela& r) {
  Put(RelocationOffset(name, i), r);
}

std::string HideExportsExcept(std::string bytes, const std::set<std::string>& keep) {
  ElfEditor elf(std::move(bytes));
  for (int i = 1; i < elf.num_symbols(); ++i) {
    Elf64_Sym s = elf.symbol(i);
    if (s.st_shndx == SHN_UNDEF || ELF64_ST_BIND(s.st_info) == STB_LOCAL) continue;
    if (keep.count(elf.symbol_name(i)) != 0) continue;
    s.st_other = static_cast<unsigned char>((s.st_other & ~0x3) | STV_HIDDEN);
    elf.set_symbol(i, s);
  }
  return elf.bytes();
}

}  // namespace stream_executor::host
