#include "xla/stream_executor/host/host_object_check.h"

#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace stream_executor::host {
namespace {

using ::absl::StrCat;

// What to do, the end of every message.
constexpr char kCodeAtLoad[] =
    "a host kernel module may not run code when it is loaded; recompile the artifact with "
    "xla_aot compile";
constexpr char kCorrupt[] =
    "the shared object is truncated or corrupt, or was edited; recompile the artifact with "
    "xla_aot compile";
constexpr char kOtherLibraries[] =
    "a host kernel module may use only the serving process's C runtime (libc.so.6, libm.so.6); "
    "recompile the artifact with xla_aot compile";
constexpr char kUnknown[] =
    "this runtime loads only what xla_aot's host compiler writes; recompile the artifact with "
    "xla_aot compile, or upgrade the runtime if a newer compiler wrote it";
constexpr char kWritableCode[] =
    "a host kernel module's code may not be writable nor its data or stack executable; "
    "recompile the artifact with xla_aot compile";
constexpr char kRecompile[] = "recompile the artifact with xla_aot compile";
constexpr char kExtraExport[] =
    "a host kernel module exports only the kernels its artifact names (KernelProto.host_symbol); "
    "recompile the artifact with xla_aot compile";

// ld.so maps whole pages of this size (x86-64).
constexpr uint64_t kPage = 4096;
// The most address space one module may ask for.
constexpr uint64_t kMaxSpan = uint64_t{4} << 30;

// The program header types a module may have; a refusal says why not.
struct SegmentRule {
  uint32_t type;
  const char* name;
  const char* refusal;  // nullptr: allowed
};
constexpr SegmentRule kSegmentRules[] = {
    {PT_NULL, "PT_NULL", nullptr},
    {PT_LOAD, "PT_LOAD", nullptr},
    {PT_DYNAMIC, "PT_DYNAMIC", nullptr},
    {PT_NOTE, "PT_NOTE", nullptr},
    {PT_PHDR, "PT_PHDR", nullptr},
    {PT_GNU_EH_FRAME, "PT_GNU_EH_FRAME", nullptr},
    {PT_GNU_STACK, "PT_GNU_STACK", nullptr},
    {PT_GNU_RELRO, "PT_GNU_RELRO", nullptr},
    {PT_GNU_PROPERTY, "PT_GNU_PROPERTY", nullptr},
    {PT_INTERP, "PT_INTERP", "names a program interpreter (PT_INTERP): it is a program, not a kernel module"},
    {PT_TLS, "PT_TLS",
     "has thread-local storage (PT_TLS): it takes from the process's limited static TLS and gives "
     "kernels per-thread state they may not keep"},
};

// Findings of the tag table.
constexpr char kInitializer[] = "has an initializer";
constexpr char kFinalizer[] = "has a finalizer";
constexpr char kSearchPath[] = "has a library search path";
constexpr char kAudit[] = "names an audit library";
constexpr char kFilter[] = "is a filter of another library";
constexpr char kRel[] = "has DT_REL relocations (only DT_RELA is accepted)";
constexpr char kRelr[] = "has packed DT_RELR relocations (only DT_RELA is accepted)";
constexpr char kVersions[] = "has symbol version tables, which this runtime does not read";

// The dynamic tags this runtime knows; a refusal says why not. For an
// array, size_tag is the tag of its size in bytes.
struct TagRule {
  int64_t tag;
  const char* name;
  const char* refusal;  // nullptr: allowed (its value may be checked later)
  const char* advice;
  int64_t size_tag = DT_NULL;
};
constexpr TagRule kTagRules[] = {
    {DT_NULL, "DT_NULL", nullptr, nullptr},
    {DT_NEEDED, "DT_NEEDED", nullptr, nullptr},
    {DT_PLTRELSZ, "DT_PLTRELSZ", nullptr, nullptr},
    {DT_PLTGOT, "DT_PLTGOT", nullptr, nullptr},
    {DT_HASH, "DT_HASH", nullptr, nullptr},
    {DT_STRTAB, "DT_STRTAB", nullptr, nullptr},
    {DT_SYMTAB, "DT_SYMTAB", nullptr, nullptr},
    {DT_RELA, "DT_RELA", nullptr, nullptr},
    {DT_RELASZ, "DT_RELASZ", nullptr, nullptr},
    {DT_RELAENT, "DT_RELAENT", nullptr, nullptr},
    {DT_STRSZ, "DT_STRSZ", nullptr, nullptr},
    {DT_SYMENT, "DT_SYMENT", nullptr, nullptr},
    {DT_SONAME, "DT_SONAME", nullptr, nullptr},
    {DT_PLTREL, "DT_PLTREL", nullptr, nullptr},
    {DT_DEBUG, "DT_DEBUG", nullptr, nullptr},
    {DT_JMPREL, "DT_JMPREL", nullptr, nullptr},
    {DT_BIND_NOW, "DT_BIND_NOW", nullptr, nullptr},
    {DT_FLAGS, "DT_FLAGS", nullptr, nullptr},
    {DT_GNU_HASH, "DT_GNU_HASH", nullptr, nullptr},
    {DT_RELACOUNT, "DT_RELACOUNT", nullptr, nullptr},
    {DT_FLAGS_1, "DT_FLAGS_1", nullptr, nullptr},
    {DT_INIT, "DT_INIT", kInitializer, kCodeAtLoad},
    {DT_INIT_ARRAY, "DT_INIT_ARRAY", kInitializer, kCodeAtLoad, DT_INIT_ARRAYSZ},
    {DT_INIT_ARRAYSZ, "DT_INIT_ARRAYSZ", kInitializer, kCodeAtLoad},
    {DT_PREINIT_ARRAY, "DT_PREINIT_ARRAY", kInitializer, kCodeAtLoad, DT_PREINIT_ARRAYSZ},
    {DT_PREINIT_ARRAYSZ, "DT_PREINIT_ARRAYSZ", kInitializer, kCodeAtLoad},
    {DT_FINI, "DT_FINI", kFinalizer, kCodeAtLoad},
    {DT_FINI_ARRAY, "DT_FINI_ARRAY", kFinalizer, kCodeAtLoad, DT_FINI_ARRAYSZ},
    {DT_FINI_ARRAYSZ, "DT_FINI_ARRAYSZ", kFinalizer, kCodeAtLoad},
    {DT_TEXTREL, "DT_TEXTREL", "has text relocations (ld.so would write into its code)", kWritableCode},
    {DT_RPATH, "DT_RPATH", kSearchPath, kOtherLibraries},
    {DT_RUNPATH, "DT_RUNPATH", kSearchPath, kOtherLibraries},
    {DT_AUDIT, "DT_AUDIT", kAudit, kOtherLibraries},
    {DT_DEPAUDIT, "DT_DEPAUDIT", kAudit, kOtherLibraries},
    {DT_FILTER, "DT_FILTER", kFilter, kOtherLibraries},
    {DT_AUXILIARY, "DT_AUXILIARY", kFilter, kOtherLibraries},
    {DT_REL, "DT_REL", kRel, kUnknown},
    {DT_RELSZ, "DT_RELSZ", kRel, kUnknown},
    {DT_RELENT, "DT_RELENT", kRel, kUnknown},
    {DT_RELCOUNT, "DT_RELCOUNT", kRel, kUnknown},
    {DT_RELR, "DT_RELR", kRelr, kUnknown},
    {DT_RELRSZ, "DT_RELRSZ", kRelr, kUnknown},
    {DT_RELRENT, "DT_RELRENT", kRelr, kUnknown},
    {DT_VERSYM, "DT_VERSYM", kVersions, kUnknown},
    {DT_VERDEF, "DT_VERDEF", kVersions, kUnknown},
    {DT_VERDEFNUM, "DT_VERDEFNUM", kVersions, kUnknown},
    {DT_VERNEED, "DT_VERNEED", kVersions, kUnknown},
    {DT_VERNEEDNUM, "DT_VERNEEDNUM", kVersions, kUnknown},
};

// Sections whose code runs when a module is loaded or unloaded, by name or
// by type (SHT_NULL: by name only).
struct SectionRule {
  const char* name;
  uint32_t type;
  const char* refusal;
};
constexpr SectionRule kSectionRules[] = {
    {".init", SHT_NULL, "has an initializer section"},
    {".init_array", SHT_INIT_ARRAY, "has an initializer section"},
    {".preinit_array", SHT_PREINIT_ARRAY, "has an initializer section"},
    {".ctors", SHT_NULL, "has a constructor section"},
    {".fini", SHT_NULL, "has a finalizer section"},
    {".fini_array", SHT_FINI_ARRAY, "has a finalizer section"},
    {".dtors", SHT_NULL, "has a destructor section"},
};

// The relocation types ld.so may apply; IRELATIVE is refused by name.
constexpr uint32_t kRelocationTypes[] = {R_X86_64_NONE, R_X86_64_64, R_X86_64_GLOB_DAT, R_X86_64_JUMP_SLOT,
                                         R_X86_64_RELATIVE};

// The libraries a module may name: the serving process has them already.
constexpr const char* kAllowedLibraries[] = {"libc.so.6", "libm.so.6"};

// The end markers gold (and binutils ld before 2.26) export from every
// shared object, as untyped symbols of size 0. Not kernels, but not code
// either: accepted beside the kernel table, so that output linked with
// XLA_HOST_LINKER=ld.gold loads (docs/aot_compatibility.md).
constexpr const char* kLinkerMarkers[] = {"_edata", "_end", "__bss_start"};

// True when [offset, offset + size) lies inside [0, limit), without overflow.
bool Fits(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

uint64_t PageDown(uint64_t v) { return v & ~(kPage - 1); }
uint64_t PageUp(uint64_t v) { return v > UINT64_MAX - (kPage - 1) ? UINT64_MAX : PageDown(v + kPage - 1); }
bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
std::string Hex(uint64_t v) { return StrCat("0x", absl::Hex(v)); }

const SegmentRule* FindSegmentRule(uint32_t type) {
  for (const SegmentRule& rule : kSegmentRules) {
    if (rule.type == type) return &rule;
  }
  return nullptr;
}

// Only for types CheckSegmentType accepted.
const char* SegmentName(uint32_t type) { return FindSegmentRule(type)->name; }

const TagRule* FindTag(int64_t tag) {
  for (const TagRule& rule : kTagRules) {
    if (rule.tag == tag) return &rule;
  }
  return nullptr;
}

bool IsAllowedLibrary(absl::string_view name) {
  for (const char* allowed : kAllowedLibraries) {
    if (name == allowed) return true;
  }
  return false;
}

bool IsLinkerMarker(const Elf64_Sym& sym, absl::string_view name) {
  if (ELF64_ST_TYPE(sym.st_info) != STT_NOTYPE || sym.st_size != 0) return false;
  for (const char* marker : kLinkerMarkers) {
    if (name == marker) return true;
  }
  return false;
}

// The string at `offset` of `table` when a NUL ends it within `limit` bytes.
// Bounded, so that many names at one long string cost no more than many
// short ones.
std::optional<absl::string_view> StringAt(absl::string_view table, uint64_t offset, size_t limit) {
  if (offset >= table.size()) return std::nullopt;
  const absl::string_view rest = table.substr(offset, limit);
  const size_t end = rest.find('\0');
  if (end == absl::string_view::npos) return std::nullopt;
  return rest.substr(0, end);
}

// The string at `offset` of `table` for a message: escaped, at most 64 bytes.
std::string Shown(absl::string_view table, uint64_t offset) {
  constexpr size_t kShown = 64;
  if (offset >= table.size()) return "?";
  const std::optional<absl::string_view> s = StringAt(table, offset, kShown + 1);
  if (s.has_value()) return absl::CHexEscape(*s);
  return StrCat(absl::CHexEscape(table.substr(offset, kShown)), "...");
}

// One past the last NUL of `table` (0 without one): a string at an offset
// below it is NUL-terminated inside the table.
uint64_t TerminatedEnd(absl::string_view table) {
  const size_t last = table.rfind('\0');
  return last == absl::string_view::npos ? 0 : last + 1;
}

bool IsAllowedRelocation(uint64_t type) {
  for (uint32_t allowed : kRelocationTypes) {
    if (type == allowed) return true;
  }
  return false;
}

struct Segment {
  Elf64_Phdr header;
  int index;                                                        // in the program header table
  uint64_t end() const { return header.p_vaddr + header.p_memsz; }  // checked not to overflow
};

struct DynamicEntry {
  int64_t tag;
  uint64_t value;
  uint64_t index;  // in the dynamic section
};

// A relocation table: DT_RELA and DT_RELASZ, or DT_JMPREL and DT_PLTRELSZ;
// null where absent.
struct RelocationTable {
  const char* name;
  const DynamicEntry* address;
  const DynamicEntry* size;
};

class Checker {
 public:
  Checker(absl::string_view bytes, absl::string_view what, const HostObjectRules& rules)
      : bytes_(bytes), what_(what), rules_(rules) {
    for (const char* marker : kLinkerMarkers)
      longest_export_ = std::max(longest_export_, std::strlen(marker));
    if (rules_.allowed_exports == nullptr) return;
    for (const std::string& name : *rules_.allowed_exports) {
      longest_export_ = std::max(longest_export_, name.size());
    }
  }

  absl::Status Run() {
    RETURN_IF_ERROR(CheckHeader());
    RETURN_IF_ERROR(ReadSegments());
    RETURN_IF_ERROR(CheckLoads());
    RETURN_IF_ERROR(CheckStack());
    RETURN_IF_ERROR(CheckOtherSegments());
    RETURN_IF_ERROR(ReadDynamic());
    RETURN_IF_ERROR(CheckTags());
    RETURN_IF_ERROR(CheckTagValues());
    RETURN_IF_ERROR(ReadStrings());
    RETURN_IF_ERROR(CheckLibraries());
    RETURN_IF_ERROR(CountSymbols());
    RETURN_IF_ERROR(CheckSymbols());
    RETURN_IF_ERROR(CheckRelocations());
    return CheckSections();
  }

 private:
  absl::Status Refuse(absl::string_view finding, absl::string_view where, absl::string_view advice) const {
    return absl::InvalidArgumentError(StrCat(what_, ": ", finding, " (", where, "); ", advice));
  }

  // Caller checked Fits(offset, sizeof(T), size).
  template <typename T>
  T Read(uint64_t offset) const {
    T value;
    std::memcpy(&value, bytes_.data() + offset, sizeof(T));
    return value;
  }

  std::string Where(const Segment& s) const { return StrCat("program header ", s.index); }
  std::string Where(const DynamicEntry& e) const { return StrCat("dynamic entry ", e.index); }

  absl::Status CheckHeader();
  absl::Status ReadSegments();
  absl::Status CheckSegmentType(const Segment& s) const;
  absl::Status CheckLoad(const Segment& s) const;
  absl::Status CheckLoads() const;
  absl::Status CheckStack() const;
  absl::Status CheckOtherSegments();
  absl::Status CheckRelro(const Segment& s) const;
  absl::Status CheckMapped(const Segment& s) const;
  absl::Status ReadDynamic();
  std::string Entries(const TagRule& rule) const;
  absl::Status CheckTags() const;
  absl::Status CheckTagValues() const;
  absl::Status ReadStrings();
  absl::Status CheckLibraries() const;
  absl::Status CountSymbols();
  absl::Status CountHashSymbols(uint64_t address, uint64_t* count) const;
  absl::Status CheckHashChains(uint64_t buckets, uint64_t nbucket, uint64_t nchain) const;
  absl::Status CountGnuHashSymbols(uint64_t address, uint64_t* count) const;
  absl::Status CheckSymbols() const;
  absl::Status CheckSymbol(const Elf64_Sym& sym, uint64_t index) const;
  bool IsAllowedExport(const Elf64_Sym& sym) const;
  absl::Status CheckRelocationTable(const RelocationTable& table, uint64_t relative) const;
  absl::Status CheckRelocation(const Elf64_Rela& r, absl::string_view where, bool relative) const;
  absl::Status CheckRelocations() const;
  absl::Status CheckSections() const;
  absl::Status CheckSection(const Elf64_Shdr& s, int index, absl::string_view names,
                            uint64_t names_end) const;

  // The entry with `tag` (CheckTags allows one of each but DT_NEEDED), or
  // null; its value.
  const DynamicEntry* Entry(int64_t tag) const {
    for (const DynamicEntry& e : dynamic_) {
      if (e.tag == tag) return &e;
    }
    return nullptr;
  }
  std::optional<uint64_t> Value(int64_t tag) const {
    const DynamicEntry* e = Entry(tag);
    return e != nullptr ? std::optional<uint64_t>(e->value) : std::nullopt;
  }
  // The PT_LOAD whose [p_vaddr, end) holds `address`, or null.
  const Segment* LoadAt(uint64_t address) const {
    auto after = std::upper_bound(loads_.begin(), loads_.end(), address,
                                  [](uint64_t a, const Segment& s) { return a < s.header.p_vaddr; });
    if (after == loads_.begin()) return nullptr;
    const Segment* load = &*(after - 1);
    return address < load->end() ? load : nullptr;
  }
  // The file offset of [address, address + size) when it lies inside one
  // PT_LOAD's file bytes: what ld.so reads there is what this check reads.
  std::optional<uint64_t> FileOffsetOf(uint64_t address, uint64_t size) const {
    const Segment* load = LoadAt(address);
    if (load == nullptr) return std::nullopt;
    const uint64_t into = address - load->header.p_vaddr;
    if (!Fits(into, size, load->header.p_filesz)) return std::nullopt;
    return load->header.p_offset + into;
  }
  // True when [address, address + size) lies inside one writable PT_LOAD.
  bool Writable(uint64_t address, uint64_t size) const {
    const Segment* load = LoadAt(address);
    return load != nullptr && (load->header.p_flags & PF_W) != 0 &&
           Fits(address - load->header.p_vaddr, size, load->header.p_memsz);
  }
  // True when a NUL-terminated string of the dynamic string table starts
  // at `offset`.
  bool IsName(uint64_t offset) const { return offset < strings_end_; }

  absl::string_view bytes_;
  absl::string_view what_;
  const HostObjectRules& rules_;
  Elf64_Ehdr header_;
  std::vector<Segment> segments_;
  std::vector<Segment> loads_;                // sorted by address (CheckLoads)
  const Segment* dynamic_segment_ = nullptr;  // in segments_
  std::vector<DynamicEntry> dynamic_;
  absl::string_view strings_;
  uint64_t strings_end_ = 0;   // TerminatedEnd(strings_)
  size_t longest_export_ = 0;  // of rules_.allowed_exports and kLinkerMarkers
  uint64_t symbols_offset_ = 0;
  uint64_t num_symbols_ = 0;
};

absl::Status Checker::CheckHeader() {
  if (bytes_.size() < sizeof(Elf64_Ehdr)) {
    return Refuse(StrCat("is ", bytes_.size(), " bytes, too short for an ELF header"), "file header",
                  kCorrupt);
  }
  header_ = Read<Elf64_Ehdr>(0);
  const unsigned char* id = header_.e_ident;
  if (std::memcmp(id, ELFMAG, SELFMAG) != 0) return Refuse("is not an ELF file", "e_ident", kCorrupt);
  if (id[EI_CLASS] != ELFCLASS64 || id[EI_DATA] != ELFDATA2LSB || id[EI_VERSION] != EV_CURRENT) {
    return Refuse(StrCat("is not a little-endian 64-bit ELF file (class ", id[EI_CLASS], ", data ",
                         id[EI_DATA], ", version ", id[EI_VERSION], ")"),
                  "e_ident", kCorrupt);
  }
  if (header_.e_type != ET_DYN) {
    return Refuse(StrCat("is not a shared object (e_type ", header_.e_type, ", ET_DYN is 3)"), "e_type",
                  kCorrupt);
  }
  if (header_.e_machine != EM_X86_64 || header_.e_version != EV_CURRENT) {
    return Refuse(
        StrCat("is not for x86-64 (e_machine ", header_.e_machine, ", e_version ", header_.e_version, ")"),
        "e_machine", kCorrupt);
  }
  if (header_.e_ehsize != sizeof(Elf64_Ehdr) || header_.e_phentsize != sizeof(Elf64_Phdr)) {
    return Refuse(StrCat("has header sizes e_ehsize ", header_.e_ehsize, " and e_phentsize ",
                         header_.e_phentsize, " (ELF64 has 64 and 56)"),
                  "file header", kCorrupt);
  }
  return absl::OkStatus();
}

absl::Status Checker::ReadSegments() {
  const uint64_t table = uint64_t{header_.e_phnum} * sizeof(Elf64_Phdr);
  if (header_.e_phnum == 0 || !Fits(header_.e_phoff, table, bytes_.size())) {
    return Refuse(
        StrCat("has a program header table of ", header_.e_phnum, " entries at offset ", header_.e_phoff,
               " that is empty or runs past the end of its ", bytes_.size(), " bytes"),
        "e_phoff, e_phnum", kCorrupt);
  }
  for (int i = 0; i < header_.e_phnum; ++i) {
    const Segment s{Read<Elf64_Phdr>(header_.e_phoff + uint64_t{sizeof(Elf64_Phdr)} * i), i};
    RETURN_IF_ERROR(CheckSegmentType(s));
    segments_.push_back(s);
    if (s.header.p_type == PT_LOAD) loads_.push_back(s);
  }
  return absl::OkStatus();
}

absl::Status Checker::CheckSegmentType(const Segment& s) const {
  const SegmentRule* rule = FindSegmentRule(s.header.p_type);
  if (rule == nullptr) {
    return Refuse(
        StrCat("has program header type ", Hex(s.header.p_type), ", which this runtime does not know"),
        Where(s), kUnknown);
  }
  if (rule->refusal != nullptr) return Refuse(rule->refusal, Where(s), kRecompile);
  return absl::OkStatus();
}

absl::Status Checker::CheckLoad(const Segment& s) const {
  const Elf64_Phdr& h = s.header;
  if (h.p_filesz > h.p_memsz) {
    return Refuse(StrCat("has a PT_LOAD of ", h.p_filesz, " file bytes but only ", h.p_memsz, " in memory"),
                  Where(s), kCorrupt);
  }
  if (!Fits(h.p_offset, h.p_filesz, bytes_.size())) {
    return Refuse(StrCat("has a PT_LOAD whose file bytes [", h.p_offset, ", +", h.p_filesz,
                         ") run past the end of its ", bytes_.size(), " bytes"),
                  Where(s), kCorrupt);
  }
  if (!Fits(h.p_vaddr, h.p_memsz, kMaxSpan)) {
    return Refuse(StrCat("has a PT_LOAD at [", Hex(h.p_vaddr), ", +", Hex(h.p_memsz), ") beyond 4 GiB"),
                  Where(s), kCorrupt);
  }
  // ld.so maps pages: the bytes at an address are those at the offset only
  // when both agree modulo the page size (and the alignment asked for).
  const uint64_t align = std::max(h.p_align, kPage);
  if (!IsPowerOfTwo(align) || h.p_offset % align != h.p_vaddr % align) {
    return Refuse(StrCat("has a PT_LOAD whose offset ", Hex(h.p_offset), " and address ", Hex(h.p_vaddr),
                         " disagree modulo its alignment ", Hex(align)),
                  Where(s), kCorrupt);
  }
  if ((h.p_flags & PF_W) != 0 && (h.p_flags & PF_X) != 0) {
    return Refuse("has a segment that is both writable and executable", Where(s), kWritableCode);
  }
  return absl::OkStatus();
}

absl::Status Checker::CheckLoads() const {
  if (loads_.empty()) return Refuse("has no PT_LOAD segment", "program headers", kCorrupt);
  for (size_t i = 0; i < loads_.size(); ++i) {
    RETURN_IF_ERROR(CheckLoad(loads_[i]));
    // A later segment's first page would replace an earlier one's last.
    if (i > 0 && PageDown(loads_[i].header.p_vaddr) < PageUp(loads_[i - 1].end())) {
      return Refuse(StrCat("has PT_LOADs that overlap, share a page or are not sorted by address (",
                           Hex(loads_[i].header.p_vaddr), " after [", Hex(loads_[i - 1].header.p_vaddr), ", ",
                           Hex(loads_[i - 1].end()), "))"),
                    Where(loads_[i]), kCorrupt);
    }
  }
  return absl::OkStatus();
}

absl::Status Checker::CheckStack() const {
  const Segment* stack = nullptr;
  for (const Segment& s : segments_) {
    if (s.header.p_type == PT_GNU_STACK) stack = &s;
  }
  if (stack == nullptr) {
    return Refuse("has no PT_GNU_STACK, so glibc would make every thread's stack executable",
                  "program headers", kWritableCode);
  }
  if ((stack->header.p_flags & PF_X) != 0) {
    return Refuse("asks for an executable stack (PT_GNU_STACK with PF_X)", Where(*stack), kWritableCode);
  }
  return absl::OkStatus();
}

absl::Status Checker::CheckRelro(const Segment& s) const {
  // ld.so makes these pages read-only after relocating: they must be the
  // module's own.
  const Segment* load = LoadAt(s.header.p_vaddr);
  if (load == nullptr || !Fits(s.header.p_vaddr, s.header.p_memsz, PageUp(load->end()))) {
    return Refuse(StrCat("has a PT_GNU_RELRO at [", Hex(s.header.p_vaddr), ", +", Hex(s.header.p_memsz),
                         ") outside the pages of its PT_LOADs"),
                  Where(s), kCorrupt);
  }
  return absl::OkStatus();
}

// One segment of each kind but PT_LOAD, PT_NOTE and PT_NULL: ld.so uses the
// last of a kind, this check would read the first.
absl::Status Checker::CheckOtherSegments() {
  std::set<uint32_t> seen;
  for (const Segment& s : segments_) {
    const uint32_t type = s.header.p_type;
    if (type == PT_LOAD || type == PT_NOTE || type == PT_NULL) continue;
    if (!seen.insert(type).second) {
      return Refuse(StrCat("has a second ", SegmentName(type)), Where(s), kCorrupt);
    }
    if (type == PT_GNU_RELRO) RETURN_IF_ERROR(CheckRelro(s));
    if (type == PT_DYNAMIC) dynamic_segment_ = &s;
  }
  if (dynamic_segment_ == nullptr) return Refuse("has no PT_DYNAMIC", "program headers", kCorrupt);
  for (const Segment& s : segments_) RETURN_IF_ERROR(CheckMapped(s));
  return absl::OkStatus();
}

// ld.so and unwinders read PT_DYNAMIC, PT_PHDR, PT_NOTE, PT_GNU_EH_FRAME and
// PT_GNU_PROPERTY at their address, this check at their offset: both must
// be the same bytes.
absl::Status Checker::CheckMapped(const Segment& s) const {
  const Elf64_Phdr& h = s.header;
  if (h.p_type == PT_LOAD || h.p_type == PT_NULL || h.p_type == PT_GNU_STACK) return absl::OkStatus();
  const bool is_table = h.p_type == PT_DYNAMIC || h.p_type == PT_PHDR;
  if (h.p_filesz == 0 && !is_table) return absl::OkStatus();
  bool same = h.p_filesz != 0 && FileOffsetOf(h.p_vaddr, h.p_filesz) == h.p_offset;
  if (h.p_type == PT_PHDR) {
    same =
        same && h.p_offset == header_.e_phoff && h.p_filesz == uint64_t{header_.e_phnum} * sizeof(Elf64_Phdr);
  }
  if (same) return absl::OkStatus();
  return Refuse(StrCat("has a ", SegmentName(h.p_type), " of ", h.p_filesz, " bytes whose bytes at offset ",
                       Hex(h.p_offset), " are not those loaded at its address ", Hex(h.p_vaddr)),
                Where(s), kCorrupt);
}

absl::Status Checker::ReadDynamic() {
  const Elf64_Phdr& h = dynamic_segment_->header;
  const uint64_t count = h.p_filesz / sizeof(Elf64_Dyn);
  for (uint64_t i = 0; i < count; ++i) {
    const Elf64_Dyn d = Read<Elf64_Dyn>(h.p_offset + i * sizeof(Elf64_Dyn));
    if (d.d_tag == DT_NULL) return absl::OkStatus();
    dynamic_.push_back({d.d_tag, d.d_un.d_val, i});
  }
  return Refuse("has no DT_NULL inside its dynamic segment (ld.so would read past it)",
                Where(*dynamic_segment_), kCorrupt);
}

// ", 1 entry" for an array tag whose size tag is present, else "".
std::string Checker::Entries(const TagRule& rule) const {
  const DynamicEntry* size = rule.size_tag == DT_NULL ? nullptr : Entry(rule.size_tag);
  if (size == nullptr) return "";
  const uint64_t n = size->value / sizeof(Elf64_Addr);
  return StrCat(", ", n, n == 1 ? " entry" : " entries");
}

absl::Status Checker::CheckTags() const {
  std::set<int64_t> seen;
  for (const DynamicEntry& e : dynamic_) {
    const TagRule* rule = FindTag(e.tag);
    if (rule == nullptr) {
      return Refuse(
          StrCat("has dynamic tag ", Hex(static_cast<uint64_t>(e.tag)), ", which this runtime does not know"),
          Where(e), kUnknown);
    }
    if (rule->refusal != nullptr) {
      return Refuse(StrCat(rule->refusal, " (", rule->name, Entries(*rule), ")"), Where(e), rule->advice);
    }
    // ld.so keeps the last entry of a tag, this check reads the first.
    if (e.tag != DT_NEEDED && !seen.insert(e.tag).second) {
      return Refuse(StrCat("has ", rule->name, " twice"), Where(e), kCorrupt);
    }
  }
  return absl::OkStatus();
}

absl::Status Checker::CheckTagValues() const {
  if (const DynamicEntry* flags = Entry(DT_FLAGS); flags != nullptr && (flags->value & DF_TEXTREL) != 0) {
    return Refuse("has text relocations (DF_TEXTREL in DT_FLAGS)", Where(*flags), kWritableCode);
  }
  struct Fixed {
    int64_t tag;
    uint64_t value;
  };
  constexpr Fixed kFixed[] = {
      {DT_SYMENT, sizeof(Elf64_Sym)}, {DT_RELAENT, sizeof(Elf64_Rela)}, {DT_PLTREL, DT_RELA}};
  for (const Fixed& f : kFixed) {
    const DynamicEntry* e = Entry(f.tag);
    if (e != nullptr && e->value != f.value) {
      return Refuse(StrCat("has ", FindTag(f.tag)->name, " ", e->value, " (only ", f.value, " is accepted)"),
                    Where(*e), kUnknown);
    }
  }
  return absl::OkStatus();
}

absl::Status Checker::ReadStrings() {
  const DynamicEntry* address = Entry(DT_STRTAB);
  const DynamicEntry* size = Entry(DT_STRSZ);
  if (address == nullptr || size == nullptr) {
    return Refuse("has no dynamic string table (DT_STRTAB, DT_STRSZ)", "dynamic section", kCorrupt);
  }
  const std::optional<uint64_t> offset = FileOffsetOf(address->value, size->value);
  if (!offset.has_value() || size->value == 0) {
    return Refuse(StrCat("has a string table of ", size->value, " bytes at ", Hex(address->value),
                         " outside the file bytes of its PT_LOADs"),
                  Where(*address), kCorrupt);
  }
  strings_ = bytes_.substr(*offset, size->value);
  strings_end_ = TerminatedEnd(strings_);
  return absl::OkStatus();
}

absl::Status Checker::CheckLibraries() const {
  for (const DynamicEntry& e : dynamic_) {
    if (e.tag != DT_NEEDED && e.tag != DT_SONAME) continue;
    if (!IsName(e.value)) {
      return Refuse(StrCat("has a ", FindTag(e.tag)->name, " name at string offset ", e.value,
                           " outside the string table"),
                    Where(e), kCorrupt);
    }
    const std::optional<absl::string_view> name = StringAt(strings_, e.value, sizeof("libc.so.6"));
    if (e.tag == DT_NEEDED && !(name.has_value() && IsAllowedLibrary(*name))) {
      return Refuse(StrCat("needs the library ", Shown(strings_, e.value), " (DT_NEEDED)"), Where(e),
                    kOtherLibraries);
    }
  }
  return absl::OkStatus();
}

absl::Status Checker::CountSymbols() {
  const std::optional<uint64_t> symtab = Value(DT_SYMTAB);
  const std::optional<uint64_t> hash = Value(DT_HASH);
  const std::optional<uint64_t> gnu_hash = Value(DT_GNU_HASH);
  if (!symtab.has_value() || (!hash.has_value() && !gnu_hash.has_value())) {
    return Refuse("has no dynamic symbol table with a hash table (DT_SYMTAB; DT_HASH or DT_GNU_HASH)",
                  "dynamic section", kCorrupt);
  }
  uint64_t from_hash = 0;
  uint64_t from_gnu_hash = 0;
  if (hash.has_value()) RETURN_IF_ERROR(CountHashSymbols(*hash, &from_hash));
  if (gnu_hash.has_value()) RETURN_IF_ERROR(CountGnuHashSymbols(*gnu_hash, &from_gnu_hash));
  // Either table may be the one ld.so reads: check every symbol of both.
  num_symbols_ = std::max(from_hash, from_gnu_hash);
  const std::optional<uint64_t> offset = FileOffsetOf(*symtab, num_symbols_ * sizeof(Elf64_Sym));
  if (!offset.has_value()) {
    return Refuse(StrCat("has a table of ", num_symbols_, " dynamic symbols at ", Hex(*symtab),
                         " outside the file bytes of its PT_LOADs"),
                  "DT_SYMTAB", kCorrupt);
  }
  symbols_offset_ = *offset;
  return absl::OkStatus();
}

// DT_HASH: nbucket, nchain, the buckets, the chains (4 bytes each). ld.so
// follows a chain until index 0 and divides by nbucket.
absl::Status Checker::CountHashSymbols(uint64_t address, uint64_t* count) const {
  std::optional<uint64_t> offset = FileOffsetOf(address, 8);
  uint64_t nbucket = 0;
  uint64_t nchain = 0;
  if (offset.has_value()) {
    nbucket = Read<uint32_t>(*offset);
    nchain = Read<uint32_t>(*offset + 4);
    offset = FileOffsetOf(address, 8 + 4 * (nbucket + nchain));
  }
  if (!offset.has_value() || nbucket == 0) {
    return Refuse(StrCat("has a DT_HASH table at ", Hex(address),
                         " without buckets or outside the file bytes of its PT_LOADs"),
                  "DT_HASH", kCorrupt);
  }
  *count = nchain;
  return CheckHashChains(*offset + 8, nbucket, nchain);
}

// Every chain stays below nchain and no symbol is on two chains (so no
// chain loops).
absl::Status Checker::CheckHashChains(uint64_t buckets, uint64_t nbucket, uint64_t nchain) const {
  const uint64_t chains = buckets + 4 * nbucket;
  std::vector<bool> seen(nchain);
  for (uint64_t b = 0; b < nbucket; ++b) {
    for (uint64_t i = Read<uint32_t>(buckets + 4 * b); i != STN_UNDEF; i = Read<uint32_t>(chains + 4 * i)) {
      if (i >= nchain || seen[i]) {
        return Refuse(StrCat("has a DT_HASH chain through symbol ", i, " of ", nchain,
                             " that leaves the table or loops"),
                      StrCat("DT_HASH bucket ", b), kCorrupt);
      }
      seen[i] = true;
    }
  }
  return absl::OkStatus();
}

// DT_GNU_HASH: nbuckets, symoffset, bloom_size, bloom_shift, the bloom words
// (8 bytes each), the buckets, then a word per symbol from symoffset on, the
// last of each chain with bit 0 set. ld.so divides by nbuckets and masks
// with bloom_size - 1.
absl::Status Checker::CountGnuHashSymbols(uint64_t address, uint64_t* count) const {
  const std::optional<uint64_t> header = FileOffsetOf(address, 16);
  const uint64_t nbuckets = header.has_value() ? Read<uint32_t>(*header) : 0;
  const uint64_t symoffset = header.has_value() ? Read<uint32_t>(*header + 4) : 0;
  const uint64_t bloom_size = header.has_value() ? Read<uint32_t>(*header + 8) : 0;
  const uint64_t buckets_address = address + 16 + 8 * bloom_size;
  const std::optional<uint64_t> buckets = FileOffsetOf(buckets_address, 4 * nbuckets);
  if (!buckets.has_value() || nbuckets == 0 || !IsPowerOfTwo(bloom_size)) {
    return Refuse(
        StrCat("has a DT_GNU_HASH table at ", Hex(address), " without buckets, with a bloom filter of ",
               bloom_size, " words, or outside the file bytes of its PT_LOADs"),
        "DT_GNU_HASH", kCorrupt);
  }
  uint64_t last = 0;  // the highest first symbol of a chain
  for (uint64_t b = 0; b < nbuckets; ++b) {
    const uint64_t first = Read<uint32_t>(*buckets + 4 * b);
    if (first != 0 && first < symoffset) {
      return Refuse(
          StrCat("has a DT_GNU_HASH bucket starting at symbol ", first, " below symoffset ", symoffset),
          StrCat("DT_GNU_HASH bucket ", b), kCorrupt);
    }
    last = std::max(last, first);
  }
  *count = symoffset;
  if (last == 0) return absl::OkStatus();
  const uint64_t chains_address = buckets_address + 4 * nbuckets;
  for (uint64_t i = last;; ++i) {  // ends: every step reads 4 more bytes of the file
    const std::optional<uint64_t> word = FileOffsetOf(chains_address + 4 * (i - symoffset), 4);
    if (!word.has_value()) {
      return Refuse("has a DT_GNU_HASH chain that runs past the file bytes of its PT_LOADs", "DT_GNU_HASH",
                    kCorrupt);
    }
    if ((Read<uint32_t>(*word) & 1) != 0) {
      *count = i + 1;
      return absl::OkStatus();
    }
  }
}

absl::Status Checker::CheckSymbols() const {
  for (uint64_t i = 0; i < num_symbols_; ++i) {
    RETURN_IF_ERROR(CheckSymbol(Read<Elf64_Sym>(symbols_offset_ + i * sizeof(Elf64_Sym)), i));
  }
  return absl::OkStatus();
}

absl::Status Checker::CheckSymbol(const Elf64_Sym& sym, uint64_t index) const {
  if (!IsName(sym.st_name)) {
    return Refuse(StrCat("has a symbol name at string offset ", sym.st_name, " outside the string table"),
                  StrCat("dynamic symbol ", index), kCorrupt);
  }
  auto where = [&] { return StrCat("dynamic symbol ", index, " '", Shown(strings_, sym.st_name), "'"); };
  const unsigned type = ELF64_ST_TYPE(sym.st_info);
  const unsigned bind = ELF64_ST_BIND(sym.st_info);
  if (type == STT_GNU_IFUNC) {
    return Refuse("has an IFUNC symbol (STT_GNU_IFUNC), whose resolver ld.so would run while loading",
                  where(), kCodeAtLoad);
  }
  if (type == STT_TLS) return Refuse("has a thread-local symbol (STT_TLS)", where(), kUnknown);
  if (bind != STB_LOCAL && bind != STB_GLOBAL && bind != STB_WEAK) {
    return Refuse(StrCat("has a symbol of binding ", bind, " (only local, global and weak are accepted)"),
                  where(), kUnknown);
  }
  const unsigned visibility = ELF64_ST_VISIBILITY(sym.st_other);
  const bool exported = sym.st_shndx != SHN_UNDEF && bind != STB_LOCAL &&
                        (visibility == STV_DEFAULT || visibility == STV_PROTECTED);
  if (exported && rules_.allowed_exports != nullptr && !IsAllowedExport(sym)) {
    return Refuse(
        StrCat("exports '", Shown(strings_, sym.st_name), "', which is not a kernel of its artifact"),
        where(), kExtraExport);
  }
  return absl::OkStatus();
}

// Reads no more of the name than the longest allowed one.
bool Checker::IsAllowedExport(const Elf64_Sym& sym) const {
  const std::optional<absl::string_view> name = StringAt(strings_, sym.st_name, longest_export_ + 1);
  return name.has_value() && (rules_.allowed_exports->count(*name) != 0 || IsLinkerMarker(sym, *name));
}

absl::Status Checker::CheckRelocations() const {
  const RelocationTable tables[] = {{"DT_RELA", Entry(DT_RELA), Entry(DT_RELASZ)},
                                    {"DT_JMPREL", Entry(DT_JMPREL), Entry(DT_PLTRELSZ)}};
  const uint64_t relative = Value(DT_RELACOUNT).value_or(0);
  for (const RelocationTable& t : tables) {
    if ((t.address == nullptr) != (t.size == nullptr)) {
      return Refuse(StrCat("has only one of ", t.name, " and its size"), "dynamic section", kCorrupt);
    }
    if (t.address != nullptr) RETURN_IF_ERROR(CheckRelocationTable(t, &t == tables ? relative : 0));
  }
  if (relative != 0 && tables[0].address == nullptr) {
    return Refuse("has DT_RELACOUNT without DT_RELA", "dynamic section", kCorrupt);
  }
  // Lazy binding writes the first three words of the PLT's GOT.
  const std::optional<uint64_t> got = Value(DT_PLTGOT);
  if (got.has_value() && tables[1].address != nullptr && !Writable(*got, 3 * sizeof(uint64_t))) {
    return Refuse(StrCat("has a DT_PLTGOT at ", Hex(*got), " outside its writable segments"), "DT_PLTGOT",
                  kCorrupt);
  }
  return absl::OkStatus();
}

// The first `relative` entries ld.so applies as R_X86_64_RELATIVE without
// reading their type (DT_RELACOUNT).
absl::Status Checker::CheckRelocationTable(const RelocationTable& t, uint64_t relative) const {
  const std::optional<uint64_t> offset = FileOffsetOf(t.address->value, t.size->value);
  if (!offset.has_value() || t.size->value % sizeof(Elf64_Rela) != 0) {
    return Refuse(StrCat("has ", t.size->value, " bytes of ", t.name, " relocations at ",
                         Hex(t.address->value), ", not whole entries inside the file bytes of its PT_LOADs"),
                  Where(*t.address), kCorrupt);
  }
  const uint64_t count = t.size->value / sizeof(Elf64_Rela);
  if (relative > count) {
    return Refuse(StrCat("has DT_RELACOUNT ", relative, " above its ", count, " DT_RELA entries"),
                  "DT_RELACOUNT", kCorrupt);
  }
  for (uint64_t i = 0; i < count; ++i) {
    const Elf64_Rela r = Read<Elf64_Rela>(*offset + i * sizeof(Elf64_Rela));
    RETURN_IF_ERROR(CheckRelocation(r, StrCat(t.name, " entry ", i), i < relative));
  }
  return absl::OkStatus();
}

absl::Status Checker::CheckRelocation(const Elf64_Rela& r, absl::string_view where, bool relative) const {
  const uint64_t type = ELF64_R_TYPE(r.r_info);
  const uint64_t symbol = ELF64_R_SYM(r.r_info);
  if (type == R_X86_64_IRELATIVE) {
    return Refuse(
        "has an IRELATIVE relocation (R_X86_64_IRELATIVE), whose resolver ld.so would run while loading",
        where, kCodeAtLoad);
  }
  if (!IsAllowedRelocation(type) || (relative && type != R_X86_64_RELATIVE)) {
    return Refuse(StrCat("has relocation type ", type, relative ? " inside DT_RELACOUNT" : "",
                         ", which this runtime does not accept"),
                  where, kUnknown);
  }
  if (symbol >= num_symbols_) {
    return Refuse(StrCat("has a relocation against symbol ", symbol, " of ", num_symbols_), where, kCorrupt);
  }
  if (!Writable(r.r_offset, sizeof(uint64_t))) {
    return Refuse(StrCat("has a relocation writing at ", Hex(r.r_offset), ", outside its writable segments"),
                  where, kWritableCode);
  }
  return absl::OkStatus();
}

absl::Status Checker::CheckSections() const {
  if (header_.e_shoff == 0 && header_.e_shnum == 0) return absl::OkStatus();  // they are optional
  const uint64_t table = uint64_t{header_.e_shnum} * sizeof(Elf64_Shdr);
  if (header_.e_shentsize != sizeof(Elf64_Shdr) || header_.e_shnum == 0 ||
      !Fits(header_.e_shoff, table, bytes_.size()) || header_.e_shstrndx >= header_.e_shnum) {
    return Refuse(StrCat("has a section header table (", header_.e_shnum, " entries of ", header_.e_shentsize,
                         " bytes at offset ", header_.e_shoff, ", names in section ", header_.e_shstrndx,
                         ") that does not fit its ", bytes_.size(), " bytes"),
                  "e_shoff, e_shnum, e_shentsize, e_shstrndx", kCorrupt);
  }
  const Elf64_Shdr names = Read<Elf64_Shdr>(header_.e_shoff + sizeof(Elf64_Shdr) * header_.e_shstrndx);
  if (names.sh_type == SHT_NOBITS || !Fits(names.sh_offset, names.sh_size, bytes_.size())) {
    return Refuse("has a section name table outside the file", StrCat("section ", header_.e_shstrndx),
                  kCorrupt);
  }
  const absl::string_view name_table = bytes_.substr(names.sh_offset, names.sh_size);
  const uint64_t names_end = TerminatedEnd(name_table);
  for (int i = 0; i < header_.e_shnum; ++i) {
    const Elf64_Shdr section = Read<Elf64_Shdr>(header_.e_shoff + sizeof(Elf64_Shdr) * i);
    RETURN_IF_ERROR(CheckSection(section, i, name_table, names_end));
  }
  return absl::OkStatus();
}

absl::Status Checker::CheckSection(const Elf64_Shdr& s, int index, absl::string_view names,
                                   uint64_t names_end) const {
  if (s.sh_name >= names_end) {
    return Refuse(StrCat("has a section name at offset ", s.sh_name, " outside the section name table"),
                  StrCat("section ", index), kCorrupt);
  }
  // Long enough for every name of kSectionRules, and no longer.
  const absl::string_view name = StringAt(names, s.sh_name, sizeof(".preinit_array") + 1).value_or("");
  const std::string where = StrCat("section ", index, " '", Shown(names, s.sh_name), "'");
  if (s.sh_type != SHT_NOBITS && s.sh_type != SHT_NULL && !Fits(s.sh_offset, s.sh_size, bytes_.size())) {
    return Refuse(StrCat("has a section of ", s.sh_size, " bytes at offset ", s.sh_offset,
                         " past the end of its ", bytes_.size(), " bytes"),
                  where, kCorrupt);
  }
  for (const SectionRule& rule : kSectionRules) {
    if (name == rule.name || (rule.type != SHT_NULL && s.sh_type == rule.type)) {
      return Refuse(rule.refusal, where, kCodeAtLoad);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckHostSharedObject(absl::string_view bytes, absl::string_view what,
                                   const HostObjectRules& rules) {
  return Checker(bytes, what, rules).Run();
}

}  // namespace stream_executor::host
