// CheckHostSharedObject against real compiler output (accepted), shared
// objects the toolchain builds with one refused feature each, and compiler
// output edited one field at a time; truncations at every length; and
// HostKernelModule::Load refusing before dlopen.
#include "xla/stream_executor/host/host_object_check.h"

#include <dlfcn.h>
#include <elf.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/stream_executor/host/elf_test_util.h"
#include "xla/stream_executor/host/host_kernel_module.h"
#include "xla/stream_executor/host/test_kernel_files.h"

namespace stream_executor::host {
namespace {

using Exports = std::set<std::string, std::less<>>;

constexpr char kWhat[] = "payload.host_shared_object";
constexpr char kMlp[] = "golden_mlp_v1.so";  // has PLT relocations
constexpr const char* kGolden[] = {"golden_mlp_v1.so", "golden_softmax_v4_variant.so",
                                   "golden_all_reduce_2dev_v3.so"};

std::string Module(const std::string& file) {
  absl::StatusOr<std::string> bytes = ReadTestKernelFile("testdata/" + file);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : "";
}

// The names of the defined global dynamic symbols.
Exports ExportsOf(const std::string& bytes) {
  ElfEditor elf(bytes);
  Exports names;
  for (int i = 1; i < elf.num_symbols(); ++i) {
    if (elf.symbol(i).st_shndx != SHN_UNDEF) names.insert(elf.symbol_name(i));
  }
  return names;
}

absl::Status Check(const std::string& bytes, const Exports* exports = nullptr) {
  HostObjectRules rules;
  rules.allowed_exports = exports;
  return CheckHostSharedObject(bytes, kWhat, rules);
}

// Expects InvalidArgument "payload.host_shared_object: ...<finding>...;".
void ExpectRefused(const absl::Status& status, absl::string_view finding, absl::string_view context) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << context << ": " << status;
  EXPECT_TRUE(absl::StartsWith(status.message(), absl::StrCat(kWhat, ": "))) << context << ": " << status;
  EXPECT_TRUE(absl::StrContains(status.message(), finding)) << context << ": " << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "recompile the artifact with xla_aot compile"))
      << context << ": " << status;
}

TEST(CheckHostSharedObject, CompilerOutputPasses) {
  for (const char* file : kGolden) {
    const std::string bytes = Module(file);
    const Exports exports = ExportsOf(bytes);
    EXPECT_FALSE(exports.empty()) << file;
    EXPECT_TRUE(Check(bytes).ok()) << file << ": " << Check(bytes);
    EXPECT_TRUE(Check(bytes, &exports).ok()) << file << ": " << Check(bytes, &exports);
  }
}

TEST(CheckHostSharedObject, TestModulesLinkedWithoutCrtFilesPass) {
  for (const char* file :
       {"testdata/kernel.so", "testdata/extra_export.so", "testdata/relocations.so", "libtest_kernels.so"}) {
    absl::StatusOr<std::string> bytes = ReadTestKernelFile(file);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_TRUE(Check(*bytes).ok()) << file << ": " << Check(*bytes);
  }
}

TEST(CheckHostSharedObject, AnExportOutsideTheKernelTableIsRefused) {
  const Exports kernels = {"xla_fusion"};
  EXPECT_TRUE(Check(Module("kernel.so"), &kernels).ok());
  ExpectRefused(Check(Module("extra_export.so"), &kernels),
                "exports 'xla_hostile_helper', which is not a kernel of its artifact", "extra_export.so");
  // Compiler output whose kernel table lacks one of its kernels.
  ExpectRefused(Check(Module("golden_mlp_v1.so"), &kernels), "exports 'xla_fusion_1'", "mlp");
  const Exports none;
  ExpectRefused(Check(Module("kernel.so"), &none), "exports 'xla_fusion'", "no kernels");
}

// Shared objects built by the toolchain, each with one refused feature
// (testdata/BUILD).
TEST(CheckHostSharedObject, ToolchainBuiltObjectsWithARefusedFeature) {
  const struct {
    const char* file;
    const char* finding;
  } kCases[] = {
      {"constructor.so", "has an initializer (DT_INIT_ARRAY, 1 entry)"},
      {"destructor.so", "has a finalizer (DT_FINI_ARRAY, 1 entry)"},
      {"execstack.so", "asks for an executable stack (PT_GNU_STACK with PF_X)"},
      {"needs_libz.so", "needs the library libz.so.1 (DT_NEEDED)"},
      {"runpath.so", "has a library search path"},
      {"ifunc.so", "has an IFUNC symbol (STT_GNU_IFUNC)"},
      {"text_relocation.so", "has text relocations"},
      {"thread_local.so", "has thread-local storage (PT_TLS)"},
  };
  for (const auto& c : kCases) ExpectRefused(Check(Module(c.file)), c.finding, c.file);
  const absl::Status s = Check(Module("constructor.so"));
  EXPECT_TRUE(absl::StrContains(s.message(), "a host kernel module may not run code when it is loaded")) << s;
}

// One field of a good object, edited.
struct Edit {
  const char* name;
  const char* file;
  std::function<void(ElfEditor&)> edit;
  const char* finding;
};

// Replaces the DT_FLAGS_1 entry (every lld output has one) with `entry`.
void ReplaceFlags1(ElfEditor& elf, Elf64_Dyn entry) { elf.set_dynamic(elf.FindDynamic(DT_FLAGS_1), entry); }

void EditSegment(ElfEditor& elf, int index, const std::function<void(Elf64_Phdr&)>& edit) {
  Elf64_Phdr p = elf.segment(index);
  edit(p);
  elf.set_segment(index, p);
}

void EditHeader(ElfEditor& elf, const std::function<void(Elf64_Ehdr&)>& edit) {
  Elf64_Ehdr h = elf.header();
  edit(h);
  elf.set_header(h);
}

void EditSymbol(ElfEditor& elf, const char* name, const std::function<void(Elf64_Sym&)>& edit) {
  const int i = elf.FindSymbol(name);
  Elf64_Sym s = elf.symbol(i);
  edit(s);
  elf.set_symbol(i, s);
}

void EditPltRelocation(ElfEditor& elf, const std::function<void(Elf64_Rela&)>& edit) {
  Elf64_Rela r = elf.relocation(".rela.plt", 0);
  edit(r);
  elf.set_relocation(".rela.plt", 0, r);
}

void SetDynamicValue(ElfEditor& elf, int64_t tag, uint64_t value) {
  elf.set_dynamic(elf.FindDynamic(tag), Elf64_Dyn{tag, {value}});
}

std::vector<Edit> HeaderAndSegmentEdits() {
  return {
      {"magic", kMlp, [](ElfEditor& e) { e.Put<char>(1, 'X'); }, "is not an ELF file"},
      {"32-bit", kMlp, [](ElfEditor& e) { e.Put<char>(EI_CLASS, ELFCLASS32); }, "little-endian 64-bit"},
      {"big-endian", kMlp, [](ElfEditor& e) { e.Put<char>(EI_DATA, ELFDATA2MSB); }, "little-endian 64-bit"},
      {"executable", kMlp, [](ElfEditor& e) { EditHeader(e, [](Elf64_Ehdr& h) { h.e_type = ET_EXEC; }); },
       "is not a shared object"},
      {"aarch64", kMlp, [](ElfEditor& e) { EditHeader(e, [](Elf64_Ehdr& h) { h.e_machine = EM_AARCH64; }); },
       "is not for x86-64"},
      {"phentsize", kMlp, [](ElfEditor& e) { EditHeader(e, [](Elf64_Ehdr& h) { h.e_phentsize = 48; }); },
       "header sizes"},
      {"program headers past the end", kMlp,
       [](ElfEditor& e) {
         const uint64_t size = e.bytes().size();
         EditHeader(e, [size](Elf64_Ehdr& h) { h.e_phoff = size - 100; });
       },
       "program header table"},
      {"PT_LOAD past the end", kMlp,
       [](ElfEditor& e) {
         EditSegment(e, e.Load(2), [](Elf64_Phdr& p) { p.p_filesz = p.p_memsz = 1 << 20; });
       },
       "run past the end"},
      {"filesz > memsz", kMlp,
       [](ElfEditor& e) { EditSegment(e, e.Load(1), [](Elf64_Phdr& p) { p.p_filesz = p.p_memsz + 1; }); },
       "file bytes but only"},
      {"PT_LOADs overlap", kMlp,
       [](ElfEditor& e) { EditSegment(e, e.Load(2), [](Elf64_Phdr& p) { p.p_vaddr -= 0x1000; }); },
       "overlap, share a page or are not sorted"},
      {"offset and address disagree", kMlp,
       [](ElfEditor& e) { EditSegment(e, e.Load(1), [](Elf64_Phdr& p) { p.p_offset += 8; }); },
       "disagree modulo"},
      {"beyond 4 GiB", kMlp,
       [](ElfEditor& e) { EditSegment(e, e.Load(2), [](Elf64_Phdr& p) { p.p_vaddr += uint64_t{8} << 30; }); },
       "beyond 4 GiB"},
      {"writable code", kMlp,
       [](ElfEditor& e) { EditSegment(e, e.Load(1), [](Elf64_Phdr& p) { p.p_flags |= PF_W; }); },
       "both writable and executable"},
      {"executable stack", kMlp,
       [](ElfEditor& e) {
         EditSegment(e, e.FindSegment(PT_GNU_STACK), [](Elf64_Phdr& p) { p.p_flags |= PF_X; });
       },
       "executable stack"},
      {"no PT_GNU_STACK", kMlp,
       [](ElfEditor& e) {
         EditSegment(e, e.FindSegment(PT_GNU_STACK), [](Elf64_Phdr& p) { p.p_type = PT_NULL; });
       },
       "has no PT_GNU_STACK"},
      {"PT_INTERP", kMlp,
       [](ElfEditor& e) {
         EditSegment(e, e.FindSegment(PT_GNU_RELRO), [](Elf64_Phdr& p) { p.p_type = PT_INTERP; });
       },
       "names a program interpreter (PT_INTERP)"},
      {"unknown segment type", kMlp,
       [](ElfEditor& e) {
         EditSegment(e, e.FindSegment(PT_GNU_RELRO), [](Elf64_Phdr& p) { p.p_type = 0x60000001; });
       },
       "program header type 0x60000001"},
      {"second PT_DYNAMIC", kMlp,
       [](ElfEditor& e) {
         EditSegment(e, e.FindSegment(PT_GNU_RELRO), [](Elf64_Phdr& p) { p.p_type = PT_DYNAMIC; });
       },
       "has a second PT_DYNAMIC"},
      {"no PT_DYNAMIC", kMlp,
       [](ElfEditor& e) {
         EditSegment(e, e.FindSegment(PT_DYNAMIC), [](Elf64_Phdr& p) { p.p_type = PT_NULL; });
       },
       "has no PT_DYNAMIC"},
      {"dynamic outside a PT_LOAD", kMlp,
       [](ElfEditor& e) {
         EditSegment(e, e.FindSegment(PT_DYNAMIC), [](Elf64_Phdr& p) { p.p_vaddr += 0x10000; });
       },
       "are not those loaded at its address"},
      {"PT_PHDR elsewhere", kMlp,
       [](ElfEditor& e) {
         EditSegment(e, e.FindSegment(PT_PHDR), [](Elf64_Phdr& p) { p.p_vaddr += 0x100; });
       },
       "has a PT_PHDR"},
      {"PT_GNU_RELRO outside", kMlp,
       [](ElfEditor& e) {
         EditSegment(e, e.FindSegment(PT_GNU_RELRO), [](Elf64_Phdr& p) { p.p_memsz += 0x100000; });
       },
       "PT_GNU_RELRO"},
  };
}

std::vector<Edit> DynamicEdits() {
  return {
      {"no DT_NULL", kMlp,
       [](ElfEditor& e) {
         e.set_dynamic(e.FindDynamic(DT_NULL), {DT_DEBUG, {0}});
       },
       "has no DT_NULL"},
      {"unknown tag", kMlp,
       [](ElfEditor& e) {
         ReplaceFlags1(e, {0x6ffff123, {0}});
       },
       "has dynamic tag 0x6ffff123, which this runtime does not know"},
      {"DT_TEXTREL", kMlp,
       [](ElfEditor& e) {
         ReplaceFlags1(e, {DT_TEXTREL, {0}});
       },
       "has text relocations (ld.so"},
      {"DF_TEXTREL", kMlp, [](ElfEditor& e) { SetDynamicValue(e, DT_FLAGS, DF_BIND_NOW | DF_TEXTREL); },
       "text relocations (DF_TEXTREL in DT_FLAGS)"},
      {"DT_INIT", kMlp,
       [](ElfEditor& e) {
         ReplaceFlags1(e, {DT_INIT, {0x1400}});
       },
       "has an initializer (DT_INIT)"},
      {"DT_PREINIT_ARRAY", kMlp,
       [](ElfEditor& e) {
         ReplaceFlags1(e, {DT_PREINIT_ARRAY, {0x2c30}});
       },
       "has an initializer (DT_PREINIT_ARRAY)"},
      {"DT_FINI", kMlp,
       [](ElfEditor& e) {
         ReplaceFlags1(e, {DT_FINI, {0x1400}});
       },
       "has a finalizer (DT_FINI)"},
      {"DT_NEEDED", kMlp,
       [](ElfEditor& e) {
         ReplaceFlags1(e, {DT_NEEDED, {1}});
       },
       "needs the library exp (DT_NEEDED)"},
      {"DT_NEEDED outside", kMlp,
       [](ElfEditor& e) {
         ReplaceFlags1(e, {DT_NEEDED, {1000}});
       },
       "outside the string table"},
      {"DT_RPATH", kMlp,
       [](ElfEditor& e) {
         ReplaceFlags1(e, {DT_RPATH, {1}});
       },
       "library search path (DT_RPATH)"},
      {"DT_AUDIT", kMlp,
       [](ElfEditor& e) {
         ReplaceFlags1(e, {DT_AUDIT, {1}});
       },
       "audit library"},
      {"DT_FILTER", kMlp,
       [](ElfEditor& e) {
         ReplaceFlags1(e, {DT_FILTER, {1}});
       },
       "filter of another library"},
      {"DT_REL", kMlp,
       [](ElfEditor& e) {
         ReplaceFlags1(e, {DT_REL, {0x2b8}});
       },
       "has DT_REL relocations"},
      {"DT_RELR", kMlp,
       [](ElfEditor& e) {
         ReplaceFlags1(e, {DT_RELR, {0x2b8}});
       },
       "packed DT_RELR relocations"},
      {"DT_VERNEED", kMlp,
       [](ElfEditor& e) {
         ReplaceFlags1(e, {DT_VERNEED, {0x2b8}});
       },
       "symbol version tables"},
      {"tag twice", kMlp,
       [](ElfEditor& e) {
         ReplaceFlags1(e, {DT_FLAGS, {DF_BIND_NOW}});
       },
       "has DT_FLAGS twice"},
      {"DT_PLTREL = DT_REL", kMlp, [](ElfEditor& e) { SetDynamicValue(e, DT_PLTREL, DT_REL); },
       "has DT_PLTREL 17 (only 7 is accepted)"},
      {"DT_SYMENT", kMlp, [](ElfEditor& e) { SetDynamicValue(e, DT_SYMENT, 16); }, "has DT_SYMENT 16"},
      {"no DT_STRTAB", kMlp,
       [](ElfEditor& e) {
         e.set_dynamic(e.FindDynamic(DT_STRTAB), {DT_DEBUG, {0}});
       },
       "has no dynamic string table"},
      {"string table outside", kMlp, [](ElfEditor& e) { SetDynamicValue(e, DT_STRSZ, 1 << 20); },
       "string table of 1048576 bytes"},
      {"no hash table", kMlp,
       [](ElfEditor& e) {
         e.set_dynamic(e.FindDynamic(DT_HASH), {DT_DEBUG, {0}});
         e.set_dynamic(e.FindDynamic(DT_GNU_HASH), {DT_BIND_NOW, {0}});
       },
       "has no dynamic symbol table with a hash table"},
  };
}

std::vector<Edit> SymbolAndRelocationEdits() {
  const uint64_t kHash = 0x264;  // DT_HASH of golden_mlp_v1.so (readelf -d)
  const uint64_t kGnuHash = 0x240;
  return {
      {"IFUNC symbol", kMlp,
       [](ElfEditor& e) {
         EditSymbol(e, "xla_fusion",
                    [](Elf64_Sym& s) { s.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_GNU_IFUNC); });
       },
       "IFUNC symbol (STT_GNU_IFUNC), whose resolver ld.so would run while loading (dynamic symbol 4 "
       "'xla_fusion')"},
      {"TLS symbol", kMlp,
       [](ElfEditor& e) {
         EditSymbol(e, "xla_fusion", [](Elf64_Sym& s) { s.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_TLS); });
       },
       "thread-local symbol"},
      {"unique symbol", kMlp,
       [](ElfEditor& e) {
         EditSymbol(e, "xla_fusion",
                    [](Elf64_Sym& s) { s.st_info = ELF64_ST_INFO(STB_GNU_UNIQUE, STT_FUNC); });
       },
       "symbol of binding 10"},
      {"symbol name outside", kMlp,
       [](ElfEditor& e) { EditSymbol(e, "xla_fusion", [](Elf64_Sym& s) { s.st_name = 100000; }); },
       "symbol name at string offset 100000 outside the string table"},
      {"DT_HASH past the end", kMlp, [kHash](ElfEditor& e) { e.Put<uint32_t>(kHash + 4, 1 << 28); },
       "DT_HASH table"},
      {"DT_HASH without buckets", kMlp, [kHash](ElfEditor& e) { e.Put<uint32_t>(kHash, 0); },
       "DT_HASH table"},
      {"DT_HASH chain loops", kMlp,
       [kHash](ElfEditor& e) {
         const uint32_t nbucket = e.Get<uint32_t>(kHash);
         e.Put<uint32_t>(kHash + 8, 3);                        // bucket 0 -> symbol 3
         e.Put<uint32_t>(kHash + 8 + 4 * nbucket + 4 * 3, 3);  // chain[3] -> 3
       },
       "loops"},
      {"DT_GNU_HASH without buckets", kMlp, [kGnuHash](ElfEditor& e) { e.Put<uint32_t>(kGnuHash, 0); },
       "DT_GNU_HASH table"},
      {"DT_GNU_HASH bloom", kMlp, [kGnuHash](ElfEditor& e) { e.Put<uint32_t>(kGnuHash + 8, 3); },
       "bloom filter of 3 words"},
      {"DT_GNU_HASH bucket below symoffset", kMlp,
       [kGnuHash](ElfEditor& e) { e.Put<uint32_t>(kGnuHash + 16 + 8 * e.Get<uint32_t>(kGnuHash + 8), 1); },
       "below symoffset"},
      {"relocation outside writable", kMlp,
       [](ElfEditor& e) { EditPltRelocation(e, [](Elf64_Rela& r) { r.r_offset = 0x1400; }); },
       "relocation writing at 0x1400, outside its writable segments"},
      {"relocation past the end", kMlp,
       [](ElfEditor& e) { EditPltRelocation(e, [](Elf64_Rela& r) { r.r_offset = 0x2d28; }); },
       "relocation writing at 0x2d28"},
      {"IRELATIVE", kMlp,
       [](ElfEditor& e) {
         EditPltRelocation(e, [](Elf64_Rela& r) { r.r_info = ELF64_R_INFO(0, R_X86_64_IRELATIVE); });
       },
       "IRELATIVE relocation"},
      {"copy relocation", kMlp,
       [](ElfEditor& e) {
         EditPltRelocation(e, [](Elf64_Rela& r) { r.r_info = ELF64_R_INFO(1, R_X86_64_COPY); });
       },
       "relocation type 5, which this runtime does not accept"},
      {"relocation symbol", kMlp,
       [](ElfEditor& e) {
         EditPltRelocation(e, [](Elf64_Rela& r) { r.r_info = ELF64_R_INFO(1000, R_X86_64_JUMP_SLOT); });
       },
       "relocation against symbol 1000 of 5"},
      {"relocations outside", kMlp, [](ElfEditor& e) { SetDynamicValue(e, DT_PLTRELSZ, 24 << 20); },
       "bytes of DT_JMPREL relocations"},
      {"partial relocation", kMlp, [](ElfEditor& e) { SetDynamicValue(e, DT_PLTRELSZ, 30); },
       "not whole entries"},
      {"DT_PLTGOT read-only", kMlp, [](ElfEditor& e) { SetDynamicValue(e, DT_PLTGOT, 0x1400); },
       "DT_PLTGOT at 0x1400"},
      {"DT_RELACOUNT type", "relocations.so", [](ElfEditor& e) { SetDynamicValue(e, DT_RELACOUNT, 3); },
       "relocation type 1 inside DT_RELACOUNT"},
      {"DT_RELACOUNT count", "relocations.so", [](ElfEditor& e) { SetDynamicValue(e, DT_RELACOUNT, 10); },
       "DT_RELACOUNT 10 above its 4 DT_RELA entries"},
      {"RELATIVE into code", "relocations.so",
       [](ElfEditor& e) {
         Elf64_Rela r = e.relocation(".rela.dyn", 0);
         r.r_offset = e.segment(e.Load(0)).p_vaddr + 0x100;
         e.set_relocation(".rela.dyn", 0, r);
       },
       "outside its writable segments (DT_RELA entry 0)"},
  };
}

std::vector<Edit> SectionEdits() {
  return {
      {".init_array by type", kMlp,
       [](ElfEditor& e) {
         const int i = e.FindSection(".comment");
         const uint64_t at = e.header().e_shoff + sizeof(Elf64_Shdr) * i + offsetof(Elf64_Shdr, sh_type);
         e.Put<uint32_t>(at, SHT_INIT_ARRAY);
       },
       "has an initializer section (section 11 '.comment')"},
      {".ctors by name", kMlp,
       [](ElfEditor& e) {
         const Elf64_Shdr names = e.section(".shstrtab");
         const uint64_t at = names.sh_offset + e.section(".comment").sh_name;
         const std::string name(".ctors\0\0", 8);
         for (size_t k = 0; k < name.size(); ++k) e.Put<char>(at + k, name[k]);
       },
       "has a constructor section (section 11 '.ctors')"},
      {"section table past the end", kMlp,
       [](ElfEditor& e) {
         const uint64_t size = e.bytes().size();
         EditHeader(e, [size](Elf64_Ehdr& h) { h.e_shoff = size - 64; });
       },
       "section header table"},
      {"section names", kMlp,
       [](ElfEditor& e) { EditHeader(e, [](Elf64_Ehdr& h) { h.e_shstrndx = h.e_shnum; }); },
       "section header table"},
      {"section past the end", kMlp,
       [](ElfEditor& e) {
         const uint64_t at = e.header().e_shoff + sizeof(Elf64_Shdr) * e.FindSection(".comment") +
                             offsetof(Elf64_Shdr, sh_size);
         e.Put<uint64_t>(at, 1 << 20);
       },
       "has a section of 1048576 bytes"},
  };
}

void RunEdits(const std::vector<Edit>& edits) {
  for (const Edit& e : edits) {
    ElfEditor elf(Module(e.file));
    e.edit(elf);
    ExpectRefused(Check(elf.bytes()), e.finding, e.name);
  }
}

TEST(CheckHostSharedObject, EditedHeadersAndSegments) { RunEdits(HeaderAndSegmentEdits()); }
TEST(CheckHostSharedObject, EditedDynamicTags) { RunEdits(DynamicEdits()); }
TEST(CheckHostSharedObject, EditedSymbolsAndRelocations) { RunEdits(SymbolAndRelocationEdits()); }
TEST(CheckHostSharedObject, EditedSections) { RunEdits(SectionEdits()); }

// gold exports its end markers from every shared object (and the compiler
// links with gold under XLA_HOST_LINKER=ld.gold): accepted, as long as they
// are untyped and empty.
TEST(CheckHostSharedObject, GoldsEndMarkersAreNotKernelsButAccepted) {
  const Exports kernels = {"xla_fusion"};
  ElfEditor elf(Module("kernel_gold.so"));
  ASSERT_GE(elf.FindSymbol("_end"), 0);
  ASSERT_GE(elf.FindSymbol("__bss_start"), 0);
  EXPECT_TRUE(Check(elf.bytes(), &kernels).ok()) << Check(elf.bytes(), &kernels);
  EditSymbol(elf, "_end", [](Elf64_Sym& s) { s.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC); });
  ExpectRefused(Check(elf.bytes(), &kernels), "exports '_end'", "_end as a function");
}

TEST(CheckHostSharedObject, SectionHeadersAreOptional) {
  ElfEditor elf(Module("golden_mlp_v1.so"));
  EditHeader(elf, [](Elf64_Ehdr& h) { h.e_shoff = 0, h.e_shnum = 0, h.e_shstrndx = 0; });
  EXPECT_TRUE(Check(elf.bytes()).ok()) << Check(elf.bytes());
}

// A minimal shared object written here: one RW PT_LOAD holding everything,
// PT_DYNAMIC, PT_GNU_STACK; DT_HASH with one bucket, `num_symbols` defined
// global symbols all named by the one string of `name_bytes` - 1 letters.
std::string SyntheticObject(uint32_t num_symbols, size_t name_bytes) {
  constexpr uint64_t kDynamic = sizeof(Elf64_Ehdr) + 3 * sizeof(Elf64_Phdr);
  constexpr uint64_t kHash = kDynamic + 6 * sizeof(Elf64_Dyn);
  const uint64_t symtab = (kHash + 4 * (3 + uint64_t{num_symbols}) + 7) / 8 * 8;
  const uint64_t strtab = symtab + sizeof(Elf64_Sym) * num_symbols;
  const uint64_t size = strtab + name_bytes;
  ElfEditor elf(ElfEditor(Module(kMlp)).bytes().substr(0, sizeof(Elf64_Ehdr)) +
                std::string(size - sizeof(Elf64_Ehdr), '\0'));
  EditHeader(elf, [](Elf64_Ehdr& h) { h.e_phnum = 3, h.e_shoff = 0, h.e_shnum = 0, h.e_shstrndx = 0; });
  elf.set_segment(0, Elf64_Phdr{PT_LOAD, PF_R | PF_W, 0, 0, 0, size, size, 4096});
  elf.set_segment(1, Elf64_Phdr{PT_DYNAMIC, PF_R | PF_W, kDynamic, kDynamic, kDynamic, 96, 96, 8});
  elf.set_segment(2, Elf64_Phdr{PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 0, 16});
  const Elf64_Dyn dynamic[] = {{DT_HASH, {kHash}},
                               {DT_STRTAB, {strtab}},
                               {DT_STRSZ, {name_bytes}},
                               {DT_SYMTAB, {symtab}},
                               {DT_SYMENT, {sizeof(Elf64_Sym)}},
                               {DT_NULL, {0}}};
  for (int i = 0; i < 6; ++i) elf.set_dynamic(i, dynamic[i]);
  elf.Put<uint32_t>(kHash, 1);                // nbucket; bucket 0 and every chain: 0
  elf.Put<uint32_t>(kHash + 4, num_symbols);  // nchain
  for (uint32_t i = 1; i < num_symbols; ++i) {
    elf.Put(symtab + sizeof(Elf64_Sym) * i, Elf64_Sym{0, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, 1, 0, 0});
  }
  for (size_t i = 0; i + 1 < name_bytes; ++i) elf.Put<char>(strtab + i, 'a');
  return elf.bytes();
}

// 100,000 symbols at one string of 2 MB: checking them reads no name whole
// (a scan per symbol would read 200 GB).
TEST(CheckHostSharedObject, ManySymbolsAtOneLongNameCostLinearTime) {
  const std::string bytes = SyntheticObject(100000, 2 << 20);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(Check(bytes).ok()) << Check(bytes);
  const Exports kernels = {"xla_fusion"};
  const absl::Status s = Check(bytes, &kernels);
  ExpectRefused(s, "exports 'aaaa", "long name");
  EXPECT_TRUE(absl::StrContains(s.message(), "aaa...', which is not a kernel")) << s.message().substr(0, 300);
  EXPECT_LT(s.message().size(), 600u);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
}

// Every strict prefix of a good object is refused, never read past.
TEST(CheckHostSharedObject, EveryTruncationIsRefused) {
  for (const char* file : kGolden) {
    const std::string bytes = Module(file);
    for (size_t n = 0; n < bytes.size(); ++n) {
      // A copy of exactly n bytes, so that ASan sees a read past it.
      const std::string prefix = bytes.substr(0, n);
      const absl::Status s = Check(prefix);
      ASSERT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << file << " truncated to " << n << ": " << s;
    }
  }
}

// Byte flips at every position of a good object: accepted or refused with
// InvalidArgument, never a crash or a read out of bounds.
TEST(CheckHostSharedObject, FlipsAreAcceptedOrRefused) {
  const std::string bytes = Module("golden_mlp_v1.so");
  int refused = 0;
  for (size_t at = 0; at < bytes.size(); ++at) {
    for (const unsigned char mask : {0x01, 0x80, 0xff}) {
      std::string flipped = bytes;
      flipped[at] = static_cast<char>(flipped[at] ^ mask);
      const absl::Status s = Check(flipped);
      if (s.ok()) continue;
      ++refused;
      ASSERT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << at << ": " << s;
    }
  }
  EXPECT_GT(refused, 500);
}

// The marker file the constructor of testdata/constructor.so writes.
std::string MarkerPath(absl::string_view name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name, ".", getpid());
}

TEST(HostKernelModuleLoad, RefusesAConstructorBeforeDlopen) {
  const std::string bytes = Module("constructor.so");
  // The fixture is real: loaded without the check, its constructor runs.
  const std::string control = MarkerPath("control");
  setenv("XLA_HOSTILE_MARKER", control.c_str(), 1);
  const std::string path =
      absl::StrCat(std::getenv("TEST_SRCDIR"), "/xla_aot/xla/stream_executor/host/testdata/constructor.so");
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  dlclose(handle);
  EXPECT_EQ(access(control.c_str(), F_OK), 0) << "the constructor did not run under dlopen";

  const std::string marker = MarkerPath("marker");
  setenv("XLA_HOSTILE_MARKER", marker.c_str(), 1);
  absl::StatusOr<std::unique_ptr<HostKernelModule>> module = HostKernelModule::Load("hostile", bytes);
  unsetenv("XLA_HOSTILE_MARKER");
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(module.status().message(),
                                "host kernel module 'hostile': has an initializer (DT_INIT_ARRAY, 1 entry)"))
      << module.status();
  EXPECT_NE(access(marker.c_str(), F_OK), 0) << "the constructor ran";
}

TEST(HostKernelModuleLoad, LoadsACheckedModule) {
  absl::StatusOr<std::unique_ptr<HostKernelModule>> module =
      HostKernelModule::Load("good", Module("kernel.so"));
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_TRUE((*module)->GetKernel("xla_fusion").ok());
  absl::StatusOr<std::unique_ptr<HostKernelModule>> golden =
      HostKernelModule::Load("golden", Module("golden_mlp_v1.so"));
  ASSERT_TRUE(golden.ok()) << golden.status();
  EXPECT_TRUE((*golden)->GetKernel("xla_fusion_1").ok());
}

}  // namespace
}  // namespace stream_executor::host
