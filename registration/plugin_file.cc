// registration/plugin_file.cc — see plugin_file.h.
#include "registration/plugin_file.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "c10/util/Exception.h"

namespace c10 {
namespace impl {
namespace {

static_assert(sizeof(void*) == 8, "the plugin loader reads 64-bit ELF only");

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#elif defined(__powerpc64__)
constexpr uint16_t kHostMachine = EM_PPC64;
#elif defined(__riscv)
constexpr uint16_t kHostMachine = EM_RISCV;
#elif defined(__s390x__)
constexpr uint16_t kHostMachine = EM_S390;
#else
#error "plugin_loader: add this machine's ELF e_machine value"
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kHostData = ELFDATA2LSB;
#else
constexpr unsigned char kHostData = ELFDATA2MSB;
#endif

// strerror_r is the GNU one (returns the text) or the XSI one (returns 0 and
// fills the buffer) depending on feature macros; accept both.
[[maybe_unused]] const char* strerror_result(const char* text, const char*) {
  return text;
}
[[maybe_unused]] const char* strerror_result(int rc, const char* buf) {
  return rc == 0 ? buf : "unknown error";
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

const char* machine_name(unsigned machine) {
  switch (machine) {
    case EM_X86_64:
      return "x86-64";
    case EM_AARCH64:
      return "AArch64";
    case EM_386:
      return "i386";
    case EM_ARM:
      return "ARM";
    case EM_PPC64:
      return "PowerPC64";
    case EM_RISCV:
      return "RISC-V";
    case EM_S390:
      return "s390";
    default:
      return "unknown";
  }
}

const char* elf_type_name(unsigned type) {
  switch (type) {
    case ET_REL:
      return "a relocatable object file (ELF type ET_REL)";
    case ET_EXEC:
      return "an executable (ELF type ET_EXEC)";
    case ET_CORE:
      return "a core dump (ELF type ET_CORE)";
    default:
      return "an ELF file of an unknown type";
  }
}

// The file being checked, read with plain I/O: none of its code runs.
class PluginFile {
 public:
  explicit PluginFile(const std::string& path) : path_(path) {
    // O_NONBLOCK: open() of a FIFO would wait for a writer for ever; the
    // descriptor is only pread, once fstat says it is a regular file.
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) {
      const int err = errno;
      C10_THROW_ERROR(Error, "load_library: cannot read plugin ", path, ": ",
                      errno_text(err), ". ",
                      err == EACCES ? "Make the file readable by this process."
                                    : "Check the file.");
    }
    struct stat st;
    std::memset(&st, 0, sizeof(st));
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      const bool is_dir = S_ISDIR(st.st_mode);
      ::close(fd_);
      C10_THROW_ERROR(Error, "load_library: ", path, " is ",
                      is_dir ? "a directory" : "not a regular file",
                      ", not a shared object. Pass the path of the plugin's "
                      ".so file.");
    }
    size_ = static_cast<uint64_t>(st.st_size);
  }
  ~PluginFile() { ::close(fd_); }
  PluginFile(const PluginFile&) = delete;
  PluginFile& operator=(const PluginFile&) = delete;

  uint64_t size() const { return size_; }

  // Reads [offset, offset + len) or throws naming what was being read.
  void read(uint64_t offset, void* out, uint64_t len, const char* what) const {
    TORCH_CHECK(offset <= size_ && len <= size_ - offset,
                "load_library: ", path_, " is truncated or corrupt: its ", what,
                " spans bytes ", offset, "..", offset + len,
                " but the file has ", size_, " bytes. Rebuild the plugin.");
    char* dst = static_cast<char*>(out);
    while (len > 0) {
      const ssize_t n = ::pread(fd_, dst, len, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int err = n < 0 ? errno : EIO;
        C10_THROW_ERROR(Error, "load_library: cannot read plugin ", path_, ": ",
                        errno_text(err), ". Check the file.");
      }
      dst += n;
      offset += static_cast<uint64_t>(n);
      len -= static_cast<uint64_t>(n);
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace

std::string errno_text(int err) {
  char buf[256] = {0};
  return strerror_result(strerror_r(err, buf, sizeof(buf)), buf);
}

// Checks that `path` is a 64-bit shared object for this machine and returns
// its descriptor (See Note [Plugin descriptor]).
PluginDescriptor read_plugin_descriptor(const std::string& path) {
  PluginFile file(path);
  const std::string not_so =
      c10::str("load_library: ", path, " is not a shared object: it is ");
  const char* kRebuild = " Rebuild the plugin.";

  Elf64_Ehdr eh;
  std::memset(&eh, 0, sizeof(eh));
  file.read(0, eh.e_ident, std::min<uint64_t>(EI_NIDENT, file.size()),
            "ELF identification");
  TORCH_CHECK(std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0, not_so,
              "not an ELF file (it does not start with \\x7fELF). Pass the "
              "path of a plugin built as a shared library.");
  TORCH_CHECK(
      eh.e_ident[EI_CLASS] == ELFCLASS64, "load_library: ", path, " is ",
      eh.e_ident[EI_CLASS] == ELFCLASS32 ? "a 32-bit ELF file"
                                         : "an ELF file of unknown class",
      ", but this process is 64-bit. Build the plugin for this machine.");
  TORCH_CHECK(eh.e_ident[EI_DATA] == kHostData, "load_library: ", path,
              " has the wrong byte order for this machine (ELF data encoding ",
              int(eh.e_ident[EI_DATA]), ", expected ", int(kHostData),
              "). Build the plugin for this machine.");
  file.read(0, &eh, sizeof(eh), "ELF header");
  TORCH_CHECK(eh.e_type == ET_DYN, not_so, elf_type_name(eh.e_type),
              ", expected a shared object (ET_DYN). Link the plugin with "
              "-shared (in Bazel: cc_binary(linkshared = True)).");
  TORCH_CHECK(eh.e_machine == kHostMachine, "load_library: ", path,
              " was built for ", machine_name(eh.e_machine), " (e_machine ",
              eh.e_machine, "), but this process runs on ",
              machine_name(kHostMachine), " (e_machine ", kHostMachine,
              "). Build the plugin for this machine.");

  const std::string not_plugin =
      c10::str("load_library: ", path, " is not an Ember plugin: it has no ",
               ".ember_plugin descriptor");
  const char* kUseMacro =
      ". Build it with EMBER_PLUGIN(name) (from "
      "sdk/plugin.h) in one of its source files.";
  TORCH_CHECK(eh.e_shoff != 0, not_plugin,
              " (it has no section headers; strip plugins with `strip`, "
              "which keeps them)",
              kUseMacro);
  TORCH_CHECK(eh.e_shentsize == sizeof(Elf64_Shdr), "load_library: ", path,
              " is corrupt: its section headers are ", eh.e_shentsize,
              " bytes each, expected ", sizeof(Elf64_Shdr), ".", kRebuild);

  // With 0xff00 sections or more, the counts live in section header 0.
  Elf64_Shdr first;
  file.read(eh.e_shoff, &first, sizeof(first), "section header table");
  const uint64_t shnum = eh.e_shnum != 0 ? eh.e_shnum : first.sh_size;
  const uint64_t shstrndx =
      eh.e_shstrndx != SHN_XINDEX ? eh.e_shstrndx : first.sh_link;
  TORCH_CHECK(shnum <= file.size() / sizeof(Elf64_Shdr), "load_library: ", path,
              " is truncated or corrupt: it claims ", shnum,
              " sections but has only ", file.size(), " bytes.", kRebuild);
  std::vector<Elf64_Shdr> sections(shnum);
  file.read(eh.e_shoff, sections.data(), shnum * sizeof(Elf64_Shdr),
            "section header table");
  TORCH_CHECK(shstrndx < shnum && sections[shstrndx].sh_type == SHT_STRTAB,
              "load_library: ", path, " is corrupt: its section-name table (",
              "index ", shstrndx, ") is missing.", kRebuild);
  const Elf64_Shdr& names_hdr = sections[shstrndx];
  std::vector<char> names(names_hdr.sh_size <= file.size() ? names_hdr.sh_size
                                                           : 0);
  file.read(names_hdr.sh_offset, names.data(), names_hdr.sh_size,
            "section-name table");

  const char kSectionName[] = ".ember_plugin";
  const Elf64_Shdr* section = nullptr;
  for (const Elf64_Shdr& sh : sections) {
    if (sh.sh_name < names.size() &&
        names.size() - sh.sh_name >= sizeof(kSectionName) &&
        std::memcmp(names.data() + sh.sh_name, kSectionName,
                    sizeof(kSectionName)) == 0) {
      section = &sh;
      break;
    }
  }
  TORCH_CHECK(section != nullptr, not_plugin, kUseMacro);
  TORCH_CHECK(section->sh_type != SHT_NOBITS, "load_library: ", path,
              " is corrupt: its .ember_plugin section has no contents in the "
              "file.",
              kRebuild);

  // Every layout starts with the magic and the layout version.
  PluginDescriptor d;
  std::memset(&d, 0, sizeof(d));
  constexpr uint64_t kPrefix = offsetof(PluginDescriptor, abi_version);
  TORCH_CHECK(section->sh_size >= kPrefix, not_plugin, " (its .ember_plugin ",
              "section is ", section->sh_size, " bytes, too small for one)",
              kUseMacro);
  file.read(section->sh_offset, &d, kPrefix, ".ember_plugin section");
  TORCH_CHECK(d.magic == kPluginDescriptorMagic, not_plugin, " (its ",
              ".ember_plugin section starts with ", hex(d.magic),
              ", expected the magic value ", hex(kPluginDescriptorMagic), ")",
              kUseMacro);
  TORCH_CHECK(d.layout_version == kPluginDescriptorLayout,
              "load_library: plugin ", path,
              " has a descriptor of layout version ", d.layout_version,
              ", but this Ember reads layout ", kPluginDescriptorLayout,
              ". Rebuild the plugin against this Ember.");
  const uint64_t n = section->sh_size / sizeof(PluginDescriptor);
  TORCH_CHECK(n <= 1 || section->sh_size % sizeof(PluginDescriptor) != 0,
              "load_library: plugin ", path, " carries ", n,
              " descriptors. Write EMBER_PLUGIN(name) exactly once per "
              "shared object.");
  TORCH_CHECK(section->sh_size == sizeof(PluginDescriptor),
              "load_library: plugin ", path, " has a .ember_plugin section of ",
              section->sh_size, " bytes, expected ", sizeof(PluginDescriptor),
              " for descriptor layout ", kPluginDescriptorLayout,
              ". Rebuild the plugin against this Ember.");
  file.read(section->sh_offset, &d, sizeof(d), ".ember_plugin section");
  TORCH_CHECK(
      std::memchr(d.name, '\0', sizeof(d.name)) != nullptr &&
          d.name[0] != '\0' &&
          std::memchr(d.fingerprint, '\0', sizeof(d.fingerprint)) != nullptr,
      "load_library: plugin ", path, " has a corrupt descriptor (its ",
      "name or fingerprint is empty or not terminated). Rebuild the "
      "plugin with EMBER_PLUGIN(name).");
  return d;
}

}  // namespace impl
}  // namespace c10
